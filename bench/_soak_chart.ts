/**
 * The soak's SVG chart, in the house style of `_chart.ts`: heap per object
 * after GC against time (with the second half's fitted line), and the
 * heap in MiB, with every compaction (solid) and watch drop (dotted) marked.
 *
 * @module
 */

import { fitLine, relisting, type SoakResults } from "./_soak_report.ts";
import { esc, FONT, frame, titleAndGrid } from "./_svg.ts";

const W = 1080;
const H = 380;
const PANEL_W = 420;
const PANEL_H = 230;
const TOP = 60;
const COLOR = "#2563eb";
const FIT = "#dc2626";

/** Ticks over [min, max] at a 1-2-5 step. */
function ticks(min: number, max: number): number[] {
  const raw = (max - min) / 4 || 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let t = Math.floor(min / step) * step; t < max + step; t += step) {
    out.push(Number(t.toPrecision(12)));
  }
  return out;
}

function panel(
  x0: number,
  title: string,
  yLabel: string,
  results: SoakResults,
  points: [number, number][],
  hollow: boolean[],
  fit?: { from: number; slope: number; intercept: number },
): string {
  const minutes = results.minutes;
  const ys = points.map((p) => p[1]);
  const yTicks = ticks(Math.min(...ys) * 0.98, Math.max(...ys) * 1.02);
  const [yMin, yMax] = [yTicks[0], yTicks[yTicks.length - 1]];
  const xTicks = ticks(0, minutes).filter((t) => t <= minutes);
  const sx = (m: number) => x0 + m / minutes * PANEL_W;
  const sy = (v: number) =>
    TOP + PANEL_H - (v - yMin) / (yMax - yMin || 1) * PANEL_H;
  const box = { x0, top: TOP, width: PANEL_W, height: PANEL_H };
  const out = titleAndGrid(box, title, yTicks, sy, String);
  for (const t of xTicks) {
    out.push(
      `<text x="${sx(t)}" y="${
        TOP + PANEL_H + 16
      }" text-anchor="middle" font-size="11" fill="#4b5563" ${FONT}>${t}</text>`,
    );
  }
  for (const f of results.faults) {
    const x = sx(f.t / 60).toFixed(1);
    out.push(
      f.kind === "compact"
        ? `<line x1="${x}" x2="${x}" y1="${TOP}" y2="${
          TOP + PANEL_H
        }" stroke="#f59e0b" stroke-width="1.5"/>`
        : `<line x1="${x}" x2="${x}" y1="${TOP}" y2="${
          TOP + PANEL_H
        }" stroke="#d1d5db" stroke-dasharray="2 3"/>`,
    );
  }
  out.push(
    ...frame(box, "minutes", yLabel, 48),
    `<polyline fill="none" stroke="${COLOR}" stroke-width="2" points="${
      points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(
        " ",
      )
    }"/>`,
  );
  points.forEach(([x, y], i) => {
    out.push(
      `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" ${
        hollow[i] ? `fill="#ffffff" stroke="${COLOR}"` : `fill="${COLOR}"`
      }/>`,
    );
  });
  if (fit && Number.isFinite(fit.slope)) {
    const at = (m: number) => fit.intercept + fit.slope * m;
    out.push(
      `<line x1="${sx(fit.from)}" x2="${sx(minutes)}" y1="${
        sy(at(fit.from)).toFixed(1)
      }" y2="${
        sy(at(minutes)).toFixed(1)
      }" stroke="${FIT}" stroke-width="2" stroke-dasharray="6 4"/>`,
    );
  }
  return out.join("\n");
}

/** The chart as an SVG document. */
export function renderSoakChart(results: SoakResults): string {
  const perObject = results.samples.map((s) =>
    [s.t / 60, s.heapPerObject] as [number, number]
  );
  const heap = results.samples.map((s) =>
    [s.t / 60, s.heapUsed / 2 ** 20] as [number, number]
  );
  const half = results.minutes / 2;
  const hollow = results.samples.map((s) => relisting(results, s));
  const fit = fitLine(
    perObject.filter((p, i) => p[0] >= half && !hollow[i]),
  );
  const legend = [
    `<rect x="90" y="${H - 34}" width="14" height="14" fill="${COLOR}"/>`,
    `<text x="110" y="${
      H - 22
    }" font-size="12" fill="#111827" ${FONT}>after forced GC (hollow: a relist under way)</text>`,
    `<line x1="330" x2="352" y1="${H - 27}" y2="${
      H - 27
    }" stroke="${FIT}" stroke-width="2" stroke-dasharray="6 4"/>`,
    `<text x="358" y="${
      H - 22
    }" font-size="12" fill="#111827" ${FONT}>second half, least squares</text>`,
    `<line x1="540" x2="540" y1="${H - 36}" y2="${
      H - 18
    }" stroke="#f59e0b" stroke-width="1.5"/>`,
    `<text x="548" y="${
      H - 22
    }" font-size="12" fill="#111827" ${FONT}>compaction (relist)</text>`,
    `<line x1="700" x2="700" y1="${H - 36}" y2="${
      H - 18
    }" stroke="#9ca3af" stroke-dasharray="2 3"/>`,
    `<text x="708" y="${
      H - 22
    }" font-size="12" fill="#111827" ${FONT}>watches dropped (resume)</text>`,
  ].join("\n");
  const subtitle = `${
    results.pods.toLocaleString("en")
  } objects, ${results.rate} writes/s, ${results.minutes} min, three watchers; Deno ${results.deno}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
<rect width="${W}" height="${H}" fill="#ffffff"/>
<text x="${W - 16}" y="${
    H - 6
  }" text-anchor="end" font-size="12" fill="#6b7280" ${FONT}>${
    esc(subtitle)
  }</text>
${
    panel(
      100,
      "Heap per object (flat is good)",
      "bytes per object",
      results,
      perObject,
      hollow,
      { from: half, slope: fit.slope, intercept: fit.intercept },
    )
  }
${panel(620, "Heap after GC", "MiB", results, heap, hollow)}
${legend}
</svg>
`;
}
