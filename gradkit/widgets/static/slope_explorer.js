// SlopeExplorer's moving layer: tangent, secant, evaluation points, zoom window and the zoom
// panel (staircase, y ticks), all looked up in the scene's table (slope_explorer.py, FIELDS).
const SLOPE = { blue: "#0072B2", red: "#D55E00", ink: "#222222", orange: "#E69F00" };

function slopeRow(ctx) {
  const sc = ctx.scene;
  const v = ctx.values;
  const s = sc.schemes.indexOf(v.scheme);
  const d = sc.dtypes.indexOf(v.dtype);
  if (s < 0 || d < 0) return null;
  if (v.eps_exact != null) {
    const ex = exactFor(ctx);
    if (!ex) return null;
    const num = (a) => a.map((q) => (q === null ? NaN : q));
    return { row: num(ex.rows[s][d]), zoom: num(ex.zoom[d]), extra: ex.extra[s][d], eps: ex.eps };
  }
  const g = v.eps;
  const { G, D, NF, NZ } = sc;
  const row = sceneRow(sc, s, d, g);
  const off = row * NF;
  const zoff = sc.S * D * G * NF + (d * G + g) * NZ;
  return {
    row: ctx.table.subarray(off, off + NF),
    zoom: ctx.table.subarray(zoff, zoff + NZ),
    extra: sceneRowExtra(sc, row),
    eps: ctx.gridEps[g],
  };
}

// The readouts and zoom ticks of one row (scene_row_extra in _slope_table.py does the same).
function sceneRowExtra(sc, row) {
  return { r: unpackStrings(sc, sc.readout_index, row), t: sc.tick_sets[sc.tick_index[row]] };
}

VIEWS.slope_explorer = {
  init(ctx) {
    const spec = ctx.model.get("controls").find((c) => c.name === "eps");
    ctx.gridEps = spec.labels.map(Number);
  },
  paint(ctx) {
    const sc = ctx.scene;
    if (!sc || !sc.fields) return null;
    const found = slopeRow(ctx);
    if (!found) return null;
    const r = Object.fromEntries(sc.fields.map((k, i) => [k, found.row[i]]));
    const eps = found.eps;
    const main = ctx.axes("main");
    const zoom = ctx.axes("zoom");
    const a = sc.analytic;
    const hw = sc.half_width;
    const dr = ctx.draw;
    const [x0, x1] = main.xlim;
    // zoom window x +- 2.5 eps on the overview
    if (!r.underflow) dr.xspan(main, r.xs - hw * eps, r.xs + hw * eps, { color: SLOPE.orange, alpha: 0.35 });
    // tangent: f(x) + a (t - x); secant through the second evaluation point with the numeric slope
    const tangent = [[x0, x1], [r.fx + a * (x0 - r.xs), r.fx + a * (x1 - r.xs)]];
    dr.line(main, ...tangent, { color: SLOPE.blue, lw: 2.4, alpha: 0.8 });
    const secant = [[x0, x1], [r.v1 + r.numeric * (x0 - r.p1), r.v1 + r.numeric * (x1 - r.p1)]];
    dr.line(main, ...secant, { color: SLOPE.red, lw: 1.6, ls: "--" });
    dr.markers(main, [r.p0, r.p1], [r.v0, r.v1], { color: SLOPE.red, ms: 6, mec: "white", mew: 0.8 });
    dr.markers(main, [r.xs], [r.fx], { color: SLOPE.ink, ms: 5 });
    // the zoom panel in units of eps, with its own y-limits and ticks for this row
    const ylim = [r.lo, r.hi];
    const ticks = found.extra.t;
    dr.yticks(zoom, ticks, ylim);
    const us = Array.from({ length: sc.NZ }, (_, i) => -hw + (2 * hw * i) / (sc.NZ - 1));
    dr.line(zoom, [-hw, hw], [-a * hw, a * hw], { color: SLOPE.blue, lw: 3, alpha: 0.7 }, ylim);
    dr.line(zoom, us, Array.from(found.zoom), { color: SLOPE.ink, lw: 1.2 }, ylim);
    const [o0, o1] = sc.offsets[ctx.values.scheme];
    const zv = [(r.v0 - r.fx) / eps, (r.v1 - r.fx) / eps];
    dr.line(zoom, [-hw, hw], [zv[1] + r.numeric * (-hw - o1), zv[1] + r.numeric * (hw - o1)],
      { color: SLOPE.red, lw: 1.6, ls: "--" }, ylim);
    dr.markers(zoom, [o0, o1], zv, { color: SLOPE.red, ms: 7, mec: "white", mew: 0.8 }, ylim);
    dr.markers(zoom, [0], [0], { color: SLOPE.ink, ms: 5 }, ylim);
    const px = (ax, xs, ys, yl) => xs.map((x, i) => [+ax.px(x).toFixed(2), +ax.py(ys[i], yl).toFixed(2)]);
    ctx.drawn = {
      eps: ctx.values.eps_exact != null ? ctx.values.eps_label : ctx.model.get("controls")
        .find((c) => c.name === "eps").labels[ctx.values.eps],
      dtype: ctx.values.dtype,
      scheme: ctx.values.scheme,
      numeric: r.numeric,
      analytic: a,
      secant_slope: r.numeric,
      tangent_slope: a,
      points: [[r.p0, r.v0], [r.p1, r.v1]],
      points_px: px(main, [r.p0, r.p1], [r.v0, r.v1]),
      secant_px: px(main, ...secant),
      tangent_px: px(main, ...tangent),
      zoom_ylim: ylim,
      zoom_points_px: px(zoom, [o0, o1], zv, ylim),
      zoom_levels: new Set(Array.from(found.zoom).filter(Number.isFinite)).size,
    };
    return found.extra.r;
  },
};
