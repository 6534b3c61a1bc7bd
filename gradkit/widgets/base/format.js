// Numbers and readouts as every gradkit widget prints them (the one formatting rule of the
// browser side; Python sends numbers, the page writes them).

// Python's format(value, spec) for the specs the widgets use (".3f", ".2e", ".3g", ...), digit
// for digit; NaN and ±inf spelled out.
export function pyFormat(value, spec = ".3g") {
  if (value === null || value === undefined) return "—";
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
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
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

// A number written out without an exponent (numpy's format_float_positional, trim "-"):
// 1e-06 -> "0.000001". Huge or tiny magnitudes keep the shortest round-trip form.
export function fmtPlain(value) {
  if (!Number.isFinite(value)) return pyFormat(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e21 || abs < 1e-30)) return String(value);
  const s = String(value);
  if (!/e/.test(s)) return s;
  const [mant, ex] = s.split("e");
  const k = Number(ex);
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace("-", "").replace(".", "");
  const point = mant.replace("-", "").indexOf(".");
  const intLen = (point < 0 ? digits.length : point) + k;
  if (intLen <= 0) return `${sign}0.${"0".repeat(-intLen)}${digits}`.replace(/\.?0+$/, "") || "0";
  if (intLen >= digits.length) return sign + digits + "0".repeat(intLen - digits.length);
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

// A slope or a value for a readout: short, never a 351-digit integer (".6g" past 1e15).
export function fmtValue(value, spec = ".6g") {
  return pyFormat(value, spec);
}

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// One readout line: label, value in bold, a grey detail (the same layout in every widget).
export function readoutHtml(label, value, detail = "") {
  const extra = detail ? ` <span class="gk-r-detail">${detail}</span>` : "";
  return `<span class="gk-r-label">${label}</span>&nbsp; <b>${value}</b>${extra}`;
}

// A sentence in a colour class: "bad" (red), "good" (green), "warn" (amber).
export function marked(kind, html) {
  return `<span class="gk-${kind}">${html}</span>`;
}
