// EpsilonLab's lookups (gradkit.sweep's numbers for a state) and readouts; epsilon.js draws.
import { EPS_MAX, EPS_MIN, epsLabel } from "../base/eps.js";
import { escapeHtml, fmtPlain, marked, pyFormat, readoutHtml } from "../base/format.js";
import { pointSlot, record, rowOf } from "../base/tables.js";

export const shownDtypes = (scene, state) => scene.dtypes.filter((n) => state.shown.includes(n));

// What the state shows: {w, s, d, eps, x, point, optima, at (per dtype), noSlope}, or null until
// it comes; where f has no slope, `at` is null.
export function labFound(scene, tables, exact, state, x) {
  if (!tables.error || !scene.schemes) return null;
  const s = scene.schemes.indexOf(state.scheme);
  const d = scene.dtypes.indexOf(state.dtype);
  const p = pointSlot(scene, tables, exact, state);
  if (s < 0 || d < 0 || !p) return null;
  const w = p.w;
  const point = record(scene.fields.point, rowOf(tables.point, [w]));
  const optima = scene.dtypes.map((_, k) => record(scene.fields.optima, rowOf(tables.optima, [w, s, k])));
  const noSlope = !(Number.isFinite(point.fx) && Number.isFinite(point.analytic));
  const found = { w, s, d, eps: p.eps, x, point, optima, noSlope, at: null };
  if (noSlope) return found;
  if (!p.from) return null;
  const { from, at, g } = p; // the scene's table, or a typed eps's answer
  found.at = scene.dtypes.map((_, k) => ({
    error: rowOf(from.error, [at, s, k])[g],
    ...record(scene.fields.flags, rowOf(from.flags, [at, s, k, g])),
    ...record(scene.fields.theory, rowOf(from.theory, [at, s, k, g])),
  }));
  return found;
}

// The error axes' y limits at one x: all errors and the tolerance, ×8 each side (kept across switches).
export function errorLimits(tables, w, tolerance) {
  const size = tables.error.data.length / tables.error.shape[0];
  const all = tables.error.data.subarray(w * size, (w + 1) * size);
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of [...all, tolerance]) if (v > 0 && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(lo <= hi)) return [1e-17, 10];
  return [Math.max(lo / 8, 1e-18), Math.max(hi * 8, 1)];
}

// Theory's best eps inside the picture's eps range (a star is drawn), or why not.
export function optimumInRange(opt) {
  return opt.optimal_eps >= EPS_MIN && opt.optimal_eps <= EPS_MAX && opt.optimal_error > 0
    && Number.isFinite(opt.optimal_error);
}

// theory's best eps as a readout says it: never a number far outside the eps range.
export function theoryText(opt, fx) {
  const e = opt.optimal_eps;
  if (!Number.isFinite(e)) return "theory: no best eps (no truncation error here, larger is better)";
  if (e < EPS_MIN) {
    const why = fx === 0 ? ": f(x) = 0, so theory's rounding term u·|f(x)|/eps is 0 here" : "";
    return `theory: below ${epsLabel(EPS_MIN)}, off this scale${why}`;
  }
  if (e > EPS_MAX) return `theory: above ${epsLabel(EPS_MAX)}, off this scale`;
  return `theory ${pyFormat(e, ".2g")} (error ≈ ${pyFormat(opt.optimal_error, ".1g")})`;
}

// The error as the readout and the table write it (or why there is none).
export function errorText(r) {
  if (r.underflow) return "no slope (eps rounds to 0)";
  const text = pyFormat(r.error, ".2e");
  return r.collapsed ? `${text} (x ± eps round to x: slope 0)` : text;
}

// gradcheck's verdict at this eps, and by how much it misses (error / tolerance).
export function verdictText(r, tolerance) {
  const tol = pyFormat(tolerance, ".3g");
  if (r.underflow) return "gradcheck could not measure a slope";
  if (Number.isNaN(r.error)) return "no measurement: f or its slope is NaN here (outside its domain?)";
  if (r.passes) return `within the tolerance ${tol}: gradcheck passes`;
  const times = tolerance > 0 ? r.error / tolerance : Infinity;
  return `${pyFormat(times, ".3g")} × the tolerance ${tol}: gradcheck fails`;
}

// The picture's two short lines for an x with no slope: what f does there, and what to do.
export function noSlopeLines(fname, x, point) {
  const at = `at x = ${pyFormat(x, ".6g")}`;
  const what = Number.isFinite(point.fx) ? `the slope of ${fname} is ${pyFormat(point.analytic)} ${at}`
    : `f(x) = ${fname} is ${pyFormat(point.fx)} ${at}`;
  return [what, "no slope to measure here: move x"];
}

// Why there is nothing to measure at this x (f or its slope is not a finite number).
export function noSlopeText(fname, x, point) {
  const at = `at x = ${pyFormat(x, ".6g")}`;
  if (!Number.isFinite(point.fx)) {
    const hint = fname.startsWith("log") && x <= 0 ? " to a positive number" : "";
    return `f(x) = ${escapeHtml(fname)} is ${pyFormat(point.fx)} ${at} (outside its domain, or too large ` +
      `for float64), so there is no slope to measure; move x${hint}`;
  }
  return `the slope of ${escapeHtml(fname)} ${at} is ${pyFormat(point.analytic)}; move x`;
}

function tableHtml(scene, state, found) {
  const rows = shownDtypes(scene, state).map((name) => {
    const r = found.at[scene.dtypes.indexOf(name)];
    const verdict = r.passes ? marked("good", "passes") : marked("bad", "fails");
    const bold = name === state.dtype ? " style='font-weight:bold'" : "";
    return `<tr${bold}><td>${name}</td><td style='padding:0 10px'>${errorText(r)}</td><td>${verdict}</td>` +
      `<td class='gk-r-detail'>u = ${pyFormat(scene.u[name], ".1g")}</td></tr>`;
  });
  const head = `<div class='gk-r-label'>at eps = ${epsLabel(found.eps)}, against the tolerance ` +
    `${pyFormat(found.point.tolerance, ".3g")}:</div>`;
  return `${head}<table>${rows.join("")}</table>`;
}

// The readouts of a state, worded as a learner reads them; "" for a panel that is closed.
export function labReadouts(scene, state, found, panels) {
  const name = state.dtype;
  const out = { eps: readoutHtml("eps", epsLabel(found.eps), `= ${fmtPlain(found.eps)}`) };
  if (found.noSlope) {
    out.error = marked("bad", noSlopeText(scene.function, found.x, found.point));
    return { ...out, tolerance: "", optimal: "", table: "" };
  }
  const r = found.at[found.d];
  const { tolerance, analytic, fx } = found.point;
  out.error = readoutHtml(`${name} error at this eps`, errorText(r), verdictText(r, tolerance));
  out.tolerance = readoutHtml("gradcheck tolerance", pyFormat(tolerance, ".3g"),
    `= atol + rtol·|f′(x)| = ${pyFormat(scene.atol, ".6g")} + ${pyFormat(scene.rtol, ".6g")}·${pyFormat(Math.abs(analytic), ".4g")}`);
  const opt = found.optima[found.d];
  out.optimal = panels.includes("theory")
    ? readoutHtml(`best eps for ${name}`, pyFormat(opt.best_eps, ".2g"),
      `the smallest error on this lab's eps grid (${pyFormat(opt.best_error, ".1g")}); ${theoryText(opt, fx)}`)
    : "";
  out.table = panels.includes("table") ? tableHtml(scene, state, found) : "";
  return out;
}
