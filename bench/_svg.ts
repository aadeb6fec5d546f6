/**
 * What the bench's SVG charts (`_chart.ts`, `_soak_chart.ts`) draw alike: the
 * font, escaping, and a panel's title, grid and frame.
 *
 * @module
 */

/** The charts' font, as an SVG attribute. */
export const FONT =
  'font-family="system-ui, -apple-system, Segoe UI, sans-serif"';

/** `text` safe inside an SVG text node. */
export function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  );
}

/** Where a panel is and how its values map to its height. */
export interface PanelBox {
  /** Left edge. */
  x0: number;
  /** Top edge. */
  top: number;
  width: number;
  height: number;
}

/** A panel's title above it and its horizontal grid lines, labelled at left. */
export function titleAndGrid(
  box: PanelBox,
  title: string,
  yTicks: number[],
  sy: (value: number) => number,
  label: (tick: number) => string,
): string[] {
  const { x0, top, width } = box;
  const out = [
    `<text x="${x0 + width / 2}" y="${
      top - 24
    }" text-anchor="middle" font-size="14" font-weight="600" ${FONT}>${
      esc(title)
    }</text>`,
  ];
  for (const t of yTicks) {
    out.push(
      `<line x1="${x0}" x2="${x0 + width}" y1="${sy(t)}" y2="${
        sy(t)
      }" stroke="#e5e7eb"/>`,
      `<text x="${x0 - 6}" y="${
        sy(t) + 4
      }" text-anchor="end" font-size="11" fill="#4b5563" ${FONT}>${
        label(t)
      }</text>`,
    );
  }
  return out;
}

/** A panel's border and its axis labels (`yLabelAt`: left of the panel). */
export function frame(
  box: PanelBox,
  xLabel: string,
  yLabel: string,
  yLabelAt: number,
): string[] {
  const { x0, top, width, height } = box;
  return [
    `<rect x="${x0}" y="${top}" width="${width}" height="${height}" fill="none" stroke="#9ca3af"/>`,
    `<text x="${x0 + width / 2}" y="${
      top + height + 34
    }" text-anchor="middle" font-size="12" fill="#374151" ${FONT}>${xLabel}</text>`,
    `<text transform="translate(${x0 - yLabelAt} ${
      top + height / 2
    }) rotate(-90)" text-anchor="middle" font-size="12" fill="#374151" ${FONT}>${
      esc(yLabel)
    }</text>`,
  ];
}
