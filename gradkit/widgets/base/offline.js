// A page with no kernel (a static export, base/offline.py): what it plays beyond the scene, and
// the words it says for what it cannot. The model's `offline` trait holds scenes saved for other
// values of a control (another function, another n: `scenes`, each with the state it is for,
// `match`), what Python changes along with a control (`resets`), and a family's own parts (hints,
// verdicts). Pure functions; host.js and controls.js use them only when options.offline is set.
import { EPS_GRID, epsLabel } from "./eps.js";
import { escapeHtml, pyFormat } from "./format.js";
import { decodeTables } from "./tables.js";

// The saved scenes, tables decoded: [{match, scene, tables}].
export function offlineScenes(data) {
  return ((data && data.scenes) || []).map((s) => ({
    match: s.match || {}, scene: s.scene || {}, tables: decodeTables(s.tables, (s.scene || {}).tables),
  }));
}

// The saved scene for `state`: the first whose `match` the state holds, else null (the model's own).
export function sceneFor(scenes, state) {
  return scenes.find((s) => Object.entries(s.match).every(([k, v]) => state[k] === v)) || null;
}

// The state after the page changes `changes`, with what Python changes along with them (resets:
// {name: {other: value}}; a key the page changes itself wins).
export function withResets(state, changes, resets = {}) {
  const out = { ...state, ...changes };
  for (const name of Object.keys(changes)) {
    for (const [other, value] of Object.entries(resets[name] || {})) if (!(other in changes)) out[other] = value;
  }
  return out;
}

// A setting in words: "x = 2.35", "eps = 1e-07", "fast_mode on", "Function = WrongSquareFn".
export function settingWords(label, name, value) {
  const what = label || name;
  if (name === "eps" && Number.isInteger(value)) return `eps = ${epsLabel(EPS_GRID[value])}`;
  if (typeof value === "boolean") return `${what} ${value ? "on" : "off"}`;
  if (typeof value === "number") return `${what} = ${pyFormat(value, ".6g")}`;
  return `${what} = ${value}`;
}

export const NOT_SAVED = "is not saved with this page: it needs a running notebook (Python). Open this lesson " +
  "in Jupyter to use it.";

// Why the page went back: the setting it was not given (HTML, escaped).
export function refusalNote(words) {
  return `${escapeHtml(words)} ${NOT_SAVED}`;
}

// Why a typed eps between the grid's steps is refused (HTML): the steps either side of it.
export function offGridNote(value) {
  const above = EPS_GRID.findIndex((e) => e > value);
  const lo = EPS_GRID[Math.max(0, above - 1)];
  const hi = EPS_GRID[above < 0 ? EPS_GRID.length - 1 : above];
  return `eps = ${escapeHtml(epsLabel(value))} lies between the eps steps this page holds ` +
    `(${epsLabel(lo)} and ${epsLabel(hi)}): type one of them, or open this lesson in Jupyter, where Python ` +
    "measures any eps.";
}

// The title of a control the page greys out because it was not given what it shows.
export const GREYED_TITLE = "needs a running notebook (Python): not saved with this page";
