// eps in the page: the decimal 1-2-5 grid from 1e-12 to 1, snapping and labels (base/eps.py holds
// Python's half; a fixture written by Python keeps the two equal), and the rules only the page
// has: ÷10 / ×10 (stepEps) and reading a typed eps (parseEps).
import { escapeHtml, pyFormat } from "./format.js";

export const EPS_MIN = 1e-12;
export const EPS_MAX = 1.0;
// ÷10 and ×10 move this many grid positions (1, 2, 5 per decade).
export const EPS_DECADE = 3;

// 1e-12, 2e-12, 5e-12, 1e-11, ..., 5e-1, 1, each parsed from its text: the doubles float("2e-12") gives.
export const EPS_GRID = Object.freeze([
  ...Array.from({ length: 12 }, (_, i) => [1, 2, 5].map((m) => Number(`${m}e${i - 12}`))).flat(),
  1.0,
]);

// eps as the controls print it: "1e-06", "0.001", "3.16e-07" (Python's f"{eps:.3g}").
export function epsLabel(eps) {
  return pyFormat(eps, ".3g");
}

// The grid index nearest eps on a log scale; ties go to the smaller value.
export function snapEps(eps) {
  const off = (k) => Math.abs(Math.log10(EPS_GRID[k]) - Math.log10(eps));
  return EPS_GRID.reduce((best, _, k) => (off(k) < off(best) ? k : best), 0);
}

// The control state for an eps: its grid index, and the exact value when it is off the grid.
export function epsState(eps) {
  const k = snapEps(eps);
  return { eps: k, eps_exact: EPS_GRID[k] === eps ? null : eps };
}

// The eps a state shows: the exact value when there is one, else the grid value.
export function epsOf(state) {
  return state.eps_exact != null ? state.eps_exact : EPS_GRID[state.eps];
}

// ÷10 (dir -1) or ×10 (dir +1): three grid positions from the nearest grid value, clamped.
export function stepEps(state, dir) {
  const k = snapEps(epsOf(state)) + dir * EPS_DECADE;
  return Math.min(EPS_GRID.length - 1, Math.max(0, k));
}

// Whether ÷10 / ×10 leads anywhere (a typed eps off the grid always steps back onto it).
export function epsStepMoves(state, dir) {
  return state.eps_exact != null || stepEps(state, dir) !== state.eps;
}

// A typed eps: {value} or {error} (the rule and words of Python's check_control_eps).
export function parseEps(text) {
  const cleaned = String(text).trim().replace(/−/g, "-").replace(/\s+/g, "");
  const value = cleaned === "" ? NaN : Number(cleaned);
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned) || !Number.isFinite(value)) {
    return { error: `eps must be a number written like 1e-6 or 0.001; “${escapeHtml(text)}” is not one` };
  }
  if (!(value > 0)) return { error: `eps must be a number > 0 (e.g. 1e-6), got ${cleaned}` };
  if (value < EPS_MIN || value > EPS_MAX) {
    return {
      error: `eps=${pyFormat(value, ".6g")} is outside the range ${pyFormat(EPS_MIN)} to ` +
        `${pyFormat(EPS_MAX)} of the eps controls; pick a value inside it (e.g. 1e-6)`,
    };
  }
  return { value };
}
