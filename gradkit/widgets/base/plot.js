// The drawing of every picture (no matplotlib on the page), in the theme's COLORS read at each draw.
import { COLORS, contrast } from "./theme.js";
import { LEAST_FONT, fitText, labelStride } from "./fit.js";

const FONT = '"DejaVu Sans", Verdana, "Helvetica Neue", Arial, sans-serif';

// One panel: box [left, top, width, height] in CSS px, limits, "linear" or "log" scales (NaN off a log's domain).
export class Axes {
  constructor({ box, xlim = [0, 1], ylim = [0, 1], xscale = "linear", yscale = "linear", name = "" }) {
    Object.assign(this, { name, box, xlim, ylim, xscale, yscale });
    [this.left, this.top, this.width, this.height] = box;
  }
  static frac(v, lim, scale) {
    if (scale === "log") {
      if (!(v > 0)) return NaN;
      return (Math.log10(v) - Math.log10(lim[0])) / (Math.log10(lim[1]) - Math.log10(lim[0]));
    }
    return (v - lim[0]) / (lim[1] - lim[0]);
  }
  px(x) { return this.left + Axes.frac(x, this.xlim, this.xscale) * this.width; }
  py(y, ylim = this.ylim) { return this.top + (1 - Axes.frac(y, ylim, this.yscale)) * this.height; }
  // points as CSS pixels of the figure, to 0.01 px (the browser tests read the canvas there)
  pixels(xs, ys) { return Array.from(xs, (x, i) => [+this.px(x).toFixed(2), +this.py(ys[i]).toFixed(2)]); }
  spec() {
    const { name, box, xlim, ylim, xscale, yscale } = this;
    return { name, box, xlim, ylim, xscale, yscale };
  }
}

// A panel placed as matplotlib's fig.add_axes((left, bottom, width, height)) in figure fractions.
export function panelBox(size, rect) {
  const [W, H] = size;
  const [l, b, w, h] = rect;
  return [l * W, (1 - b - h) * H, w * W, h * H];
}

// The layout for the panels shown: `both` when both of [a, b] are, else the one shown (else a).
export function panelLayout(layouts, shown, [a, b]) {
  return layouts[shown.includes(a) && shown.includes(b) ? "both" : shown.includes(b) ? b : a];
}

// Draws each panel the layout has with its draw(ctx, lay, record) -> {ax, drawn}: the axes, the facts merged.
export function drawPanels(ctx, lay, record, draws, drawn) {
  const outs = draws.filter(([panel]) => lay[panel]).map(([, draw]) => draw(ctx, lay, record));
  for (const out of outs) Object.assign(drawn, out.drawn);
  return outs.map((out) => out.ax);
}

// About `target` round tick values (1, 2, 2.5 or 5 times a power of ten) covering [lo, hi].
export function niceTicks(lo, hi, target = 5) {
  if (!(Number.isFinite(lo) && Number.isFinite(hi)) || hi <= lo) return Number.isFinite(lo) ? [lo] : [];
  const raw = (hi - lo) / Math.max(target, 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw * 0.999) || 10 * mag;
  const digits = Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(step))));
  const out = [];
  // each k * step rounded to two digits past the step's (+ 0 makes -0 a 0)
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
    out.push(Number((k * step).toFixed(digits)) + 0);
  }
  return out;
}

// Linear tick labels as matplotlib writes them: as few decimals as the step needs, "−", no offset.
export function tickLabels(ticks) {
  if (ticks.length === 0) return [];
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) : Math.abs(ticks[0]) || 1;
  const big = Math.max(...ticks.map(Math.abs));
  if (big >= 1e5 || (big > 0 && big < 1e-3)) {
    return ticks.map((v) => (v === 0 ? "0" : v.toExponential(Math.max(0, Math.min(3, decimals(step / 10 ** Math.floor(Math.log10(big)))))).replace("-", "−").replace("e+", "e").replace(/e(−?)0*(\d)/, "e$1$2")));
  }
  const d = decimals(step);
  return ticks.map((v) => v.toFixed(d).replace("-", "−"));
}

function decimals(step) {
  for (let d = 0; d < 12; d++) if (Math.abs(Number(step.toFixed(d)) - step) < step * 1e-6) return d;
  return 12;
}

// Decades 10^k within [lo, hi] (log axes), thinned to at most `most` labels.
export function logTicks(lo, hi, most = 8) {
  if (!(lo > 0 && hi > lo)) return [];
  const a = Math.ceil(Math.log10(lo) - 1e-9);
  const b = Math.floor(Math.log10(hi) + 1e-9);
  const every = Math.max(1, Math.ceil((b - a + 1) / most));
  const out = [];
  for (let k = a; k <= b; k += every) out.push([10 ** k, powerLabel(k)]);
  return out;
}

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
// 10^k as a learner reads it: "10⁻⁶", "1" for 10⁰.
export function powerLabel(k) {
  if (k === 0) return "1";
  return "10" + String(k).split("").map((c) => SUPERSCRIPT[c]).join("");
}

export function linearTicks(lo, hi, target = 5) {
  const values = niceTicks(lo, hi, target);
  const labels = tickLabels(values);
  return values.map((v, i) => [v, labels[i]]);
}

// y limits for finite samples: [min, max] with a margin, or [-1, 1] when none is finite.
export function paddedLimits(values, margin = 0.08) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(lo <= hi)) return [-1, 1];
  if (hi === lo) { const d = Math.abs(lo) * 0.1 || 1; return [lo - d, hi + d]; }
  const pad = (hi - lo) * margin;
  return [lo - pad, hi + pad];
}

// Diverging blue-white-red for signed values in [-1, 1] (the Jacobian heatmaps).
const DIVERGING = ["#2166AC", "#4393C3", "#92C5DE", "#D1E5F0", "#F7F7F7", "#FDDBC7", "#F4A582", "#D6604D", "#B2182B"];

function hexRgb(hex) { const n = parseInt(hex.slice(1), 16); return [(n >> 16) & 255, (n >> 8) & 255, n & 255]; }

// A colour scale: `anchors` ("#RRGGBB", low to high) interpolated in RGB at t in [0, 1].
export function ramp(anchors, t) {
  if (!Number.isFinite(t)) return "#BBBBBB";
  const u = Math.min(1, Math.max(0, t)) * (anchors.length - 1);
  const i = Math.min(anchors.length - 2, Math.floor(u));
  const a = hexRgb(anchors[i]);
  const b = hexRgb(anchors[i + 1]);
  const f = u - i;
  return `rgb(${a.map((c, k) => Math.round(c + (b[k] - c) * f)).join(",")})`;
}

export function diverging(t) { return ramp(DIVERGING, (t + 1) / 2); }

// Ink that reads on a fill colour in any theme: white or near black, the larger WCAG contrast (>= 4.5:1).
export const CELL_INKS = Object.freeze(["#FFFFFF", "#111111"]);
export function inkOn(fill) {
  const [light, dark] = CELL_INKS;
  return contrast(fill, light) >= contrast(fill, dark) ? light : dark;
}

// Canvas helpers in CSS pixels. `g` is a 2D context already scaled for devicePixelRatio.
export function makePainter(g) {
  const dash = { "-": [], "--": [6, 4], ":": [1.5, 3], "-.": [6, 3, 1.5, 3] };
  const stroke = (st) => {
    g.strokeStyle = st.color || COLORS.ink;
    g.lineWidth = st.lw || 1.5;
    g.globalAlpha = st.alpha ?? 1;
    g.setLineDash(dash[st.ls || "-"] || []);
  };
  const clipped = (ax, fn) => {
    g.save();
    if (ax) { g.beginPath(); g.rect(ax.left, ax.top, ax.width, ax.height); g.clip(); }
    fn();
    g.restore();
  };
  const font = (size, weight) => { g.font = `${weight} ${size}px ${FONT}`; };
  const text = (x, y, s, st = {}) => {
    g.save();
    g.globalAlpha = st.alpha ?? 1;
    g.fillStyle = st.color || COLORS.ink;
    font(st.size || 12, st.weight || "normal");
    g.textAlign = st.align || "left";
    g.textBaseline = st.baseline || "middle";
    if (st.rotate) { g.translate(x, y); g.rotate(st.rotate); g.fillText(s, 0, 0); } else g.fillText(s, x, y);
    g.restore();
  };
  // the width of `s` in CSS pixels at `size` px (an estimate where the canvas cannot measure)
  const measure = (s, size = 12, weight = "normal") => {
    if (typeof g.measureText !== "function") return String(s).length * 0.64 * size;
    g.save();
    font(size, weight);
    const w = g.measureText(String(s)).width;
    g.restore();
    return w;
  };
  const segment = (x0, y0, x1, y1, st) => {
    g.save(); stroke(st); g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke(); g.restore();
  };
  const rect = (x, y, w, h, st = {}) => {
    g.save();
    g.globalAlpha = st.alpha ?? 1;
    if (st.fill) { g.fillStyle = st.fill; g.fillRect(x, y, w, h); }
    if (st.color) { g.setLineDash([]); g.strokeStyle = st.color; g.lineWidth = st.lw || 1; g.strokeRect(x, y, w, h); }
    g.restore();
  };
  // the points of xs, ys in pixels, [X, Y] (null for a NaN or infinite one)
  const points = (ax, xs, ys) => Array.from(xs, (x, i) => {
    const X = ax.px(x);
    const Y = ax.py(ys[i]);
    return Number.isFinite(X) && Number.isFinite(Y) ? [X, Y] : null;
  });
  const markerPath = (m, X, Y, r) => {
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
        if (k) g.lineTo(X + rr * Math.cos(a), Y + rr * Math.sin(a)); else g.moveTo(X + rr * Math.cos(a), Y + rr * Math.sin(a));
      }
      g.closePath();
    }
  };
  return {
    g,
    text,
    measure,
    // a polyline in data coordinates; a NaN or infinite point breaks it
    line(ax, xs, ys, st = {}) {
      clipped(st.noclip ? null : ax, () => {
        stroke(st);
        g.beginPath();
        let pen = false;
        for (const p of points(ax, xs, ys)) {
          if (p && pen) g.lineTo(...p); else if (p) g.moveTo(...p);
          pen = !!p;
        }
        g.stroke();
      });
    },
    // markers: "o", "s", "^", "v", "D", "x", "|", "*"; fill "none" for an open marker
    markers(ax, xs, ys, st = {}) {
      clipped(st.noclip ? null : ax, () => {
        const r = (st.ms || 6) / 2;
        g.globalAlpha = st.alpha ?? 1;
        g.setLineDash([]);
        const m = st.marker || "o";
        for (const [X, Y] of points(ax, xs, ys).filter(Boolean)) {
          g.beginPath();
          markerPath(m, X, Y, r);
          if (m === "x" || m === "|") { g.strokeStyle = st.color || COLORS.ink; g.lineWidth = st.mew || 1.5; g.stroke(); continue; }
          if (st.fill !== "none") { g.fillStyle = st.color || COLORS.ink; g.fill(); }
          if (st.mec || st.fill === "none") { g.strokeStyle = st.mec || st.color || COLORS.ink; g.lineWidth = st.mew || 1; g.stroke(); }
        }
      });
    },
    // a band x0..x1 over the panel's height
    xspan(ax, x0, x1, st = {}) {
      clipped(ax, () => {
        g.globalAlpha = st.alpha ?? 0.3;
        g.fillStyle = st.color || COLORS.orange;
        const a = ax.px(x0);
        const b = ax.px(x1);
        g.fillRect(Math.min(a, b), ax.top, Math.max(Math.abs(b - a), 1), ax.height);
      });
    },
    vline(ax, x, st = {}) { const X = ax.px(x); if (Number.isFinite(X)) clipped(ax, () => segment(X, ax.top, X, ax.top + ax.height, st)); },
    hline(ax, y, st = {}) { const Y = ax.py(y); if (Number.isFinite(Y)) clipped(ax, () => segment(ax.left, Y, ax.left + ax.width, Y, st)); },
    segment,
    rect,
    // a panel's face, spines ("box", or "bottom": a ruler's), [value, label] ticks, grid, labels, title
    frame(ax, o = {}) {
      const { left: L, top: T, width: W, height: H } = ax;
      rect(L, T, W, H, { fill: COLORS.paper });
      const xticks = (o.xticks || []).filter(([v]) => ax.px(v) >= L - 0.5 && ax.px(v) <= L + W + 0.5);
      // as many labels as fit side by side (every one, at the width a picture is designed for)
      const stride = labelStride(xticks.map(([v]) => ax.px(v)), xticks.map(([, label]) => measure(label, LEAST_FONT)));
      xticks.forEach(([v, label], k) => {
        const X = ax.px(v);
        if (o.grid) segment(X, T, X, T + H, { color: COLORS.grid, lw: 0.8 });
        segment(X, T + H, X, T + H + 3.5, { color: COLORS.ink, lw: 0.8 });
        if (k % stride === 0) text(X, T + H + 6, label, { align: "center", baseline: "top", size: LEAST_FONT });
      });
      for (const [v, label] of o.yticks || []) {
        const Y = ax.py(v);
        if (!(Y >= T - 0.5 && Y <= T + H + 0.5)) continue;
        if (o.grid) segment(L, Y, L + W, Y, { color: COLORS.grid, lw: 0.8 });
        segment(L - 3.5, Y, L, Y, { color: COLORS.ink, lw: 0.8 });
        text(L - 6, Y, label, { align: "right", size: LEAST_FONT });
      }
      if (o.spines === "bottom") segment(L, T + H, L + W, T + H, { color: COLORS.ink, lw: 0.8 });
      else rect(L, T, W, H, { color: COLORS.ink, lw: 0.8 });
      if (o.xlabel) {
        // centred under the panel, within the picture (o.right): it or a shorter form (o.xlabels)
        const room = o.xlabelRoom || (o.right ? 2 * Math.min(L + W / 2, o.right - L - W / 2) - 8 : Infinity);
        const fit = fitText([o.xlabel, ...(o.xlabels || [])], room, measure, 12);
        text(L + W / 2, T + H + (o.xticks && o.xticks.length ? 22 : 8), fit.text, { align: "center", baseline: "top", size: fit.size });
      }
      // the y label left of the tick labels (o.ylabelGap or more), left out past the picture's edge
      const widest = Math.max(0, ...(o.yticks || []).map(([, label]) => measure(label, LEAST_FONT)));
      const gap = Math.max(o.ylabelGap || 46, widest + 14);
      if (o.ylabel && L - gap >= 7) text(L - gap, T + H / 2, o.ylabel, { align: "center", rotate: -Math.PI / 2 });
      // the title, or the first shorter form (o.titles) that fits within o.right, at 13 px down to 11
      if (o.title) {
        const fit = o.right ? fitText([o.title, ...(o.titles || [])], o.right - L - 4, measure) : { text: o.title, size: 13 };
        text(L, T - 9, fit.text, { baseline: "bottom", size: fit.size });
      }
    },
    // a vertical colour bar: `cmap(t)` for t from lo (bottom) to hi (top), ticks [value, label]
    colorbar(ax, cmap, lo, hi, ticks = []) {
      const n = 64;
      for (let k = 0; k < n; k++) {
        g.fillStyle = cmap(lo + ((hi - lo) * (k + 0.5)) / n);
        g.fillRect(ax.left, ax.top + ax.height * (1 - (k + 1) / n), ax.width, Math.ceil(ax.height / n) + 0.5);
      }
      rect(ax.left, ax.top, ax.width, ax.height, { color: COLORS.ink, lw: 0.8 });
      for (const [v, lab] of ticks) {
        const Y = ax.py(v, [lo, hi]);
        segment(ax.left + ax.width, Y, ax.left + ax.width + 3, Y, { color: COLORS.ink, lw: 0.8 });
        text(ax.left + ax.width + 5, Y, lab, { size: LEAST_FONT });
      }
    },
  };
}
