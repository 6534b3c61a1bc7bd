// JacobianBuilder (gradkit/widgets/jacobian_builder.py): replays gradcheck's calls from the
// scene's table (numeric m·n, analytic m·n, close m·n, float64, computed ahead by torch).
// step / run all / reset run here, with no kernel message; the readouts for every step were
// formatted by Python (scene.status, scene.calls). Output entry i is row i, input entry j
// column j, in both matrices.
function jbCells(ctx, ax, values, close, filled, color, bad, texts) {
  const g = ctx.canvas.getContext("2d");
  const { n, m } = ctx.scene;
  let biggest = 0;
  for (let q = 0; q < n * m; q++) if (Number.isFinite(values[q])) biggest = Math.max(biggest, Math.abs(values[q]));
  const w = Math.abs(ax.px(0.5) - ax.px(-0.5));
  const hgt = Math.abs(ax.py(0.5) - ax.py(-0.5));
  const font = w >= 44 ? 11 : 10;
  const showText = w >= 34 && hgt >= 16;
  g.save();
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const x0 = ax.px(j - 0.5);
      const y0 = ax.py(i - 0.5);
      const q = i * n + j;
      if (filled(i, j)) {
        const v = values[q];
        const wrong = close && close[q] === 0;
        g.globalAlpha = wrong ? 0.85 : 0.12 + (biggest > 0 ? 0.45 * Math.abs(v) / biggest : 0);
        g.fillStyle = wrong ? bad : color;
        g.fillRect(x0, y0, w, hgt);
        if (showText) {
          g.globalAlpha = 1;
          g.fillStyle = wrong ? "#FFFFFF" : "#222222";
          g.font = `${font}px system-ui, sans-serif`;
          g.textAlign = "center";
          g.textBaseline = "middle";
          g.fillText(texts[q], x0 + w / 2, y0 + hgt / 2);
        }
      }
      g.globalAlpha = 1;
      g.strokeStyle = "#DDDDDD";
      g.lineWidth = 1;
      g.strokeRect(x0 + 0.5, y0 + 0.5, w - 1, hgt - 1);
    }
  }
  g.restore();
  return { w, hgt };
}

function jbOutline(ctx, ax, j0, i0, j1, i1, color) {
  const g = ctx.canvas.getContext("2d");
  g.save();
  g.strokeStyle = color;
  g.lineWidth = 2.5;
  const x0 = ax.px(j0 - 0.5);
  const y0 = ax.py(i0 - 0.5);
  g.strokeRect(x0, y0, ax.px(j1 + 0.5) - x0, ax.py(i1 + 0.5) - y0);
  g.restore();
}

function jbTotal(ctx) {
  const sc = ctx.scene || {};
  return (sc.n || 0) + (sc.m || 0);
}

VIEWS.jacobian_builder = {
  init(ctx) {
    const row = ctx.el.querySelector(".gk-control.gk-jb-buttons");
    const stop = () => {
      if (ctx.jbTimer) clearInterval(ctx.jbTimer);
      ctx.jbTimer = null;
    };
    const step = () => ctx.set("step", Math.min((ctx.values.step || 0) + 1, jbTotal(ctx)));
    const run = () => {
      stop();
      if ((ctx.values.step || 0) >= jbTotal(ctx)) ctx.set("step", 0);
      // the whole build in about 2.5 s, 30 … 250 ms a step
      const pace = Math.max(30, Math.min(250, 2500 / Math.max(1, jbTotal(ctx))));
      ctx.jbTimer = setInterval(() => {
        if ((ctx.values.step || 0) >= jbTotal(ctx)) stop();
        else step();
      }, pace);
    };
    const button = (text, css, title, onclick) => ctx.h("button", { class: css, title, text, onclick });
    ctx.jbStop = stop;
    row.append(
      button("step", "gradkit-step", "the next call: a nudged entry, then a backward pass", () => { stop(); step(); }),
      button("run all", "gradkit-run-all", "play every call, one after the other", run),
      button("reset", "gradkit-reset", "back to empty Jacobians", () => { stop(); ctx.set("step", 0); }),
    );
    ctx.jbScene = ctx.model.get("scene_id");
  },
  paint(ctx) {
    const sc = ctx.scene;
    if (!sc || !sc.n || !ctx.table) return null;
    if (ctx.jbScene !== ctx.model.get("scene_id")) {
      ctx.jbScene = ctx.model.get("scene_id");
      if (ctx.jbStop) ctx.jbStop(); // a new n: stop a running animation
    }
    const { n, m } = sc;
    const T = n + m;
    if (ctx.table.length < 3 * n * m) return null;
    const k = Math.max(0, Math.min(T, Math.round(Number(ctx.values.step) || 0)));
    const numeric = ctx.table.subarray(0, n * m);
    const analytic = ctx.table.subarray(n * m, 2 * n * m);
    const close = ctx.table.subarray(2 * n * m, 3 * n * m);
    const axN = ctx.axes("numeric");
    const axA = ctx.axes("analytic");
    if (!axN || !axA) return null;
    const cols = Math.min(k, n);
    const rows = Math.max(0, k - n);
    const c = sc.colors;
    jbCells(ctx, axN, numeric, null, (i, j) => j < cols, c.numeric, c.bad, sc.numeric_text);
    jbCells(ctx, axA, analytic, close, (i, j) => i < rows, c.analytic, c.bad, sc.analytic_text);
    if (k >= 1 && k <= n) jbOutline(ctx, axN, k - 1, 0, k - 1, m - 1, c.current);
    if (k > n) jbOutline(ctx, axA, 0, k - n - 1, n - 1, k - n - 1, c.current);
    let wrong = 0;
    for (let i = 0; i < rows; i++) for (let j = 0; j < n; j++) if (close[i * n + j] === 0) wrong += 1;
    ctx.drawn = { step: k, steps: T, n, m, columns: cols, rows, wrong_shown: wrong,
      current: k === 0 ? null : k <= n ? { column: k - 1 } : { row: k - n - 1 } };
    return {
      ...(ctx.model.get("readout_html") || {}),
      status: sc.status[k] || "",
      calls: sc.calls[k] || "",
      verdict: k === T ? sc.verdict : "",
    };
  },
};
