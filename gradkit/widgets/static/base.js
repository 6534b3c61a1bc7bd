// gradkit widget base (plain ES module, no build step).
//
// Python (gradkit/widgets/_base.py, BASE_SCRIPTS) concatenates this file, draw.js, controls.js
// and render.js with one view file (slope_explorer.js, ...) and appends
// `export default { render };`. A view registers itself in VIEWS under the name
// in the `view` trait and may define:
//   init(ctx)            once, after the controls and the figure exist
//   paint(ctx)           after every state change: draw the moving layer, return readouts
//                        ({name: html}) or null to show Python's `readout_html`
// ctx holds: model, el, values (the local control state), table (Float64Array of the scene's
// precomputed table), axes(name) -> Axes (data -> CSS pixel maps), draw (canvas helpers),
// set(name, value, {scene}) (change a control locally, paint at once, sync to Python),
// drawn (an object the view fills with what it drew; published as data-drawn on the figure).

const VIEWS = {};

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

// ------------------------------------------------------------------------------ number format
// Python's format() for the specs the widgets use (".3f", ".2e", ".3g", ...), digit for digit.
function pyFormat(value, spec) {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  const m = /^\.(\d+)([efg])$/.exec(spec);
  if (!m) return String(value);
  const p = Number(m[1]);
  const kind = m[2];
  const exp = (s) => s.replace(/e([+-])(\d)$/, "e$10$2");
  if (kind === "f") return value.toFixed(p);
  if (kind === "e") return exp(value.toExponential(p));
  const q = Math.max(p, 1);
  if (value === 0) return "0";
  const e = Number(value.toExponential(q - 1).split("e")[1]);
  if (e < -4 || e >= q) {
    let [mant, ex] = value.toExponential(q - 1).split("e");
    if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
    return exp(`${mant}e${ex}`);
  }
  let s = value.toFixed(Math.max(q - 1 - e, 0));
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}

// ------------------------------------------------------------------------------------ axes
// One matplotlib Axes as Python described it: box [left, top, width, height] in CSS pixels of
// the image, data limits, "linear" or "log" scales.
class Axes {
  constructor(spec) {
    Object.assign(this, spec);
    [this.left, this.top, this.width, this.height] = spec.box;
  }
  _t(v, lim, scale) {
    if (scale === "log") {
      if (!(v > 0)) return NaN;
      return (Math.log10(v) - Math.log10(lim[0])) / (Math.log10(lim[1]) - Math.log10(lim[0]));
    }
    return (v - lim[0]) / (lim[1] - lim[0]);
  }
  px(x) { return this.left + this._t(x, this.xlim, this.xscale) * this.width; }
  py(y, ylim = this.ylim) { return this.top + (1 - this._t(y, ylim, this.yscale)) * this.height; }
}

// ------------------------------------------------------------------------------ scene tables
// A scene table computed ahead is laid out [scheme][dtype][grid eps]; its readouts are packed
// by Python's pack_strings (each distinct string once, a flat index per row and key).
// scene_row and unpack_strings in _format.py are the Python twins.
function sceneRow(sc, s, d, g) { return (s * sc.D + d) * sc.G + g; }

function unpackStrings(sc, index, row) {
  const K = sc.keys.length;
  const out = {};
  for (let i = 0; i < K; i++) out[sc.keys[i]] = sc.strings[index[row * K + i]];
  return out;
}

// The kernel's answer for a typed eps off the grid, or null while it is for another eps, x or f.
function exactFor(ctx) {
  const ex = ctx.model.get("exact") || {};
  const sc = ctx.scene;
  return ex.eps === ctx.values.eps_exact && ex.x === sc.x && ex.function === sc.function ? ex : null;
}
