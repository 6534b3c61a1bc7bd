// GradcheckLab's moving layer (gradcheck_lab.py): the three heatmaps (numeric, analytic,
// |analytic − numeric| ÷ allowed), their cell labels, the boxed worst entry, the title with the
// verdict, and the readouts. For a grid eps near the current one and every dtype they come from
// the states computed ahead (scene.ahead, small inputs); otherwise from the kernel's answer
// (`exact`). Colours and texts are Python's; the browser only places them.
const GCL = { ink: "#222222" };
const HEATMAPS = ["numeric", "analytic", "difference"];

function gclState(ctx) {
  const sc = ctx.scene || {};
  const v = ctx.values;
  if (v.eps_exact == null && sc.ahead) {
    const st = sc.ahead[`${v.dtype}:${v.eps}`];
    if (st) return [st, "table"];
  }
  const ex = ctx.model.get("exact") || {};
  const sameScene = JSON.stringify(ex.key) === JSON.stringify(sc.key);
  const sameEps = v.eps_exact != null ? ex.eps === v.eps_exact : ex.index === v.eps;
  if (ex.state && sameScene && ex.dtype === v.dtype && sameEps) return [ex.state, "kernel"];
  return [null, ""];
}

VIEWS.gradcheck_lab = {
  paint(ctx) {
    const [st, source] = gclState(ctx);
    if (!st) {
      ctx.drawn = { pending: true, dtype: null };
      return null; // the kernel's readouts until its answer for this state arrives
    }
    const g = ctx.canvas.getContext("2d");
    const dr = ctx.draw;
    const cells = st.cells;
    const [rows, cols] = cells.shape;
    const font = (px) => `${px}px "DejaVu Sans", Verdana, sans-serif`;
    const label = rows * cols <= 16 ? 11 : 9;
    const boxes = {};
    HEATMAPS.forEach((name, k) => {
      const ax = ctx.axes(name);
      if (!ax) return;
      dr.clip(ax, () => {
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) {
            const colour = cells.cells[k][r * cols + c][0];
            if (!colour) continue;
            const x0 = ax.px(c - 0.5);
            const x1 = ax.px(c + 0.5);
            const y0 = ax.py(r - 0.5);
            const y1 = ax.py(r + 0.5);
            g.globalAlpha = 1;
            g.fillStyle = colour;
            g.fillRect(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0) + 0.5, Math.abs(y1 - y0) + 0.5);
          }
        }
      });
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const [, text, ink] = cells.cells[k][r * cols + c];
          if (text) dr.text(ax.px(c), ax.py(r), text, { color: ink, align: "center", font: font(label) });
        }
      }
      if (cells.worst) {
        const [r, c] = cells.worst;
        g.save();
        g.strokeStyle = GCL.ink;
        g.lineWidth = 2.2;
        g.setLineDash([]);
        const x0 = ax.px(c - 0.5);
        const y0 = ax.py(r - 0.5);
        g.strokeRect(x0, y0, ax.px(c + 0.5) - x0, ax.py(r + 0.5) - y0);
        g.restore();
        boxes[name] = [+ax.px(c).toFixed(2), +ax.py(r).toFixed(2)];
      }
      if (cells.notes[k]) {
        cells.notes[k].split("\n").forEach((line, i, all) => {
          dr.text(ax.left + ax.width / 2, ax.top + ax.height / 2 + (i - (all.length - 1) / 2) * 13,
            line, { color: GCL.ink, align: "center", font: font(11) });
        });
      }
    });
    // the Jacobian colour bar runs −1 … 1 times vmax: its tick labels
    const bar = ctx.axes("jcbar");
    if (bar) {
      for (const t of [-1, -0.5, 0, 0.5, 1]) {
        dr.text(bar.left + bar.width + 4, bar.py(t), ctx.pyFormat(t * cells.vmax, ".3g"),
          { color: GCL.ink, font: font(10) });
      }
    }
    const [w] = ctx.model.get("size");
    dr.text(w / 2, 12, st.suptitle, { color: GCL.ink, align: "center", font: font(14) });
    ctx.drawn = { ...st.drawn, source, worst_px: boxes, vmax: cells.vmax };
    return { ...(ctx.model.get("readout_html") || {}), ...st.readouts };
  },
};
