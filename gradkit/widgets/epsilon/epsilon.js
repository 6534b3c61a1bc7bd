// EpsilonLab's picture: the error versus eps, log-log, per shown dtype, with gradcheck's tolerance
// and eps, theory and the cursor; below, a strip marks where eps rounds to 0 or the error is 0.
import { EPS_GRID, EPS_MAX, EPS_MIN, epsLabel } from "../base/eps.js";
import { pyFormat } from "../base/format.js";
import { Axes, logTicks } from "../base/plot.js";
import { COLORS, themed } from "../base/theme.js";
import { LEAST_FONT, clampLeft, fitText, pictureWidth } from "../base/fit.js";
import { pointRecord, rowOf } from "../base/tables.js";
import { errorLimits, labFound, labReadouts, noSlopeLines, optimumInRange, shownDtypes } from "./words.js";

// a dtype's colour (scene.styles: the palette's light value) in the theme painted
const styleColor = (scene, name) => themed(scene.styles[name][0]);
export const LAB_LAYOUT = {
  main: [86, 30, 540, 290],
  strip: [86, 380, 540, 52],
  legend: [646, 36],
  sizes: { strip: [860, 448], plain: [860, 366], none: [860, 0] },
};
const XLIM = [EPS_MIN / 2.5, EPS_MAX * 2.5];
// the picture in CSS pixels, as axes (for the legend's keys)
const PIXELS = new Axes({ name: "pixels", box: [0, 0, 1, 1], xlim: [0, 1], ylim: [1, 0] });
// Narrower than BESIDE pixels, the legend's keys go below the plot (one a row), the strip below them.
export const BESIDE = 700;
export const NARROW = { left: 78, right: 14, legendLeft: 24, legendGap: 52, row: 20, stripGap: 34, tail: 16 };

// The layout at the page's width (`room`; null: as designed) for `rows` legend rows, with or without the strip.
export function epsilonLayout(room, rows, strip) {
  const W = pictureWidth(LAB_LAYOUT.sizes.plain[0], room);
  const { main, sizes } = LAB_LAYOUT;
  if (W >= BESIDE) {
    // the legend still beside the plot, which gives up the width lost (none at the design width)
    const less = sizes.plain[0] - W;
    const narrower = ([l, t, w, h]) => [l, t, w - less, h];
    return { main: narrower(main), strip: narrower(LAB_LAYOUT.strip), legend: [LAB_LAYOUT.legend[0] - less, LAB_LAYOUT.legend[1]],
      size: [W, sizes[strip ? "strip" : "plain"][1]] };
  }
  const { left, right, legendLeft, legendGap, row, stripGap, tail } = NARROW;
  const plot = [left, main[1], W - left - right, main[3]];
  const legend = [legendLeft, plot[1] + plot[3] + legendGap];
  const end = rows ? legend[1] + row * (rows - 1) + row / 2 : plot[1] + plot[3] + 40;
  const stripBox = [left, end + stripGap, plot[2], LAB_LAYOUT.strip[3]];
  return { main: plot, strip: stripBox, legend, size: [W, strip ? stripBox[1] + stripBox[3] + tail : end + tail] };
}

export function labParts(ctx) {
  const p = ctx.panels();
  const curves = p.includes("curves");
  const theory = p.includes("theory") && ctx.state.theory !== false;
  return { curves, theory, picture: curves || p.includes("theory") };
}

// Where, for each shown dtype, eps rounds to 0 or the error is exactly 0 (the strip's marks).
function stripMarks(ctx, found) {
  const { scene, state } = ctx;
  return shownDtypes(scene, state).map((name) => {
    const k = scene.dtypes.indexOf(name);
    const flags = EPS_GRID.map((_, g) => rowOf(ctx.tables.flags, [found.w, found.s, k, g]));
    const err = rowOf(ctx.tables.error, [found.w, found.s, k]);
    const under = EPS_GRID.filter((_, g) => flags[g][0] > 0);
    const zero = EPS_GRID.filter((_, g) => err[g] === 0 && !(flags[g][0] > 0));
    return { name, under, zero };
  });
}

// The strip is drawn only when it has something to mark (float16 and bfloat16 usually do).
function wantsStrip(ctx, found) {
  return !!found && !found.noSlope && stripMarks(ctx, found).some((m) => m.under.length || m.zero.length);
}

// The picture's layout for the record found: no picture without curves or theory; no legend rows
// where there is no slope to measure (the plot says so instead); `withStrip`: the strip is drawn.
function layoutOf(ctx, found) {
  const parts = labParts(ctx);
  if (!parts.picture) return { size: [pictureWidth(LAB_LAYOUT.sizes.none[0], ctx.room), 0] };
  const rows = found.noSlope ? 0 : parts.theory ? 6 : 3; // drawLegend's rows
  const withStrip = parts.curves && wantsStrip(ctx, found);
  return { ...epsilonLayout(ctx.room, rows, withStrip), withStrip };
}

const positive = (values) => Array.from(values, (v) => (v > 0 ? v : NaN));

// [name, line width, marker size] of the shown curves: the highlighted one first, wide, under the
// others, narrower, so that a curve it covers (float64's right arm under float32's) still shows.
export function curveOrder(shown, highlighted) {
  return [...shown.filter((n) => n === highlighted).map((n) => [n, 3.4, 6]),
    ...shown.filter((n) => n !== highlighted).map((n) => [n, 1.8, 4.5])];
}

function drawCurves(ctx, ax, found, drawn) {
  const { scene, state, tables, painter: dr } = ctx;
  const shown = shownDtypes(scene, state);
  // every curve at full colour (3:1 or more on the paper), each dtype its own marker and dashes
  for (const [name, lw, ms] of curveOrder(shown, state.dtype)) {
    const k = scene.dtypes.indexOf(name);
    const [, marker, ls] = scene.styles[name];
    const color = styleColor(scene, name);
    const err = positive(rowOf(tables.error, [found.w, found.s, k]));
    dr.line(ax, EPS_GRID, err, { color, lw, alpha: 1, ls });
    dr.markers(ax, EPS_GRID, err, { color, marker, ms, alpha: 1 });
    drawn.curves[name] = err.map((q, g) => [EPS_GRID[g], Number.isFinite(q) ? q : null]);
  }
  drawn.order = curveOrder(shown, state.dtype).map(([name]) => name);
  const shelf = shelfOf(ctx, found, shown);
  if (shelf) drawShelf(dr, ax, shelf, drawn);
}

// The longest run (3 grid steps or more) where x ± eps both round to x: [first, last] or null.
export function shelfRun(collapsed) {
  let best = null;
  for (let g = 0, start = -1; g <= collapsed.length; g++) {
    if (collapsed[g]) { if (start < 0) start = g; continue; }
    const end = g - 1;
    if (start >= 0 && end - start >= 2 && (!best || end - start > best[1] - best[0])) best = [start, end];
    start = -1;
  }
  return best;
}

// The shelf to label: the highlighted dtype's, else the longest of a shown dtype's.
function shelfOf(ctx, found, shown) {
  const c = ctx.scene.fields.flags.indexOf("collapsed");
  const runs = shown.map((name) => {
    const k = ctx.scene.dtypes.indexOf(name);
    const run = shelfRun(EPS_GRID.map((_, g) => rowOf(ctx.tables.flags, [found.w, found.s, k, g])[c] > 0));
    return { name, run, error: rowOf(ctx.tables.error, [found.w, found.s, k])[run ? run[0] : 0] };
  }).filter((r) => r.run && r.error > 0);
  const mine = runs.find((r) => r.name === ctx.state.dtype);
  return mine || runs.sort((p, q) => (q.run[1] - q.run[0]) - (p.run[1] - p.run[0]))[0] || null;
}

// A shelf at |f′(x)| where x ± eps land on x (slope exactly 0), labelled above (below near the top).
function drawShelf(dr, ax, { name, run, error }, drawn) {
  const label = `${name}: x ± eps round to x, slope 0`; // with several shown: whose numbers round
  const [x, y] = [clampLeft(ax.px(EPS_GRID[run[0]]) + 2, dr.measure(label, 11), ax.left + ax.width - 2, ax.left + 2), ax.py(error)];
  const above = y - ax.top > 24;
  dr.text(x, above ? y - 8 : y + 9, label, { size: 11, baseline: above ? "bottom" : "top" });
  drawn.shelf = { dtype: name, eps: [EPS_GRID[run[0]], EPS_GRID[run[1]]], error, label };
}

function drawTheory(ctx, ax, found, drawn) {
  const { scene, state, tables, painter: dr } = ctx;
  const [trunc, round] = [0, 1].map((c) => positive(EPS_GRID.map((_, g) => rowOf(tables.theory, [found.w, found.s, found.d, g])[c])));
  dr.line(ax, EPS_GRID, trunc, { color: COLORS.grey, ls: "--", lw: 1.2 });
  dr.line(ax, EPS_GRID, round, { color: styleColor(scene, state.dtype), ls: ":", lw: 1.6 });
  for (const name of shownDtypes(scene, state)) {
    const opt = found.optima[scene.dtypes.indexOf(name)];
    if (!optimumInRange(opt)) continue;
    const mine = name === state.dtype;
    dr.markers(ax, [opt.optimal_eps], [opt.optimal_error],
      { color: styleColor(scene, name), marker: "*", ms: mine ? 13 : 10, mec: COLORS.ink, mew: 0.6 });
    drawn.stars[name] = [opt.optimal_eps, opt.optimal_error];
  }
}

function drawStrip(ctx, lay, found, drawn) {
  const { scene, state, painter: dr } = ctx;
  const shown = shownDtypes(scene, state);
  const strip = new Axes({ name: "strip", box: lay.strip, xlim: XLIM, ylim: [shown.length - 0.5, -0.5], xscale: "log" });
  dr.frame(strip, { xticks: logTicks(...XLIM).map(([v]) => [v, ""]), grid: true });
  const key = fitText(["× eps rounds to 0 (no slope)      ▼ error exactly 0", "× eps rounds to 0    ▼ error exactly 0"],
    lay.size[0] - strip.left - 4, dr.measure, 11);
  dr.text(strip.left, strip.top - 4, key.text, { baseline: "bottom", size: key.size });
  stripMarks(ctx, found).forEach(({ name, under, zero }, row) => {
    const color = styleColor(scene, name);
    dr.markers(strip, under, under.map(() => row), { color, marker: "x", ms: 6, mew: 1.5 });
    dr.markers(strip, zero, zero.map(() => row), { color, marker: "v", ms: 5 });
    dr.text(strip.left - 6, strip.py(row), name, { align: "right", size: LEAST_FONT });
    drawn.strip[name] = { rounds_to_0: under, exactly_0: zero };
  });
  dr.vline(strip, found.eps, { color: COLORS.ink, lw: 1.2 });
  return strip;
}

function drawLegend(ctx, lay, parts) {
  const dr = ctx.painter;
  const [x0, y0] = lay.legend;
  const chosen = styleColor(ctx.scene, ctx.state.dtype);
  const order = ctx.state.scheme === "central" ? "eps²" : "eps";
  const items = [
    parts.theory && [{ color: COLORS.grey, ls: "--", lw: 1.2 }, `truncation ∝ ${order}`],
    parts.theory && [{ color: chosen, ls: ":", lw: 1.6 }, "rounding ∝ u/eps"],
    [{ color: COLORS.error, lw: 1.6 }, "gradcheck tolerance"],
    [{ color: COLORS.grey, ls: ":", lw: 1.2 }, `gradcheck's eps = ${epsLabel(ctx.scene.default_eps)}`],
    parts.theory && ["*", "theory's best eps"],
    ["o", "your eps"],
  ].filter(Boolean);
  items.forEach(([style, label], i) => {
    const y = y0 + 20 * i;
    if (style === "*") dr.markers(PIXELS, [x0 + 12], [y], { marker: "*", color: COLORS.grey, ms: 11, mec: COLORS.ink, mew: 0.6, noclip: true });
    else if (style === "o") {
      dr.segment(x0, y, x0 + 24, y, { color: COLORS.ink, lw: 1.2 });
      dr.markers(PIXELS, [x0 + 12], [y], { fill: "none", mec: COLORS.ink, mew: 2, ms: 8, noclip: true });
    } else dr.segment(x0, y, x0 + 24, y, style);
    dr.text(x0 + 32, y, label, { size: 11 });
  });
}

// Each dtype's legend swatch: its marker and dashes in its colour, the highlighted one wider.
const GLYPHS = { o: "●", s: "■", "^": "▲", D: "◆" };
const DASHES = { "-": null, "--": [6, 3], "-.": [6, 2, 2, 2] };
export function dtypeSwatch(style, color, mine) {
  const [, marker, ls] = style;
  const dash = DASHES[ls];
  let background = color;
  if (dash) {
    let at = 0;
    const stops = dash.map((w, i) => `${i % 2 ? "transparent" : color} ${at}px ${(at += w)}px`);
    background = `repeating-linear-gradient(90deg, ${stops.join(", ")})`;
  }
  return { glyph: GLYPHS[marker] || "●", background, height: mine ? "4px" : "3px" };
}

function dtypeLegend(ctx) {
  const { scene, state } = ctx;
  ctx.showLegend(shownDtypes(scene, state).map((name) => {
    const mine = name === state.dtype;
    const color = styleColor(scene, name);
    const look = dtypeSwatch(scene.styles[name], color, mine);
    return { swatch: { background: look.background, height: look.height }, glyph: [look.glyph, color],
      label: name + (mine ? " (highlighted)" : ""), attrs: { "data-dtype": name } };
  }));
}

function drawPicture(ctx, found, parts, lay) {
  const { scene, state, painter: dr } = ctx;
  const ylim = found.noSlope ? [1e-17, 10] : errorLimits(ctx.tables, found.w, found.point.tolerance);
  const ax = new Axes({ name: "main", box: lay.main, xlim: XLIM, ylim, xscale: "log", yscale: "log" });
  const at = `at x = ${pyFormat(found.x, ".4g")}`;
  dr.frame(ax, { xticks: logTicks(...XLIM), yticks: logTicks(...ylim), grid: true, xlabel: "eps (the nudge)",
    ylabel: "error  |numeric − analytic|", ylabelGap: 52, right: lay.size[0],
    title: `error of the numeric slope of ${scene.function} ${at}`, titles: [`error of the slope of ${scene.function} ${at}`, `error ${at}`] });
  const drawn = { ylim, curves: {}, stars: {}, strip: {}, no_slope: found.noSlope };
  const axes = [ax];
  if (found.noSlope) {
    noSlopeLines(scene.function, found.x, found.point).forEach((line, k) => {
      const fit = fitText(line, ax.width - 8, dr.measure, 12);
      dr.text(ax.left + ax.width / 2, ax.top + ax.height / 2 + 20 * k - 10, fit.text,
        { align: "center", color: COLORS.error, size: fit.size });
    });
    return { drawn, axes };
  }
  dr.hline(ax, found.point.tolerance, { color: COLORS.error, lw: 1.6 });
  dr.vline(ax, scene.default_eps, { color: COLORS.grey, ls: ":", lw: 1.2 });
  if (parts.theory) drawTheory(ctx, ax, found, drawn);
  if (parts.curves) drawCurves(ctx, ax, found, drawn);
  const err = found.at[found.d].error;
  dr.vline(ax, found.eps, { color: COLORS.ink, lw: 1.2 });
  const y = err > 0 ? err : err === 0 ? ylim[0] : NaN; // exactly 0 sits on the bottom edge
  dr.markers(ax, [found.eps], [y], { fill: "none", mec: styleColor(scene, state.dtype), mew: 2, ms: 10, noclip: err === 0 });
  drawn.error = Number.isFinite(err) ? err : null;
  drawn.cursor_px = [+ax.px(found.eps).toFixed(2), Number.isFinite(y) ? +ax.py(y).toFixed(2) : null];
  if (lay.withStrip) axes.push(drawStrip(ctx, lay, found, drawn));
  drawLegend(ctx, lay, parts);
  return { drawn, axes };
}

export const epsilonView = {
  drawsFrom: ["function", "x", "eps", "eps_exact", "dtype", "scheme", "theory", "shown"],
  find: (ctx) => pointRecord(ctx, "schemes", labFound),
  layout: layoutOf,
  paint(ctx, found, lay) {
    const { scene, state } = ctx;
    const parts = labParts(ctx);
    if (parts.picture) dtypeLegend(ctx);
    else ctx.showLegend([]);
    const drawn = { eps: found.eps, eps_label: epsLabel(found.eps), dtype: state.dtype, scheme: state.scheme,
      shown: state.shown, x: found.x, theory: parts.theory };
    const picture = parts.picture ? drawPicture(ctx, found, parts, lay) : { drawn: {}, axes: [] };
    return { readouts: labReadouts(scene, state, found, ctx.panels()), drawn: { ...drawn, ...picture.drawn }, axes: picture.axes };
  },
};
