// gradkit: canvas helpers for the moving layer (ctx.draw), in CSS pixels of the image.
// Part of the base concatenated before every view file (see base.js).

// --------------------------------------------------------------------------------- drawing
function makeDraw(g) {
  const dash = { "-": [], "--": [6, 4], ":": [1.5, 3], "-.": [6, 3, 1.5, 3] };
  const stroke = (st) => {
    g.strokeStyle = st.color || "#222";
    g.lineWidth = st.lw || 1.5;
    g.globalAlpha = st.alpha ?? 1;
    g.setLineDash(dash[st.ls || "-"] || []);
  };
  const clip = (ax, fn) => {
    g.save();
    if (ax) {
      g.beginPath();
      g.rect(ax.left, ax.top, ax.width, ax.height);
      g.clip();
    }
    fn();
    g.restore();
  };
  return {
    clip,
    // a polyline in data coordinates; NaN breaks it
    line(ax, xs, ys, st = {}, ylim) {
      clip(st.noclip ? null : ax, () => {
        stroke(st);
        g.beginPath();
        let pen = false;
        for (let i = 0; i < xs.length; i++) {
          const X = ax.px(xs[i]);
          const Y = ax.py(ys[i], ylim);
          if (!Number.isFinite(X) || !Number.isFinite(Y)) { pen = false; continue; }
          if (pen) g.lineTo(X, Y); else g.moveTo(X, Y);
          pen = true;
        }
        g.stroke();
      });
    },
    // markers: "o" circle, "s" square, "^" triangle up, "v" down, "D" diamond, "x", "*"
    markers(ax, xs, ys, st = {}, ylim) {
      clip(st.noclip ? null : ax, () => {
        const r = (st.ms || 6) / 2;
        g.globalAlpha = st.alpha ?? 1;
        g.setLineDash([]);
        for (let i = 0; i < xs.length; i++) {
          const X = ax.px(xs[i]);
          const Y = ax.py(ys[i], ylim);
          if (!Number.isFinite(X) || !Number.isFinite(Y)) continue;
          g.beginPath();
          const m = st.marker || "o";
          if (m === "o") g.arc(X, Y, r, 0, 2 * Math.PI);
          else if (m === "s") g.rect(X - r, Y - r, 2 * r, 2 * r);
          else if (m === "^") { g.moveTo(X, Y - r); g.lineTo(X + r, Y + r); g.lineTo(X - r, Y + r); g.closePath(); }
          else if (m === "v") { g.moveTo(X, Y + r); g.lineTo(X + r, Y - r); g.lineTo(X - r, Y - r); g.closePath(); }
          else if (m === "D") { g.moveTo(X, Y - r); g.lineTo(X + r, Y); g.lineTo(X, Y + r); g.lineTo(X - r, Y); g.closePath(); }
          else if (m === "x") { g.moveTo(X - r, Y - r); g.lineTo(X + r, Y + r); g.moveTo(X + r, Y - r); g.lineTo(X - r, Y + r); }
          else if (m === "|") { g.moveTo(X, Y - r); g.lineTo(X, Y + r); }
          else if (m === "*") {
            for (let k = 0; k < 10; k++) {
              const a = -Math.PI / 2 + (k * Math.PI) / 5;
              const rr = k % 2 ? r * 0.45 : r;
              const f = k ? g.lineTo.bind(g) : g.moveTo.bind(g);
              f(X + rr * Math.cos(a), Y + rr * Math.sin(a));
            }
            g.closePath();
          }
          if (m === "x" || m === "|") {
            g.strokeStyle = st.color || "#222";
            g.lineWidth = st.mew || 1.5;
            g.stroke();
            continue;
          }
          if (st.fill !== "none") { g.fillStyle = st.color || "#222"; g.fill(); }
          if (st.mec) { g.strokeStyle = st.mec; g.lineWidth = st.mew || 1; g.stroke(); }
        }
      });
    },
    // a band x0..x1 over the axes' full height
    xspan(ax, x0, x1, st = {}) {
      clip(ax, () => {
        g.globalAlpha = st.alpha ?? 0.35;
        g.fillStyle = st.color || "#E69F00";
        const a = ax.px(x0);
        const b = ax.px(x1);
        g.fillRect(Math.min(a, b), ax.top, Math.max(Math.abs(b - a), 1), ax.height);
      });
    },
    vline(ax, x, st = {}) {
      clip(ax, () => {
        stroke(st);
        const X = ax.px(x);
        g.beginPath(); g.moveTo(X, ax.top); g.lineTo(X, ax.top + ax.height); g.stroke();
      });
    },
    text(x, y, s, st = {}) {
      g.save();
      g.globalAlpha = 1;
      g.fillStyle = st.color || "#222";
      g.font = st.font || "11px system-ui, sans-serif";
      g.textAlign = st.align || "left";
      g.textBaseline = st.baseline || "middle";
      g.fillText(s, x, y);
      g.restore();
    },
    // y tick labels and grid lines that change with the state (matplotlib drew the frame)
    yticks(ax, ticks, ylim) {
      for (const [v, label] of ticks) {
        const Y = ax.py(v, ylim);
        if (!(Y >= ax.top - 0.5 && Y <= ax.top + ax.height + 0.5)) continue;
        g.save();
        g.strokeStyle = "rgba(0,0,0,0.12)";
        g.lineWidth = 0.8;
        g.beginPath(); g.moveTo(ax.left, Y); g.lineTo(ax.left + ax.width, Y); g.stroke();
        g.strokeStyle = "#000"; g.lineWidth = 0.8;
        g.beginPath(); g.moveTo(ax.left - 3.5, Y); g.lineTo(ax.left, Y); g.stroke();
        g.restore();
        this.text(ax.left - 6, Y, label, { align: "right", font: "13px \"DejaVu Sans\", Verdana, sans-serif" });
      }
    },
  };
}
