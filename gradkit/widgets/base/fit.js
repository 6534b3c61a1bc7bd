// How a picture fits the width it is shown at (a phone's 390-px screen as a desktop's 860).

// The least font size a picture draws, in CSS pixels (shown at the width drawn: the size read).
export const LEAST_FONT = 11;

// The width a picture designed `design` pixels wide is drawn at in `room` pixels (null: not laid out).
export function pictureWidth(design, room) {
  return room > 0 ? Math.min(design, Math.floor(room)) : design;
}

// The stride (1, 2, 3, ...) at which labels centred at `positions` keep `gap` pixels between them.
export function labelStride(positions, widths, gap = 4) {
  const n = positions.length;
  for (let s = 1; s < n; s++) {
    let clear = true;
    for (let k = 0; k + s < n && clear; k += s) {
      clear = positions[k + s] - positions[k] >= (widths[k] + widths[k + s]) / 2 + gap;
    }
    if (clear) return s;
  }
  return Math.max(1, n);
}

// The first of `texts` that fits `width` pixels at `size` down to `least`, as {text, size}; when
// none does, the last one cut short with "…" at `least`.
export function fitText(texts, width, measure, size = 13, least = LEAST_FONT) {
  const all = Array.isArray(texts) ? texts : [texts];
  for (const t of all) {
    for (let s = size; s >= least; s--) if (measure(t, s) <= width) return { text: t, size: s };
  }
  let t = all[all.length - 1];
  while (t.length > 1 && measure(`${t}…`, least) > width) t = t.slice(0, -1).trimEnd();
  return { text: `${t}…`, size: least };
}

// The left edge of a text that wants to start at `x`, moved left to end by `right` (not past `left`).
export function clampLeft(x, width, right, left = 2) {
  return Math.max(left, Math.min(x, right - width));
}
