// Numbers and readouts as every widget prints them (Python sends numbers, the page writes them).

// The exact decimal value of a double: digits (no leading zeros) and the position of the decimal
// point (value = 0.DIGITS × 10^point). A double is m × 2^e exactly, so BigInt gives every digit.
export function exactDecimal(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  let e = biased - 1075;
  if (biased === 0) e = -1074; else m |= 1n << 52n;
  if (m === 0n) return { digits: "0", point: 1 };
  // m × 2^e as an integer's digits: m·2^e, or m·5^-e (m / 2^-e = m·5^-e / 10^-e, the point moved)
  const digits = (e >= 0 ? m << BigInt(e) : m * 5n ** BigInt(-e)).toString();
  return { digits: digits.replace(/0+$/, ""), point: digits.length + Math.min(e, 0) };
}

// Round to exactly `keep` significant digits, ties to even (Python's rounding of the exact value).
export function roundDigits({ digits, point }, keep) {
  if (keep <= 0) {
    // rounds to 0 or to one unit at the first kept place (0.5 ties to 0, anything more up)
    const up = keep === 0 && (digits[0] > "5" || (digits[0] === "5" && /[1-9]/.test(digits.slice(1))));
    return up ? { digits: "1", point: point + 1 } : { digits: "", point };
  }
  if (digits.length <= keep) return { digits: digits.padEnd(keep, "0"), point };
  const head = digits.slice(0, keep);
  const rest = digits.slice(keep);
  const last = Number(head[head.length - 1]);
  const tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
  const up = rest[0] > "5" || (rest[0] === "5" && !tie) || (tie && last % 2 === 1);
  if (!up) return { digits: head, point };
  const bumped = (BigInt(head) + 1n).toString();
  return bumped.length > keep ? { digits: bumped.slice(0, keep), point: point + 1 } : { digits: bumped, point };
}

function fixed(x, p) {
  const ex = exactDecimal(x);
  let { digits: d, point } = roundDigits(ex, ex.point + p); // "" (rounded to 0) has point <= 0
  if (point <= 0) { d = "0".repeat(1 - point) + d; point = 1; }
  d = d.padEnd(point + p, "0");
  const whole = d.slice(0, point);
  return p > 0 ? `${whole}.${d.slice(point, point + p)}` : whole;
}

function scientific(x, p) {
  const { digits: d, point } = roundDigits(exactDecimal(x), p + 1); // 0: "00…" at point 1
  return { mant: p > 0 ? `${d[0]}.${d.slice(1)}` : d[0], e: point - 1 };
}

const expText = (e) => `e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;

// Python's format(value, spec) for ".Nf", ".Ne", ".Ng", digit for digit; NaN and ±inf spelled out.
export function pyFormat(value, spec = ".3g") {
  if (value === null || value === undefined) return "—";
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  const m = /^\.(\d+)([efg])$/.exec(spec);
  if (!m) return String(value);
  const p = Number(m[1]);
  const kind = m[2];
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  const x = Math.abs(value);
  if (kind === "f") return sign + fixed(x, p);
  if (kind === "e") {
    const { mant, e } = scientific(x, p);
    return `${sign}${mant}${expText(e)}`;
  }
  const q = Math.max(p, 1);
  if (x === 0) return `${sign}0`;
  const { mant, e } = scientific(x, q - 1);
  const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (e < -4 || e >= q) return `${sign}${strip(mant)}${expText(e)}`;
  return sign + strip(fixed(x, q - 1 - e));
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
