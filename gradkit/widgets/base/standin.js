// A page with no kernel (the static site): its model answers from the answers saved with the state
// (base/standin.py), and refuses any other change as Python refuses a value, saying why.
import { shownValue } from "./controls.js";
import { EPS_GRID, epsLabel } from "./eps.js";
import { escapeHtml, pyFormat } from "./format.js";
import { decodeTables } from "./tables.js";
import { valuesOf } from "./page.js";
import { sceneFits } from "./host.js";

export const NEEDS_KERNEL = "needs a running notebook (Python): open this lesson in Jupyter to use it";

// A setting in words: "x = 2.35", "eps = 1e-07", "fast_mode on", "Function = WrongSquareFn".
export function settingWords(label, name, value) {
  const what = label || name;
  if (name === "eps" && Number.isInteger(value)) return `eps = ${epsLabel(EPS_GRID[value])}`;
  if (typeof value === "boolean") return `${what} ${value ? "on" : "off"}`;
  if (typeof value === "number") return `${what} = ${pyFormat(value, ".6g")}`;
  return `${what} = ${value}`;
}

// Why a typed eps between the grid's steps has no answer: the steps either side of it.
export function offGridWords(value) {
  const above = EPS_GRID.findIndex((e) => e > value);
  const lo = EPS_GRID[Math.max(0, above - 1)];
  const hi = EPS_GRID[above < 0 ? EPS_GRID.length - 1 : above];
  return `eps = ${epsLabel(value)} lies between the eps steps this page holds (${epsLabel(lo)} and ` +
    `${epsLabel(hi)}): type one of them, or open this lesson in Jupyter, where Python measures any eps.`;
}

function labelOf(spec, name) {
  const c = (spec.controls || []).find((s) => s.name === name) || {};
  return String(c.label || c.aria || c.text || name).replace(/\s*=\s*$/, "");
}

// Make the site loader's `model` (a saved state, with `answers`) a stand-in for the kernel. `view`
// is the family's (its `find(ctx)`: a scene holds a state); `refused()`: a command no
// table answers.
export function standIn(model, view, refused = () => {}) {
  const spec = model.get("spec") || {};
  const names = spec.state || [];
  const saved = Array.isArray(model.get("answers")) ? model.get("answers") : [];
  const decoded = new Map(); // tables decoded once per buffer
  const tablesOf = (buffer, scene) => {
    if (!decoded.has(buffer)) decoded.set(buffer, decodeTables(buffer, (scene || {}).tables));
    return decoded.get(buffer);
  };
  const valuesNow = () => valuesOf(model, names);
  const shown = () => ({ state: {}, scene: model.get("scene") || {}, tables: model.get("tables") });
  // the saved scene answers too (a page can come back); an answer sets scene and values, never layout
  const allowed = (k) => k === "scene" || k === "tables" || names.includes(k);
  const answers = [shown(), ...saved.map((a) => ({ state: a.state || {}, scene: a.scene || {}, tables: a.tables }))]
    .map((a) => ({ ...a, state: Object.fromEntries(Object.entries(a.state).filter(([k]) => allowed(k))) }));
  const holds = (scene, buffer, state) => sceneFits(scene, state) &&
    (!view.find || !!view.find({ spec, scene, tables: tablesOf(buffer, scene), state, exact: null,
      value: (name) => shownValue(spec.controls, name, state[name]) }));
  // the answer for `state`: the scene shown, else a saved one (never for a typed eps off the grid)
  const answerFor = (state) => {
    if (state.eps_exact != null) return null;
    const now = shown();
    if (holds(now.scene, now.tables, state)) return now;
    return answers.find((a) => holds(a.scene, a.tables, { ...state, ...a.state })) || null;
  };
  let accepted = valuesNow(); // the values last answered: a refused change goes back to them

  model.save_changes = () => {
    const state = valuesNow();
    const found = answerFor(state);
    if (found) {
      const sets = { ...found.state, error: "" };
      if (found.scene !== model.get("scene")) Object.assign(sets, { scene: found.scene, tables: found.tables });
      model.set(sets);
      accepted = valuesNow();
      return;
    }
    const why = model.cannotShow(state);
    model.set({ ...accepted, error: `<div class="gk-alert"><b>Could not use that:</b> ${escapeHtml(why)}</div>` });
  };
  // a command, as experimental.invoke answers it: [answer, buffers]; none is in the table
  model.ask = async (command, msg = {}) => {
    if (command !== "numbers_at") refused();
    return [{ error: command === "numbers_at" ? offGridWords(msg.eps) : model.cannotAsk(msg.name) }, []];
  };
  model.cannotShow = (state) => {
    if (answerFor(state)) return "";
    if (state.eps_exact != null) return offGridWords(state.eps_exact);
    const name = names.find((n) => JSON.stringify(state[n]) !== JSON.stringify(accepted[n]));
    if (name === undefined) return `this ${NEEDS_KERNEL}`;
    const value = shownValue(spec.controls, name, state[name]);
    return `${settingWords(labelOf(spec, name), name, value)} is not saved with this page: it ${NEEDS_KERNEL}.`;
  };
  // a button that runs Python, a text Python reads: none is in the table
  model.cannotAsk = (name) => `${labelOf(spec, name)} ${NEEDS_KERNEL}.`;
  return model;
}
