// SlopeExplorer's picture and readouts: the overview (f near x, tangent, secant, the zoom
// window) and the zoom in units of eps (f in the dtype as a staircase), from torch's rows.
import { epsLabel } from "../base/eps.js";
import { fmtPlain, marked, pyFormat, readoutHtml } from "../base/format.js";
import { Axes, drawPanels, linearTicks, panelBox, panelLayout, paddedLimits } from "../base/plot.js";
import { pictureWidth } from "../base/fit.js";
import { pointRecord, pointSlot, record, rowOf } from "../base/tables.js";
import { COLORS, cssColor } from "../base/theme.js";

// Palette names and their colours in the theme painted. The zoom window is purple, dotted and
// bracketed: told apart from the dashed vermillion secant by hue, dash pattern and shape.
export const SLOPE_PALETTE = { tangent: "blue", secant: "vermillion", ink: "ink", window: "purple" };
const hue = (part) => COLORS[SLOPE_PALETTE[part]];
export const FORMULAS = {
  central: "(f(x+eps) − f(x−eps)) / (2·eps)",
  forward: "(f(x+eps) − f(x)) / eps",
};

// The row the state shows: {r: field -> number, zoom, analytic, eps, x}, or null until it comes.
export function slopeRow(scene, tables, exact, state, x) {
  const s = scene.schemes.indexOf(state.scheme);
  const d = scene.dtypes.indexOf(state.dtype);
  const p = pointSlot(scene, tables, exact, state);
  if (s < 0 || d < 0 || !p || !p.from || !tables.rows) return null;
  const { from, at, g } = p;
  return { r: record(scene.fields, rowOf(from.rows, [at, s, d, g])), zoom: rowOf(from.zoom, [at, d, g]),
    analytic: tables.analytic.data[p.w], eps: p.eps, x };
}

// A slope for a readout: three decimals, or four significant digits when huge (x = 1e300).
export function fmtSlope(v) {
  return Number.isFinite(v) && Math.abs(v) >= 1e6 ? pyFormat(v, ".4e") : pyFormat(v, ".3f");
}

export function slopeReadouts(scene, state, found) {
  const { r, analytic: a, eps } = found;
  const name = state.dtype;
  const custom = scene.custom;
  const err = Math.abs(r.numeric - a);
  const stored = r.h === eps ? "" : `; stored in ${name} as ${pyFormat(r.h, ".9g")}`;
  return {
    numeric: readoutHtml("numeric slope", fmtSlope(r.numeric),
      `= ${pyFormat(r.numeric, ".15g")}, ${FORMULAS[state.scheme]} in ${name}`),
    analytic: readoutHtml(custom ? "analytic (your backward)" : "analytic slope", fmtSlope(a),
      `= ${pyFormat(a, ".15g")}, ${custom ? "what your backward returns, in float64" : "autograd in float64"}`),
    abs_error: readoutHtml("absolute error", pyFormat(err, ".2e"), "|numeric − analytic|"),
    rel_error: a !== 0
      ? readoutHtml("relative error", pyFormat(err / Math.abs(a), ".2e"), "|numeric − analytic| / |analytic|")
      : readoutHtml("relative error", "undefined", "the analytic slope is 0"),
    eps: readoutHtml("eps", epsLabel(eps), `= ${fmtPlain(eps)}${stored}`),
    note: slopeNote(scene, state, found),
  };
}

function slopeNote(scene, state, { r, eps, x }) {
  const name = state.dtype;
  if (r.underflow) {
    return marked("bad", `eps = ${epsLabel(eps)} rounds to 0 in ${name}: there is no nudge, so no slope can be measured (0/0).`);
  }
  if (!Number.isFinite(r.fx)) {
    const why = Number.isFinite(r.xs) ? "" : ` (x itself overflows to ${pyFormat(r.xs)} in ${name})`;
    return marked("bad", `f(x) = ${scene.function} is ${pyFormat(r.fx)} at x = ${pyFormat(x, ".6g")}${why}; pick another x.`);
  }
  if (!Number.isFinite(r.v0) || !Number.isFinite(r.v1)) {
    return marked("bad", `f at x ± eps is not a finite ${name} number (it overflows): the numeric slope is ${pyFormat(r.numeric)}.`);
  }
  if (r.collapsed) {
    return marked("bad", `Both evaluation points round to the same ${name} number: f is evaluated twice at one point and the numeric slope is exactly 0.`);
  }
  return `The evaluation points land on ${pyFormat(r.p1, ".10g")} and ${pyFormat(r.p0, ".10g")} in ${name}.`;
}

// How far each panel's y range reaches past what it draws (paddedLimits; Python sends no limits).
export const SLOPE_MARGIN = 0.12;

// The overview's y limits: f over the view and f(x), padded; a pole (1/x near 0) cut to the bulk.
export function overviewLimits(xs, ys, lo, hi, fx) {
  const vis = [];
  for (let i = 0; i < xs.length; i++) if (xs[i] >= lo && xs[i] <= hi && Number.isFinite(ys[i])) vis.push(ys[i]);
  if (Number.isFinite(fx)) vis.push(fx);
  if (vis.length === 0) return [-1, 1];
  const sorted = [...vis].sort((p, q) => p - q);
  const q = (t) => sorted[Math.min(sorted.length - 1, Math.floor(t * (sorted.length - 1)))];
  const full = sorted[sorted.length - 1] - sorted[0];
  const bulk = q(0.95) - q(0.05);
  const chosen = full > 20 * bulk && bulk > 0 ? [q(0.05), q(0.95), fx] : sorted;
  return paddedLimits(chosen, SLOPE_MARGIN);
}

// The zoom panel's y limits: the staircase, the tangent's ends, the evaluation points and 0.
export function zoomLimits(scene, found) {
  const { r, analytic: a, eps, zoom } = found;
  const hw = scene.half_width;
  const points = [(r.v0 - r.fx) / eps, (r.v1 - r.fx) / eps];
  return paddedLimits([...zoom, -a * hw, a * hw, ...points, 0], SLOPE_MARGIN);
}

export const SLOPE_LAYOUT = {
  both: { size: [860, 330], curve: [0.075, 0.16, 0.40, 0.7], zoom: [0.585, 0.16, 0.40, 0.7] },
  curve: { size: [560, 330], curve: [0.12, 0.16, 0.84, 0.7] },
  zoom: { size: [560, 330], zoom: [0.14, 0.16, 0.82, 0.7] },
};

// Narrower than designed, panels keep their margins in pixels: side by side down to SIDE_BY_SIDE px.
export const SLOPE_NARROW = { left: 70, right: 14, top: 38, height: 236, bottom: 58 };
export const SIDE_BY_SIDE = 760;

// The picture's size and each shown panel's box at the page's width (`room`; null: as designed).
export function slopeLayout(panels, room) {
  const design = panelLayout(SLOPE_LAYOUT, panels, ["curve", "zoom"]);
  const names = ["curve", "zoom"].filter((n) => design[n]);
  const W = pictureWidth(design.size[0], room);
  const at = (size) => ({ size, ...Object.fromEntries(names.map((n) => [n, panelBox(size, design[n])])) });
  if (W === design.size[0] || (names.length === 2 && W >= SIDE_BY_SIDE)) return at([W, design.size[1]]);
  const { left, right, top, height, bottom } = SLOPE_NARROW;
  const slot = top + height + bottom;
  const out = { size: [W, slot * names.length], stacked: names.length > 1 };
  names.forEach((n, k) => { out[n] = [left, k * slot + top, W - left - right, height]; });
  return out;
}

function drawOverview(ctx, lay, found) {
  const { scene, tables, state, painter: dr } = ctx;
  const { r, analytic: a, eps, x } = found;
  const hw = scene.view_half_width;
  const xlim = [x - hw, x + hw];
  const [cx, cy] = [0, 1].map((i) => rowOf(tables.curve, [i]));
  const ylim = overviewLimits(cx, cy, xlim[0], xlim[1], r.fx);
  const ax = new Axes({ name: "curve", box: lay.curve, xlim, ylim });
  const named = scene.custom || scene.function.startsWith("your ") ? scene.function : `f(x) = ${scene.function}`;
  const near = `near x = ${pyFormat(x, ".4g")}`;
  dr.frame(ax, { xticks: linearTicks(...xlim), yticks: linearTicks(...ylim), xlabel: "x", ylabel: "f(x)",
    title: `${named} ${near}`, titles: [`${scene.function} ${near}`, scene.function], right: lay.size[0] });
  const win = [r.xs - scene.half_width * eps, r.xs + scene.half_width * eps];
  const shade = windowShade(win, xlim);
  if (!r.underflow) {
    if (shade.alpha > 0) dr.xspan(ax, ...win, { color: hue("window"), alpha: shade.alpha });
    for (const edge of win) dr.vline(ax, edge, { color: hue("window"), lw: 1.8, ls: ":" });
    if (shade.wider) {
      dr.text(ax.left + 6, ax.top + 10, `x ± ${scene.half_width}·eps is wider than this view`,
        { color: hue("window"), size: 11 });
    }
  }
  dr.line(ax, cx, cy, { color: hue("ink"), lw: 1.6 });
  const tangent = [xlim, [r.fx + a * (xlim[0] - r.xs), r.fx + a * (xlim[1] - r.xs)]];
  const secant = [xlim, [r.v1 + r.numeric * (xlim[0] - r.p1), r.v1 + r.numeric * (xlim[1] - r.p1)]];
  dr.line(ax, ...tangent, { color: hue("tangent"), lw: 2.4, alpha: 0.8 });
  dr.line(ax, ...secant, { color: hue("secant"), lw: 1.6, ls: "--" });
  dr.markers(ax, [r.p0, r.p1], [r.v0, r.v1], { color: hue("secant"), ms: 7, mec: COLORS.paper, mew: 0.8 });
  dr.markers(ax, [r.xs], [r.fx], { color: hue("ink"), ms: 6 });
  if (!r.underflow) windowBrackets(dr, ax, win);
  return { ax, drawn: { points_px: ax.pixels([r.p0, r.p1], [r.v0, r.v1]), secant_px: ax.pixels(...secant), tangent_px: ax.pixels(...tangent), curve_ylim: ylim,
    window: { x: win, shaded: !r.underflow && shade.alpha > 0 } } };
}

function drawZoom(ctx, lay, found) {
  const { scene, state, painter: dr } = ctx;
  const { r, analytic: a, eps, zoom } = found;
  const hw = scene.half_width;
  const ylim = zoomLimits(scene, found);
  const ax = new Axes({ name: "zoom", box: lay.zoom, xlim: [-hw, hw], ylim });
  const xticks = [-2, -1, 0, 1, 2].map((u) => [u, u === 0 ? "x" : `${u < 0 ? "−" : "+"}${Math.abs(u) === 1 ? "" : Math.abs(u)}eps`]);
  dr.frame(ax, { xticks, yticks: linearTicks(...ylim, 6), grid: true, xlabel: "offset from x, in units of eps",
    xlabels: ["offset from x, in eps"], ylabel: "(f − f(x)) / eps", title: `zoom: x ± ${hw}·eps, f in ${state.dtype}`,
    titles: [`x ± ${hw}·eps, f in ${state.dtype}`], right: lay.size[0] });
  const us = Array.from({ length: scene.zoom_points }, (_, i) => -hw + (2 * hw * i) / (scene.zoom_points - 1));
  dr.line(ax, [-hw, hw], [-a * hw, a * hw], { color: hue("tangent"), lw: 3, alpha: 0.7 });
  dr.line(ax, us, Array.from(zoom), { color: hue("ink"), lw: 1.3 });
  const [o0, o1] = scene.offsets[state.scheme];
  const zv = [(r.v0 - r.fx) / eps, (r.v1 - r.fx) / eps];
  const sec = [[-hw, hw], [zv[1] + r.numeric * (-hw - o1), zv[1] + r.numeric * (hw - o1)]];
  dr.line(ax, ...sec, { color: hue("secant"), lw: 1.6, ls: "--" });
  dr.markers(ax, [o0, o1], zv, { color: hue("secant"), ms: 8, mec: COLORS.paper, mew: 0.8 });
  dr.markers(ax, [0], [0], { color: hue("ink"), ms: 6 });
  const levels = new Set(Array.from(zoom).filter(Number.isFinite)).size;
  return { ax, drawn: { zoom_ylim: ylim, zoom_points_px: ax.pixels([o0, o1], zv), zoom_levels: levels } };
}

// The zoom window on the overview: shaded while it covers at most half the view, else only its
// dotted edges and [ ] ends (a shaded panel reads as no window); `wider`: both ends beyond it.
export function windowShade([a, b], [lo, hi]) {
  const covered = Math.max(0, Math.min(b, hi) - Math.max(a, lo)) / (hi - lo);
  return { alpha: covered > 0.5 ? 0 : 0.16, covered, wider: a < lo && b > hi };
}

// The window's ends as brackets "[ ]": a shape no other mark has, seen even a pixel wide.
function windowBrackets(dr, ax, [a, b]) {
  const style = { color: hue("window"), lw: 2 };
  const [top, bottom] = [ax.top + 3, ax.top + 17];
  for (const [x, dir] of [[ax.px(a), 1], [ax.px(b), -1]]) {
    if (!(x >= ax.left && x <= ax.left + ax.width)) continue;
    dr.segment(x, top, x, bottom, style);
    dr.segment(x, top, x + 5 * dir, top, style);
    dr.segment(x, bottom, x + 5 * dir, bottom, style);
  }
}

// The legend's [part, label, swatch] for the panels shown: the blue line is the tangent only where
// autograd gives the slope (a Function's backward may claim a wrong one); the window with the curve.
export function slopeLegendItems(scene, lay) {
  const hw = scene.half_width;
  const items = [
    ["tangent", scene.custom ? "slope your backward claims, through (x, f(x))"
      : "tangent: the analytic slope", "solid"],
    ["secant", "secant through the evaluation points: the numeric slope", "dashed"],
  ];
  if (lay.curve) {
    const magnifier = lay.stacked ? "the lower panel" : "the right-hand panel";
    items.push(["window", lay.zoom ? `x ± ${hw}·eps: the stretch ${magnifier} magnifies`
      : `x ± ${hw}·eps around the evaluation points`, "window"]);
  }
  return items;
}

function legend(ctx, lay) {
  const items = slopeLegendItems(ctx.scene, lay);
  ctx.showLegend(items.map(([part, label, swatch]) => {
    const color = cssColor(SLOPE_PALETTE[part]);
    if (swatch === "window") {
      return { label, mark: "[ ]", swatch: { width: "auto", height: "auto", color, fontWeight: "bold", background: "none" } };
    }
    const dashed = `repeating-linear-gradient(90deg, ${color} 0 6px, transparent 6px 9px)`;
    return { label, swatch: { background: swatch === "dashed" ? dashed : color } };
  }));
  return items;
}

export const slopeView = {
  drawsFrom: ["function", "x", "eps", "eps_exact", "dtype", "scheme"],
  find: (ctx) => pointRecord(ctx, "fields", slopeRow),
  layout: (ctx) => slopeLayout(ctx.panels(), ctx.room),
  paint(ctx, found, lay) {
    const { scene, state } = ctx;
    const items = legend(ctx, lay);
    const drawn = {
      legend: items.map(([part, label]) => [part, label]),
      eps: epsLabel(found.eps), eps_value: found.eps, eps_label: epsLabel(found.eps), dtype: state.dtype,
      scheme: state.scheme, x: found.x, numeric: found.r.numeric, analytic: found.analytic,
      points: [[found.r.p0, found.r.v0], [found.r.p1, found.r.v1]],
    };
    const axes = drawPanels(ctx, lay, found, [["curve", drawOverview], ["zoom", drawZoom]], drawn);
    return { readouts: slopeReadouts(scene, state, found), drawn, axes };
  },
};
