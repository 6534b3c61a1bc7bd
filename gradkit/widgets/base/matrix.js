// A Jacobian as a matrix (jacobian.js, lab.js): row i is output entry i (on top), column j input entry j.
import { pyFormat } from "./format.js";
import { Axes } from "./plot.js";
import { LEAST_FONT, clampLeft, fitText } from "./fit.js";
import { COLORS } from "./theme.js";

// A panel whose data units are entries: x in [0, cols], y in [rows, 0] (row 0 on top).
export function matrixAxes(name, box, rows, cols) {
  return new Axes({ name, box, xlim: [0, cols], ylim: [rows, 0] });
}

// Entry ticks at cell centres, [value, label]: every 1st, 2nd, 5th, ... so labels `need` px apart fit.
export function entryTicks(count, px = Infinity, need = 0) {
  const stride = [1, 2, 5, 10, 20, 50].find((s) => s * px >= need) || 100;
  const out = [];
  for (let j = 0; j < count; j += stride) out.push([j + 0.5, String(j)]);
  return out;
}

// One entry as a cell shows it: 3 significant digits, "1.2e+04" style outside [1e-3, 1e4).
export function cellText(v) {
  if (!Number.isFinite(v)) return "";
  if (v === 0) return "0";
  const a = Math.abs(v);
  return (a >= 1e-3 && a < 1e4 ? pyFormat(v, ".3g") : pyFormat(v, ".1e")).replace("-", "−");
}

// Text width in CSS pixels, estimated from above (DejaVu Sans digits are 0.64 em wide).
export function textWidth(text, size) {
  return String(text).length * 0.64 * size;
}

// The largest font size from `size` down to `least` at which every line fits `width` pixels.
export function fitSize(lines, width, measure, size, least) {
  for (let s = size; s > least; s--) if (lines.every((l) => measure(l, s) <= width)) return s;
  return least;
}

// A title that fits `width` pixels, as {lines, size}: one line at the largest size that fits, else
// two split after ": ", else ", ", else a space (lines that fit at `least` first; then the most even).
export function fitTitle(text, width, measure, size = 14, least = LEAST_FONT) {
  const largest = (lines) => fitSize(lines, width, measure, size, least);
  const one = largest([text]);
  if (measure(text, one) <= width) return { lines: [text], size: one };
  const split = (i) => [text.slice(0, i), text.slice(i + 1)];
  const widest = (i) => Math.max(...split(i).map((l) => measure(l, least)));
  const mark = (i) => ({ ":": 0, ",": 1 })[text[i - 1]] ?? 2;
  const rank = (i) => [widest(i) <= width ? 0 : 1, mark(i), widest(i)];
  const cuts = [];
  for (let i = 1; i < text.length - 1; i++) if (text[i] === " ") cuts.push(i);
  if (!cuts.length) return { lines: [text], size: least };
  const lines = split(cuts.sort((p, q) => rank(p).reduce((d, v, k) => d || v - rank(q)[k], 0))[0]);
  return { lines, size: largest(lines) };
}

// Whether a label fits a cell of w × h pixels at this font size, with a little air.
export function fits(text, w, h, size) {
  return textWidth(text, size) + 4 <= w && size + 2 <= h;
}

// The cell's box in pixels, on the whole-pixel edges the cells are filled to: [x, y, w, h].
export function cellBox(ax, i, j) {
  const x = (k) => edgeAt(ax.left, ax.width, ax.xlim[1], k);
  const y = (k) => edgeAt(ax.top, ax.height, ax.ylim[0], k);
  return [x(j), y(i), x(j + 1) - x(j), y(i + 1) - y(i)];
}

// The frame: entry ticks, axis labels (o.xlabels: shorter forms within o.xlabelRoom) and a title of
// one or two lines, each within o.titleWidth and o.right (the picture's width), moved left to fit.
export function matrixFrame(painter, ax, title, o = {}) {
  const rows = ax.ylim[0];
  const cols = ax.xlim[1];
  const xticks = entryTicks(cols, ax.width / cols, textWidth(String(cols - 1), LEAST_FONT) + 5);
  const yticks = entryTicks(rows, ax.height / rows, LEAST_FONT + 3);
  const ylabel = o.ylabel === undefined ? "output entry i" : o.ylabel;
  painter.frame(ax, {
    xticks, yticks, ylabelGap: 30, xlabel: o.xlabel ?? "input entry j",
    xlabels: o.xlabels, xlabelRoom: o.xlabelRoom,
    ylabel: textWidth(ylabel, 12) <= ax.height ? ylabel : "", // a one-row matrix: its tick says it
  });
  const lines = Array.isArray(title) ? title : [title];
  lines.forEach((line, k) => {
    const weight = k === 0 ? "bold" : "normal";
    const measure = (text, size) => painter.measure(text, size, weight);
    const room = Math.min(o.titleWidth || Infinity, o.right ? o.right - 8 : Infinity);
    const fit = room < Infinity ? fitText(line, room, measure, 12) : { text: line, size: 12 };
    const x = o.right ? clampLeft(ax.left, measure(fit.text, fit.size), o.right - 4, 4) : ax.left;
    painter.text(x, ax.top - 8 - 15 * (lines.length - 1 - k), fit.text, { baseline: "bottom", size: fit.size, weight });
  });
}

// Cell edges on whole pixels: two anti-aliased half-covered edges would show a pale seam.
function edgeAt(start, size, count, k) {
  return Math.round(start + (size * k) / count);
}

// Every cell's [i, j], row by row.
const cellsOf = (ax) => Array.from({ length: ax.ylim[0] * ax.xlim[1] }, (_, q) => [Math.floor(q / ax.xlim[1]), q % ax.xlim[1]]);

// The cells, coloured by colour(i, j), inside the panel's spines.
export function matrixCells(painter, ax, colour) {
  for (const [i, j] of cellsOf(ax)) painter.rect(...cellBox(ax, i, j), { fill: colour(i, j) });
  painter.rect(ax.left, ax.top, ax.width, ax.height, { color: COLORS.ink, lw: 0.8 });
}

// The cells' labels, text(i, j) in ink(i, j), at 11 px: all where every one fits its cell, else none.
export function cellLabels(painter, ax, text, ink) {
  const labels = cellsOf(ax).map(([i, j]) => [i, j, text(i, j), cellBox(ax, i, j)]);
  if (!labels.every(([, , t, [, , w, h]]) => !t || fits(t, w, h, LEAST_FONT))) return;
  for (const [i, j, t, [x, y, w, h]] of labels) {
    if (t) painter.text(x + w / 2, y + h / 2, t, { align: "center", size: LEAST_FONT, color: ink(i, j) });
  }
}

// A box around cells rows i0..i1, columns j0..j1.
export function outline(painter, ax, [i0, j0, i1, j1], color = COLORS.ink, lw = 2.2) {
  const [x, y] = cellBox(ax, i0, j0);
  const [x1, y1, w, h] = cellBox(ax, i1, j1);
  painter.rect(x, y, x1 + w - x, y1 + h - y, { color, lw });
}

// Lines between blocks (several outputs or inputs) and, with `grid`, between every cell.
export function matrixLines(painter, ax, { rows = [], cols = [], grid = null } = {}) {
  const R = ax.ylim[0];
  const C = ax.xlim[1];
  if (grid && ax.width / C >= 8 && ax.height / R >= 8) {
    for (let i = 1; i < R; i++) painter.hline(ax, i, { color: grid, lw: 1 });
    for (let j = 1; j < C; j++) painter.vline(ax, j, { color: grid, lw: 1 });
  }
  for (const i of rows) painter.hline(ax, i, { color: COLORS.ink, lw: 1.4 });
  for (const j of cols) painter.vline(ax, j, { color: COLORS.ink, lw: 1.4 });
}

// A note in the middle of a panel, one line per item (e.g. why a heatmap is empty).
export function panelNote(painter, ax, lines) {
  lines.forEach((line, k) => {
    painter.text(ax.left + ax.width / 2, ax.top + ax.height / 2 + (k - (lines.length - 1) / 2) * 15, line,
      { align: "center", size: 11 });
  });
}
