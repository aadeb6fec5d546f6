/**
 * A dependency-free SVG chart of the side-by-side results: initial sync
 * time and sync throughput against object count (log scales), and watch
 * flood events/s, for every contender; below them, when the scale
 * section ran, sync time, time per object and retained heap per object of
 * the scale curves.
 *
 * @module
 */

import { esc, FONT, frame, titleAndGrid } from "./_svg.ts";

/** One contender's series. */
export interface ChartSeries {
  label: string;
  color: string;
  /** Sync time in ms by object count. */
  syncMs: Map<number, number>;
  /** Flood events per second. */
  floodEventsPerSec: number | undefined;
}

/** One curve of the scale section. */
export interface ScaleSeries {
  label: string;
  color: string;
  /** Sync time in ms by object count. */
  syncMs: Map<number, number>;
  /** Retained heap in bytes per object by object count (may be empty). */
  heapPerObject: Map<number, number>;
}

const W = 1080;
const H = 360;
const PANEL_W = 250;
const PANEL_H = 220;
const TOP = 60;
const LEGEND_COLUMNS = 3;
const LEGEND_WIDTH = 330;
const LEGEND_ROW = 18;

function fmt(value: number): string {
  if (value === 0) return "0";
  if (value >= 1e6) return `${(value / 1e6).toFixed(value >= 1e7 ? 0 : 1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(value >= 1e4 ? 0 : 1)}k`;
  if (value >= 10) return value.toFixed(0);
  return value.toPrecision(2);
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (
    let p = Math.floor(Math.log10(min));
    p <= Math.ceil(Math.log10(max));
    p++
  ) ticks.push(10 ** p);
  return ticks;
}

/** Ticks from 0 past `max` at a 1-2-5 step. */
function linearTicks(max: number): number[] {
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t < max + step; t += step) ticks.push(t);
  return ticks;
}

/** A line panel over log-scaled object counts; log or linear values. */
function linePanel(
  x0: number,
  title: string,
  yLabel: string,
  counts: number[],
  series: { label: string; color: string; points: [number, number][] }[],
  options: { top?: number; linearY?: boolean } = {},
): string {
  const TOP = options.top ?? 60;
  const ys = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) =>
    v > 0
  );
  if (ys.length === 0) return "";
  const linear = options.linearY === true;
  const yTicks = linear
    ? linearTicks(Math.max(...ys))
    : logTicks(Math.min(...ys), Math.max(...ys));
  const [yMin, yMax] = [yTicks[0], yTicks[yTicks.length - 1]];
  const [xMin, xMax] = [Math.min(...counts), Math.max(...counts)];
  const sx = (v: number) =>
    x0 + (Math.log10(v) - Math.log10(xMin)) /
      (Math.log10(xMax) - Math.log10(xMin) || 1) * PANEL_W;
  const sy = (v: number) =>
    TOP + PANEL_H -
    (linear
        ? (v - yMin) / (yMax - yMin || 1)
        : (Math.log10(v) - Math.log10(yMin)) /
          (Math.log10(yMax) - Math.log10(yMin) || 1)) * PANEL_H;
  const box = { x0, top: TOP, width: PANEL_W, height: PANEL_H };
  const out = titleAndGrid(box, title, yTicks, sy, fmt);
  for (const c of counts) {
    out.push(
      `<line x1="${sx(c)}" x2="${sx(c)}" y1="${TOP}" y2="${
        TOP + PANEL_H
      }" stroke="#f3f4f6"/>`,
      `<text x="${sx(c)}" y="${
        TOP + PANEL_H + 16
      }" text-anchor="middle" font-size="11" fill="#4b5563" ${FONT}>${
        fmt(c)
      }</text>`,
    );
  }
  out.push(...frame(box, "objects listed", yLabel, 44));
  for (const s of series) {
    const pts = s.points.filter((p) => p[1] > 0);
    if (pts.length === 0) continue;
    out.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2.5" points="${
        pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(
          " ",
        )
      }"/>`,
    );
    for (const [x, y] of pts) {
      out.push(
        `<circle cx="${sx(x).toFixed(1)}" cy="${
          sy(y).toFixed(1)
        }" r="3.5" fill="${s.color}"/>`,
      );
    }
  }
  return out.join("\n");
}

/** A bar panel of flood events/s. */
function barPanel(
  x0: number,
  series: ChartSeries[],
  floodLabel: string,
): string {
  const bars = series.filter((s) => s.floodEventsPerSec);
  if (bars.length === 0) return "";
  const max = Math.max(...bars.map((s) => s.floodEventsPerSec!)) * 1.15;
  const out: string[] = [
    `<text x="${x0 + PANEL_W / 2}" y="${
      TOP - 24
    }" text-anchor="middle" font-size="14" font-weight="600" ${FONT}>Watch flood (higher is better)</text>`,
    `<rect x="${x0}" y="${TOP}" width="${PANEL_W}" height="${PANEL_H}" fill="none" stroke="#9ca3af"/>`,
    `<text x="${x0 + PANEL_W / 2}" y="${
      TOP + PANEL_H + 34
    }" text-anchor="middle" font-size="12" fill="#374151" ${FONT}>${
      esc(floodLabel)
    }</text>`,
    `<text transform="translate(${x0 - 44} ${
      TOP + PANEL_H / 2
    }) rotate(-90)" text-anchor="middle" font-size="12" fill="#374151" ${FONT}>events/s</text>`,
  ];
  const slot = PANEL_W / bars.length;
  bars.forEach((s, i) => {
    const v = s.floodEventsPerSec!;
    const h = v / max * PANEL_H;
    const x = x0 + i * slot + slot * 0.2;
    out.push(
      `<rect x="${x.toFixed(1)}" y="${(TOP + PANEL_H - h).toFixed(1)}" width="${
        (slot * 0.6).toFixed(1)
      }" height="${h.toFixed(1)}" fill="${s.color}"/>`,
      `<text x="${(x + slot * 0.3).toFixed(1)}" y="${
        (TOP + PANEL_H - h - 6).toFixed(1)
      }" text-anchor="middle" font-size="12" fill="#111827" ${FONT}>${
        fmt(v)
      }</text>`,
    );
  });
  return out.join("\n");
}

/** The second row: the scale curves. */
function scaleRow(top: number, scale: ScaleSeries[]): string {
  const counts = [
    ...new Set(scale.flatMap((s) => [...s.syncMs.keys()])),
  ].sort((a, b) => a - b);
  if (counts.length === 0) return "";
  const points = (f: (n: number) => number | undefined) =>
    counts.flatMap((n) => {
      const v = f(n);
      return v === undefined ? [] : [[n, v] as [number, number]];
    });
  const time = scale.map((s) => ({
    ...s,
    points: points((n) => {
      const v = s.syncMs.get(n);
      return v === undefined ? undefined : v / 1000;
    }),
  }));
  const perObject = scale.map((s) => ({
    ...s,
    points: points((n) => {
      const v = s.syncMs.get(n);
      return v === undefined ? undefined : v * 1000 / n;
    }),
  }));
  const heap = scale.filter((s) => s.heapPerObject.size > 0).map((s) => ({
    ...s,
    points: points((n) => s.heapPerObject.get(n)),
  }));
  const legend = scale.map((s, i) =>
    `<rect x="${70 + i * 230}" y="${
      top + H - 34
    }" width="14" height="14" fill="${s.color}"/>` +
    `<text x="${90 + i * 230}" y="${
      top + H - 22
    }" font-size="12" fill="#111827" ${FONT}>${esc(s.label)}</text>`
  ).join("\n");
  return [
    linePanel(
      90,
      "Scale: initial sync (lower is better)",
      "seconds",
      counts,
      time,
      {
        top: top + 60,
      },
    ),
    linePanel(
      450,
      "Scale: time per object",
      "µs per object",
      counts,
      perObject,
      {
        top: top + 60,
        linearY: true,
      },
    ),
    linePanel(810, "Scale: retained heap per object", "bytes", counts, heap, {
      top: top + 60,
      linearY: true,
    }),
    legend,
  ].join("\n");
}

/** The whole chart as an SVG document. */
export function renderChart(
  series: ChartSeries[],
  subtitle: string,
  floodLabel: string,
  scale: ScaleSeries[] = [],
): string {
  const second = scale.some((s) => s.syncMs.size > 0);
  // The legend wraps, three contenders a row, and the subtitle gets a line
  // of its own below it, so that long names never run into either.
  const rows = Math.ceil(series.length / LEGEND_COLUMNS);
  const top = H + rows * LEGEND_ROW;
  const height = second ? top + H + 20 : top;
  const counts = [...new Set(series.flatMap((s) => [...s.syncMs.keys()]))]
    .sort((a, b) => a - b);
  const timeSeries = series.map((s) => ({
    label: s.label,
    color: s.color,
    points: counts.filter((c) => s.syncMs.has(c)).map((
      c,
    ) => [c, s.syncMs.get(c)! / 1000] as [number, number]),
  }));
  const rateSeries = series.map((s) => ({
    label: s.label,
    color: s.color,
    points: counts.filter((c) => s.syncMs.has(c)).map((
      c,
    ) => [c, c / (s.syncMs.get(c)! / 1000)] as [number, number]),
  }));
  const legend = series.map((s, i) => {
    const x = 70 + (i % LEGEND_COLUMNS) * LEGEND_WIDTH;
    const y = H - 22 + Math.floor(i / LEGEND_COLUMNS) * LEGEND_ROW;
    return `<rect x="${x}" y="${y}" width="14" height="14" fill="${s.color}"/>` +
      `<text x="${x + 20}" y="${
        y + 12
      }" font-size="12" fill="#111827" ${FONT}>${esc(s.label)}</text>`;
  }).join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}">
<rect width="${W}" height="${height}" fill="#ffffff"/>
<text x="${W - 16}" y="${
    height - 10
  }" text-anchor="end" font-size="12" fill="#6b7280" ${FONT}>${
    esc(subtitle)
  }</text>
${
    linePanel(
      90,
      "Initial sync time (lower is better)",
      "seconds",
      counts,
      timeSeries,
    )
  }
${
    linePanel(
      450,
      "Sync throughput (higher is better)",
      "objects/s",
      counts,
      rateSeries,
    )
  }
${barPanel(810, series, floodLabel)}
${legend}
${second ? scaleRow(top, scale) : ""}
</svg>
`;
}
