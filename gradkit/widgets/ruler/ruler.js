// FloatRuler's picture and readouts: torch's numbers (scene.py) scaled and worded, never rounded here.
import { epsLabel } from "../base/eps.js";
import { fmtPlain, marked, pyFormat, readoutHtml } from "../base/format.js";
import { Axes, drawPanels, panelLayout } from "../base/plot.js";
import { fitText, pictureWidth } from "../base/fit.js";
import { COLORS, cssColor } from "../base/theme.js";
import { pointRecord, pointSlot, rowOf } from "../base/tables.js";

// A double as Python's repr writes it: "1e-05", "0.0999755859375", "65504.0".
export function pyRepr(v) {
  if (!Number.isFinite(v)) return pyFormat(v);
  const [mant, ex] = v.toExponential().split("e");
  const k = Number(ex);
  if (k < -4 || k >= 16) return `${mant}e${k < 0 ? "-" : "+"}${String(Math.abs(k)).padStart(2, "0")}`;
  const s = String(v);
  return s.includes(".") ? s : `${s}.0`;
}

// What the state shows, named as Python's Ruler: x as stored, its spacing and neighbours, where
// x ± eps land and the flags; null until it comes. `typed` is x's value.
export function rulerFound(scene, tables, exact, state, typed) {
  const d = (scene.dtypes || []).indexOf(state.dtype);
  const p = pointSlot(scene, tables, exact, state);
  if (d < 0 || !p || !p.from || !tables.landing || !tables.flags) return null;
  const [x, ulp, ulp_below] = rowOf(tables.point, [p.w, d]);
  const [h, lower, upper] = rowOf(p.from.landing, [p.at, d, p.g]);
  const raised = rowOf(p.from.flags, [p.at, d, p.g]);
  return {
    dtype: state.dtype, typed, x, ulp, ulp_below, h, lower, upper, eps: p.eps,
    ...Object.fromEntries(scene.flags.map((name, i) => [name, raised[i] === 1])),
    near: rowOf(tables.near, [p.w, d]), max: scene.max[state.dtype],
  };
}

// The representable numbers within x ± view·eps, in eps; null where those sent do not reach.
export function viewTicks(r, view) {
  if (r.overflow) return null;
  const n = r.near.length;
  const reach = view * r.eps;
  if (!(r.near[0] * r.ulp <= -reach && r.near[n - 1] * r.ulp >= reach)) return null;
  return Array.from(r.near).map((o) => (o * r.ulp) / r.eps).filter((t) => Math.abs(t) <= view);
}

// The representable numbers within `ulps` spacings of x, in spacings.
export function zoomTicks(r, ulps) {
  return Array.from(r.near).filter((o) => Math.abs(o) <= ulps + 1e-9);
}

// Where x − eps and x + eps land: [lower, upper] in units of eps and in ulps (NaN: no nudge).
export function landed(r) {
  if (r.underflow || r.overflow) return { eps: [NaN, NaN], ulps: [NaN, NaN] };
  return {
    eps: [(r.lower - r.x) / r.eps, (r.upper - r.x) / r.eps],
    ulps: [(r.lower - r.x) / r.ulp, (r.upper - r.x) / r.ulp],
  };
}

// a count of spacings: "1 ulp", "16.8 ulps"
export function ulpsText(n) {
  const text = pyFormat(n, ".3g");
  return `${text} ${text === "1" ? "ulp" : "ulps"}`;
}

function overflowWords(r) {
  return `the largest ${r.dtype} number is ${pyFormat(r.max, ".6g")}`;
}

export function rulerReadouts(r) {
  const name = r.dtype;
  const out = {};
  if (!Number.isFinite(r.x)) {
    out.x = readoutHtml("x", pyFormat(r.typed, ".6g"), `overflows to ${pyFormat(r.x)} in ${name}: ${overflowWords(r)}`);
    out.ulp = readoutHtml("spacing (ulp) at x", "none", `x is ${pyFormat(r.x)} in ${name}: no number with neighbours`);
  } else {
    const stored = r.x === r.typed ? "stored exactly" : `stored as ${pyRepr(r.x)}`;
    out.x = readoutHtml("x", pyFormat(r.typed, ".6g"), `${stored} in ${name}`);
    out.ulp = readoutHtml("spacing (ulp) at x", pyFormat(r.ulp, ".3g"), ulpDetail(r));
  }
  if (r.overflow) {
    out.landing = readoutHtml("x − eps → ", pyFormat(r.lower),
      `x + eps → <b>${pyFormat(r.upper)}</b>: the nudged values overflow`);
  } else if (r.underflow) {
    out.landing = readoutHtml("x ± eps", "no nudge", `eps = ${epsLabel(r.eps)} rounds to 0 in ${name}`);
  } else {
    out.landing = readoutHtml("x − eps → ", pyRepr(r.lower),
      `x + eps → <b>${pyRepr(r.upper)}</b> (${ulpsText((r.upper - r.x) / r.ulp)} above x)`);
  }
  out.step = stepText(r);
  out.collapse = collapseText(r);
  return out;
}

function ulpDetail(r) {
  const plain = r.ulp >= 1e-20 ? `= ${fmtPlain(r.ulp)}; ` : "";
  let below = "";
  if (r.ulp_below !== r.ulp && Number.isFinite(r.ulp_below)) {
    const power = Number.isInteger(Math.log2(Math.abs(r.x)));
    const closer = r.ulp_below < r.ulp ? "twice as close" : "twice as far apart";
    const why = power ? ` (x is a power of two: below it the numbers sit ${closer})` : "";
    below = `; just below x it is ${pyFormat(r.ulp_below, ".3g")}${why}`;
  }
  return `${plain}eps is ${ulpsText(r.eps / r.ulp)}${below}`;
}

function stepText(r) {
  const label = "the nudge that really happened";
  const real = r.upper - r.lower;
  if (r.overflow) {
    return readoutHtml(label, pyFormat(real / 2, ".4g"),
      `(x + eps) − (x − eps) = ${pyFormat(r.upper)} − ${pyFormat(r.lower)} = ${pyFormat(real)}`);
  }
  if (r.underflow || r.collapsed) return readoutHtml(label, "0", "no nudge survives the rounding");
  return readoutHtml(label, pyFormat(real / 2, ".4g"),
    `(x + eps) − (x − eps) = ${pyFormat(real, ".6g")} instead of 2·eps = ${pyFormat(2 * r.eps, ".6g")} ` +
    `(${pyFormat(real / (2 * r.eps), ".4g")} × 2·eps)`);
}

function collapseText(r) {
  const name = r.dtype;
  if (r.overflow) {
    const inf = pyFormat(Number.isFinite(r.upper) ? r.lower : r.upper);
    const largest = Number.isFinite(r.x) ? ` (${overflowWords(r)})` : "";
    return marked("bad", `x − eps and x + eps overflow to ${inf} in ${name}${largest}. ` +
      `The nudge (x + eps) − (x − eps) is ${inf} − ${inf} = NaN: no slope can be measured here. ` +
      "Pick a smaller x or a wider dtype.");
  }
  if (r.underflow) {
    return marked("bad", `eps = ${epsLabel(r.eps)} is below the smallest ${name} number: it rounds to 0, ` +
      "so (f(x) − f(x)) / 0 is 0/0 = NaN.");
  }
  if (r.collapsed) {
    return marked("bad", `x − eps and x + eps both land on x: eps is less than half the spacing ` +
      `${pyFormat(r.ulp, ".3g")}, so f(x + eps) − f(x − eps) = 0 and the numeric slope is exactly 0.`);
  }
  if (r.lower_collapsed || r.upper_collapsed) {
    const side = r.lower_collapsed ? "x − eps" : "x + eps";
    return marked("warn", `${side} lands on x: only one side of the nudge survives, so the central ` +
      "difference sees half a step.");
  }
  return marked("good", `x − eps, x and x + eps are three different ${name} numbers.`);
}

export const RULER_LAYOUT = {
  both: { size: [860, 330], landing: [34, 44, 792, 84], spacing: [34, 214, 792, 70] },
  landing: { size: [860, 176], landing: [34, 44, 792, 84] },
  spacing: { size: [860, 160], spacing: [34, 44, 792, 70] },
};

// The layout at the page's width (`room`; null: as designed): 34-px margins, heights as designed.
export function rulerLayout(panels, room) {
  const design = panelLayout(RULER_LAYOUT, panels, ["landing", "spacing"]);
  const W = pictureWidth(design.size[0], room);
  const out = { size: [W, design.size[1]], narrow: W < design.size[0] };
  for (const name of ["landing", "spacing"]) {
    if (design[name]) { const [l, t, , h] = design[name]; out[name] = [l, t, W - 2 * l, h]; }
  }
  return out;
}


// ticks as one polyline: a vertical segment per position, broken by NaN
export function tickSegments(positions, half) {
  const xs = [];
  const ys = [];
  for (const p of positions) xs.push(p, p, NaN), ys.push(-half, half, NaN);
  return [xs, ys];
}

// A ruler's frame and the line its numbers sit on; where x overflows, the words why it is empty.
function ruler(ctx, lay, r, name, xlim, ylim, xticks, xlabel, title) {
  const dr = ctx.painter;
  const ax = new Axes({ name, box: lay[name], xlim, ylim });
  dr.frame(ax, { xticks, spines: "bottom", xlabel, title, right: lay.size[0] });
  dr.hline(ax, 0, { color: COLORS.grey, lw: 1 });
  if (r.overflow) {
    const text = `x = ${pyFormat(r.typed, ".6g")} overflows to ${pyFormat(r.x)} in ${r.dtype}: no ${r.dtype} numbers to draw here`;
    const fit = fitText([text, `x overflows to ${pyFormat(r.x)} in ${r.dtype}`], ax.width, dr.measure, 12);
    dr.text(ax.left + ax.width / 2, ax.py(0.55), fit.text, { align: "center", color: COLORS.vermillion, size: fit.size });
  }
  return ax;
}

function drawLanding(ctx, lay, r) {
  const dr = ctx.painter;
  const V = ctx.scene.view;
  const ax = ruler(ctx, lay, r, "landing", [-V * 1.04, V * 1.04], [-0.6, 1.3],
    [[-1, "x − eps"], [0, "x"], [1, "x + eps"]], "offset from x, in units of eps", "where x − eps and x + eps land");
  if (r.overflow) return { ax, drawn: { view_ticks: null } };
  const ticks = viewTicks(r, V);
  if (ticks) dr.line(ax, ...tickSegments(ticks, 0.2), { color: COLORS.ink, lw: 1 });
  else {
    dr.rect(ax.px(-V), ax.py(0.2), ax.px(V) - ax.px(-V), ax.py(-0.2) - ax.py(0.2), { fill: COLORS.grey, alpha: 0.25 });
    dr.text(ax.px(-V), ax.py(-0.4), "too many numbers to draw one by one", { size: 11 });
  }
  const [lo, hi] = landed(r).eps;
  const finite = Number.isFinite(lo) && Number.isFinite(hi);
  if (finite) {
    dr.line(ax, [-1, lo, NaN, 1, hi], [0.52, 0.06, NaN, 0.52, 0.06], { color: COLORS.vermillion, lw: 1, ls: ":" });
  }
  dr.markers(ax, [-1, 1], [0.6, 0.6], { color: COLORS.paper, mec: COLORS.vermillion, mew: 1.8, ms: 9 });
  if (finite) dr.markers(ax, [lo, hi], [0, 0], { color: COLORS.vermillion, ms: 7 });
  dr.markers(ax, [0], [0], { marker: "|", color: COLORS.blue, ms: 22, mew: 2.5 });
  return { ax, drawn: { view_ticks: ticks ? ticks.length : null, landed_px_landing: finite ? ax.pixels([lo, hi], [0, 0]) : [] } };
}

function drawSpacing(ctx, lay, r) {
  const dr = ctx.painter;
  const U = ctx.scene.zoom_ulps;
  const xticks = Array.from({ length: 2 * U + 1 }, (_, i) => [i - U, pyFormat(i - U, ".0f").replace("-", "−")]);
  const ax = ruler(ctx, lay, r, "spacing", [-U - 0.6, U + 0.6], [-0.6, 1.0], xticks,
    "offset from x, in spacings (ulp) at x", "the representable numbers next to x");
  if (r.overflow) return { ax, drawn: { zoom_ticks: 0 } };
  const ticks = zoomTicks(r, U);
  dr.line(ax, ...tickSegments(ticks, 0.25), { color: COLORS.ink, lw: 1.4 });
  dr.markers(ax, [0], [0], { marker: "|", color: COLORS.blue, ms: 22, mew: 2.5 });
  const within = (q) => Number.isFinite(q) && Math.abs(q) <= U + 0.5;
  const lands = landed(r).ulps.filter(within);
  dr.markers(ax, lands, lands.map(() => 0), { color: COLORS.vermillion, ms: 7 });
  const asked = [-r.eps / r.ulp, r.eps / r.ulp].filter(within);
  dr.markers(ax, asked, asked.map(() => 0.6), { color: COLORS.paper, mec: COLORS.vermillion, mew: 1.8, ms: 9 });
  const [lo, hi] = landed(r).ulps;
  const further = { color: COLORS.vermillion, size: 11 };
  const out = lay.narrow ? "further out" : "lands further out"; // two fit side by side
  if (lo < -U - 0.5) dr.text(ax.px(-U - 0.5), ax.py(0.55), `← x − eps ${out}`, further);
  if (hi > U + 0.5) dr.text(ax.px(U + 0.5), ax.py(0.55), `x + eps ${out} →`, { ...further, align: "right" });
  return { ax, drawn: { zoom_ticks: ticks.length, landed_px_spacing: ax.pixels(lands, lands.map(() => 0)) } };
}

export const rulerView = {
  init(ctx) {
    ctx.showLegend([
      [{ background: cssColor("ink"), width: "2px", height: "12px" }, "representable number"],
      [{ border: `1.8px solid ${cssColor("vermillion")}`, width: "7px", height: "7px", borderRadius: "50%" }, "requested x ± eps"],
      [{ background: cssColor("vermillion"), width: "8px", height: "8px", borderRadius: "50%" }, "where it lands"],
      [{ background: cssColor("blue"), width: "3px", height: "14px" }, "x (as stored)"],
    ].map(([swatch, label]) => ({ swatch, label })));
  },
  drawsFrom: ["x", "eps", "eps_exact", "dtype"],
  find: (ctx) => pointRecord(ctx, "dtypes", rulerFound),
  layout: (ctx) => rulerLayout(ctx.panels(), ctx.room),
  paint(ctx, r, lay) {
    const where = landed(r);
    const num = (q) => (Number.isFinite(q) ? q : null);
    const drawn = {
      eps: r.eps, eps_label: epsLabel(r.eps), dtype: r.dtype, x: num(r.x), ulp: num(r.ulp),
      landed: r.underflow || r.overflow ? null : [r.lower, r.upper], landed_in_eps: where.eps.map(num),
      landed_in_ulps: where.ulps.map(num), underflow: r.underflow, collapsed: r.collapsed, overflow: r.overflow,
    };
    const axes = drawPanels(ctx, lay, r, [["landing", drawLanding], ["spacing", drawSpacing]], drawn);
    return { readouts: rulerReadouts(r), drawn, axes };
  },
};
