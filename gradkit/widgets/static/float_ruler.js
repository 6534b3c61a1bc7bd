// FloatRuler's moving layer (float_ruler.py): the representable numbers near x, the requested
// points x ± eps, where they land, and the readouts, all looked up in the scene's table (one
// cell per dtype and grid eps, computed by torch in that dtype) or, for a typed eps off the
// grid, in Python's `exact` cells. The browser never rounds a number itself.
const RULER = { blue: "#0072B2", red: "#D55E00", ink: "#222222", grey: "#777777" };

// The cell shown now: numbers by field name, view and zoom ticks, readouts (null: not known yet)
function rulerCell(ctx) {
  const sc = ctx.scene;
  const v = ctx.values;
  if (!sc || !sc.fields) return null;
  const d = sc.dtypes.indexOf(v.dtype);
  if (d < 0) return null;
  const byName = (arr) => Object.fromEntries(sc.fields.map((f, i) => [f, arr[i] ?? NaN]));
  if (v.eps_exact != null) {
    const ex = exactFor(ctx);
    if (!ex || !ex.cells || !ex.cells[v.dtype]) return null;
    const c = ex.cells[v.dtype];
    return { n: byName(c.numbers), view: c.view_ticks, zoom: c.zoom_ticks, readouts: c.readouts,
      eps: ex.eps, label: v.eps_label };
  }
  const g = v.eps;
  const cell = d * sc.G + g;
  const t = ctx.table;
  const n = byName(Array.from(t.subarray(cell * sc.NF, (cell + 1) * sc.NF)));
  const at = sc.view_at[cell];
  const view = at < 0 ? null : Array.from(t.subarray(at, at + sc.view_n[cell]));
  const zoom = Array.from(t.subarray(sc.zoom_at[cell], sc.zoom_at[cell] + sc.zoom_n[cell]));
  const spec = ctx.model.get("controls").find((c) => c.name === "eps");
  return { n, view, zoom, readouts: sc.readouts[cell], eps: Number(spec.labels[g]), label: spec.labels[g] };
}

function tickSegments(positions, half) {
  const xs = [];
  const ys = [];
  for (const p of positions) xs.push(p, p, NaN), ys.push(-half, half, NaN);
  return [xs, ys];
}

const px2 = (ax, x, y) => [+ax.px(x).toFixed(2), +ax.py(y).toFixed(2)];

VIEWS.float_ruler = {
  paint(ctx) {
    const c = rulerCell(ctx);
    if (!c) {
      ctx.drawn = { pending: true };
      return null; // Python's readouts until the exact cells arrive
    }
    const view = ctx.axes("view");
    const zoom = ctx.axes("zoom");
    const dr = ctx.draw;
    const n = c.n;
    const VIEW = 1.6;
    const ZU = 8;
    // top: x ± 1.6 eps in units of eps
    if (c.view) {
      const [xs, ys] = tickSegments(c.view, 0.2);
      dr.line(view, xs, ys, { color: RULER.ink, lw: 1.0 });
    } else {
      dr.clip(view, () => {
        const g = ctx.canvas.getContext("2d");
        g.globalAlpha = 0.25;
        g.fillStyle = RULER.grey;
        const x0 = view.px(-VIEW);
        const x1 = view.px(VIEW);
        const y0 = view.py(0.2);
        const y1 = view.py(-0.2);
        g.fillRect(x0, y0, x1 - x0, y1 - y0);
      });
      dr.text(view.px(-VIEW), view.py(-0.4), "too many numbers to draw one by one",
        { color: RULER.ink, font: "11px \"DejaVu Sans\", Verdana, sans-serif" });
    }
    const finite = Number.isFinite(n.view_lower) && Number.isFinite(n.view_upper);
    if (finite) {
      dr.line(view, [-1, n.view_lower, NaN, 1, n.view_upper], [0.52, 0.06, NaN, 0.52, 0.06],
        { color: RULER.red, lw: 1.0, ls: ":" });
    }
    dr.markers(view, [-1, 1], [0.6, 0.6], { color: "#FFFFFF", mec: RULER.red, mew: 1.8, ms: 9 });
    if (finite) dr.markers(view, [n.view_lower, n.view_upper], [0, 0], { color: RULER.red, ms: 7 });
    dr.markers(view, [0], [0], { marker: "|", color: RULER.blue, ms: 22, mew: 2.5 });
    // bottom: x ± 8 ulps in units of the spacing at x
    {
      const [xs, ys] = tickSegments(c.zoom, 0.25);
      dr.line(zoom, xs, ys, { color: RULER.ink, lw: 1.4 });
    }
    dr.markers(zoom, [0], [0], { marker: "|", color: RULER.blue, ms: 22, mew: 2.5 });
    const within = (q) => Number.isFinite(q) && Math.abs(q) <= ZU + 0.5;
    const landed = [n.zoom_lower, n.zoom_upper].filter(within);
    dr.markers(zoom, landed, landed.map(() => 0), { color: RULER.red, ms: 7 });
    const req = [-n.eps_in_ulps, n.eps_in_ulps].filter(within);
    dr.markers(zoom, req, req.map(() => 0.6), { color: "#FFFFFF", mec: RULER.red, mew: 1.8, ms: 9 });
    const font = "12px \"DejaVu Sans\", Verdana, sans-serif";
    if (Number.isFinite(n.zoom_lower) && n.zoom_lower < -ZU - 0.5)
      dr.text(zoom.px(-ZU - 0.5), zoom.py(0.55), "← x − eps lands further out", { color: RULER.red, font });
    if (Number.isFinite(n.zoom_upper) && n.zoom_upper > ZU + 0.5)
      dr.text(zoom.px(ZU + 0.5), zoom.py(0.55), "x + eps lands further out →", { color: RULER.red, font, align: "right" });
    const num = (q) => (Number.isFinite(q) ? q : null);
    ctx.drawn = {
      eps: c.eps,
      eps_label: c.label,
      dtype: ctx.values.dtype,
      x: n.x,
      ulp: n.ulp,
      landed: n.underflow ? null : [n.lower, n.upper], // x − eps and x + eps as rounded
      landed_in_eps: [num(n.view_lower), num(n.view_upper)], // top axes ("view") data
      landed_in_ulps: [num(n.zoom_lower), num(n.zoom_upper)], // bottom axes ("zoom") data
      landed_px: {
        view: finite ? [px2(view, n.view_lower, 0), px2(view, n.view_upper, 0)] : [],
        zoom: landed.map((q) => px2(zoom, q, 0)),
      },
      ulps_between: num(n.ulps_between),
      underflow: n.underflow > 0,
      collapsed: n.collapsed > 0,
      view_ticks: c.view ? c.view.length : null, // null: too dense, drawn as a grey band
      zoom_ticks: c.zoom.length,
    };
    return c.readouts;
  },
};
