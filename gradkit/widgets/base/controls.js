// The controls of every widget, from the specs Python sends: toggles, drop-downs, sliders (x, n),
// the eps grid slider with ÷10 / ×10 and a typed box, text boxes, check boxes and buttons. Each
// control moves from the keyboard (arrows, Page Up/Down, Home/End; the notebook never steals the
// keys: data-lm-suppress-shortcuts) and names itself to screen readers (aria-label, aria-valuetext
// with the value as shown, aria-pressed). A toggle or drop-down whose spec has `also` sets those
// values too with each change (a new specimen clears the prediction). On a page with no kernel a
// control, or one option of it, that would lead where the page was not given data is greyed out
// (offlineGrey); a button the page presses itself never is for want of a kernel.
import { EPS_DECADE, EPS_GRID, epsLabel, epsOf, epsState, epsStepMoves, parseEps, stepEps } from "./eps.js";
import { pyFormat } from "./format.js";
import { GREYED_TITLE, offGridNote } from "./offline.js";

// The keyboard rule of a slider over whole positions lo … hi: the new position for a key, or
// null for a key it ignores; `page` positions for Page Up/Down.
export function keyMove(key, position, lo, hi, page = 10) {
  const moves = {
    ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: page, PageDown: -page,
  };
  let next;
  if (key in moves) next = position + moves[key];
  else if (key === "Home") next = lo;
  else if (key === "End") next = hi;
  else return null;
  return Math.min(hi, Math.max(lo, next));
}

// The slider grid (controls.py holds the rule and sends the grid): a slider's values are
// origin + k * step for whole k, sent as the spec's list of values; a value's position is the
// nearest whole k, a tie going to the even k as Python's round does (Math.round would take the
// larger). Tested against Python's answers (tests/js/grid.test.mjs, fixtures/grid.json).

// q rounded to the nearest whole number, a tie to the even one (q − floor(q) is exact).
export function roundHalfEven(q) {
  const down = Math.floor(q);
  const rest = q - down;
  return rest > 0.5 || (rest === 0.5 && down % 2 !== 0) ? down + 1 : down;
}

// The whole position nearest value.
export function gridPosition(grid, value) {
  return roundHalfEven((Number(value) - grid.origin) / grid.step);
}

// A slider's value at position k, clamped to lo … hi: the value Python sent for it.
export function sliderValue(spec, k) {
  return spec.values[Math.min(spec.hi, Math.max(spec.lo, k)) - spec.lo];
}

// The position of a value on a slider's grid.
export function sliderPosition(spec, value) {
  return gridPosition(spec, value);
}

// Whether a slider's − (dir -1) or + (dir +1) leads anywhere from `value`: not at its end.
export function sliderStepMoves(spec, value, dir) {
  const k = sliderPosition(spec, value) + dir;
  return k >= spec.lo && k <= spec.hi;
}

// With no kernel: the positions lo … hi around `position` that the page can show (shows(k): a
// saved answer at position k), each one next to the last, within spec.lo … spec.hi.
export function savedRange(spec, position, shows) {
  let lo = position;
  let hi = position;
  while (lo - 1 >= spec.lo && shows(lo - 1)) lo -= 1;
  while (hi + 1 <= spec.hi && shows(hi + 1)) hi += 1;
  return [lo, hi];
}

// A step button at the end of its range: disabled, its tooltip saying so (the tooltip it had
// comes back when it leads somewhere again). Returns whether it leads somewhere.
function atEnd(node, moves, words) {
  if (node.dataset.tip === undefined) node.dataset.tip = node.title || "";
  node.disabled = !moves;
  node.title = moves ? node.dataset.tip : words;
  node.setAttribute("aria-label", node.title);
  return moves;
}

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
export { h };

// A range input over positions lo … hi, driven by our own keyboard rule (the same in every
// front end; data-lm-suppress-shortcuts keeps Notebook 7 / JupyterLab from taking the keys).
function rangeInput(spec, lo, hi, aria, onMove) {
  const input = h("input", {
    type: "range", class: spec.css, title: spec.tooltip, min: lo, max: hi, step: 1,
    "aria-label": aria, "data-lm-suppress-shortcuts": "true",
  });
  input.addEventListener("keydown", (event) => {
    // min and max as drawn: with no kernel, a slider spans only the positions saved
    const next = keyMove(event.key, Number(input.value), Number(input.min), Number(input.max), spec.page || 10);
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation();
    onMove(next);
  });
  return input;
}

// On a page with no kernel: grey `node` out (with the widget's line saying why) when the state
// `changes` lead to is one the page was not given; its own tooltip comes back once it can.
function offlineGrey(ctx, node, changes) {
  if (!ctx.offline) return;
  const ok = ctx.canShow(changes);
  if (node.dataset.tip === undefined) node.dataset.tip = node.title || "";
  node.classList.toggle("gk-needs-kernel", !ok);
  node.title = ok ? node.dataset.tip : GREYED_TITLE;
  if (!ok) node.disabled = true;
}

// With no kernel: a slider spans only the positions the page saved answers for, its tooltip
// says so; where it saved none but the one shown, the slider is greyed out saying why.
function offlineSpan(ctx, input, spec, label, fmt) {
  if (!ctx.offline) return;
  const name = spec.name;
  const [lo, hi] = savedRange(spec, sliderPosition(spec, ctx.state[name]),
    (k) => ctx.canShow({ [name]: sliderValue(spec, k) }));
  const only = lo === hi; // greyed out where it stands, not moved to the end of a one-step span
  input.min = String(only ? spec.lo : lo);
  input.max = String(only ? spec.hi : hi);
  if (input.dataset.tip === undefined) input.dataset.tip = input.title || "";
  input.disabled = only;
  input.classList.toggle("gk-needs-kernel", only);
  input.title = only
    ? `${label} = ${fmt(sliderValue(spec, lo))} is the only ${label} this page saved for what it shows: ` +
      "another needs a running notebook (Python)"
    : `${input.dataset.tip}: this page saved ${label} from ${fmt(sliderValue(spec, lo))} to ` +
      `${fmt(sliderValue(spec, hi))}; beyond, it needs a running notebook (Python)`;
}

function stepButton(part, onclick) {
  return h("button", { class: `gk-step ${part.css}`, title: part.tooltip, "aria-label": part.tooltip,
    text: part.label, onclick });
}

function gridControl(spec, ctx) {
  // eps on EPS_GRID: state.eps (index) and state.eps_exact (a typed value off the grid)
  const shown = h("span", { class: "gk-value", "aria-hidden": "true" });
  const move = (k) => ctx.set("eps", k, { also: { eps_exact: null } });
  const input = rangeInput({ ...spec, page: EPS_DECADE }, 0, EPS_GRID.length - 1, spec.aria || "eps", move);
  input.addEventListener("input", () => move(Number(input.value)));
  const down = stepButton(spec.down, () => move(stepEps(ctx.state, -1)));
  const up = stepButton(spec.up, () => move(stepEps(ctx.state, 1)));
  const sync = () => {
    input.value = String(ctx.state.eps);
    shown.textContent = epsLabel(epsOf(ctx.state));
    input.setAttribute("aria-valuetext", `eps ${shown.textContent}`);
    for (const [b, dir] of [[down, -1], [up, 1]]) {
      const end = epsLabel(EPS_GRID[dir < 0 ? 0 : EPS_GRID.length - 1]);
      const words = `eps is already the ${dir < 0 ? "smallest" : "largest"} here (${end})`;
      if (atEnd(b, epsStepMoves(ctx.state, dir), words)) {
        offlineGrey(ctx, b, { eps: stepEps(ctx.state, dir), eps_exact: null });
      }
    }
  };
  return { parts: [down, input, up, shown], sync };
}

function sliderControl(spec, ctx) {
  // a value origin + k * step for whole k in lo … hi (x, n)
  const name = spec.name;
  const label = spec.aria || spec.label || name;
  const fmt = (v) => pyFormat(Number(v), spec.format || ".6g");
  const shown = h("span", { class: "gk-value", "aria-hidden": "true" });
  const move = (k) => ctx.set(name, sliderValue(spec, k));
  const position = () => sliderPosition(spec, ctx.state[name]);
  const input = rangeInput(spec, spec.lo, spec.hi, label, move);
  if (spec.continuous === false) {
    input.addEventListener("input", () => { shown.textContent = fmt(sliderValue(spec, Number(input.value))); });
    input.addEventListener("change", () => move(Number(input.value)));
  } else input.addEventListener("input", () => move(Number(input.value)));
  const down = spec.down ? stepButton(spec.down, () => move(position() - 1)) : null;
  const up = spec.up ? stepButton(spec.up, () => move(position() + 1)) : null;
  const sync = () => {
    offlineSpan(ctx, input, spec, label, fmt);
    input.value = String(position());
    shown.textContent = fmt(ctx.state[name]);
    input.setAttribute("aria-valuetext", `${label} ${shown.textContent}`);
    for (const [b, dir] of [[down, -1], [up, 1]]) {
      if (!b) continue;
      const end = fmt(sliderValue(spec, dir < 0 ? spec.lo : spec.hi));
      const words = `${label} is already at the ${dir < 0 ? "lowest" : "highest"} here (${end})`;
      if (atEnd(b, sliderStepMoves(spec, ctx.state[name], dir), words)) {
        offlineGrey(ctx, b, { [name]: sliderValue(spec, position() + dir) });
      }
    }
  };
  return { parts: [down, input, up, shown], sync };
}

function toggleControl(spec, ctx) {
  const name = spec.name;
  const group = h("span", { class: `gk-toggle ${spec.css}`, role: "group", "aria-label": spec.label || name });
  const buttons = spec.options.map((opt, i) => {
    const b = h("button", { title: (spec.tooltips || [])[i], text: opt, "data-value": opt,
      onclick: () => ctx.set(name, opt, { also: spec.also || {} }) });
    group.append(b);
    return b;
  });
  const sync = () => {
    const st = ctx.controlState(name);
    const visible = st.options || (spec.shown_key ? ctx.state[spec.shown_key] : null) || spec.options;
    for (const b of buttons) {
      b.hidden = !visible.includes(b.dataset.value);
      b.setAttribute("aria-pressed", String(b.dataset.value === ctx.state[name]));
      b.disabled = !!st.disabled;
      offlineGrey(ctx, b, { ...(spec.also || {}), [name]: b.dataset.value });
    }
  };
  return { parts: [group], sync };
}

function dropdownControl(spec, ctx) {
  const select = h("select", { class: spec.css, title: spec.tooltip, "aria-label": spec.label || spec.name,
    onchange: () => ctx.set(spec.name, select.value, { also: spec.also || {} }) });
  const options = spec.options.map((opt) => h("option", { value: opt, text: opt }));
  select.append(...options);
  const sync = () => {
    select.value = ctx.state[spec.name];
    select.disabled = !!ctx.controlState(spec.name).disabled;
    if (!ctx.offline) return;
    // with no kernel: only the options the page was given, and none to pick when none is
    let others = 0;
    for (const o of options) {
      o.disabled = !ctx.canShow({ ...(spec.also || {}), [spec.name]: o.value });
      if (!o.disabled && o.value !== select.value) others += 1;
    }
    offlineGrey(ctx, select, others ? {} : { [spec.name]: null });
  };
  return { parts: [select], sync };
}

function textControl(spec, ctx) {
  const input = h("input", { type: "text", class: spec.css, title: spec.tooltip, placeholder: spec.placeholder,
    "aria-label": spec.label || spec.name, "data-lm-suppress-shortcuts": "true" });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") input.blur(); });
  input.addEventListener("change", () => {
    if (spec.parse === "eps") {
      // the eps rule: on the grid the page answers, off it the kernel computes, a slip is said
      const got = parseEps(input.value);
      if (got.error) { ctx.showError(got.error); return; }
      const next = epsState(got.value);
      if (ctx.offline && next.eps_exact !== null && !ctx.canShow(next)) {
        // no kernel to measure an eps off the grid: the box goes back to the eps shown, and says why
        input.value = epsLabel(epsOf(ctx.state));
        ctx.showError(offGridNote(got.value));
        return;
      }
      ctx.set("eps", next.eps, { also: { eps_exact: next.eps_exact } });
      input.value = epsLabel(epsOf(ctx.state)); // the eps drawn: with no kernel, maybe the one before
    } else ctx.set(spec.name, input.value);
  });
  const sync = () => {
    if (document.activeElement === input) return;
    input.value = spec.parse === "eps" ? epsLabel(epsOf(ctx.state)) : (ctx.state[spec.name] ?? "");
    input.disabled = !!ctx.controlState(spec.name).disabled;
  };
  return { parts: [input], sync };
}

function checkboxControl(spec, ctx) {
  const input = h("input", { type: "checkbox", class: spec.css, title: spec.tooltip,
    onchange: () => ctx.set(spec.name, input.checked) });
  const label = h("label", { class: "gk-check" }, input, document.createTextNode(` ${spec.text || ""}`));
  const sync = () => {
    input.checked = !!ctx.state[spec.name];
    input.disabled = !!ctx.controlState(spec.name).disabled;
    offlineGrey(ctx, input, { [spec.name]: !input.checked });
  };
  return { parts: [label], sync };
}

// A button with spec.set = [key, value] sets that state in the page itself (no kernel message)
// and hides once the state holds the value, unless spec.unset = [value, also]: then it is a
// toggle, never hidden, aria-pressed while the state holds spec.set's value; pressed again it
// sets `value`, and each key of `also` whose state is not among `value` to its fallback (the
// highlighted dtype of dtypes hidden again). A counter, spec.count = [key, last] (Python's
// button(counts=...)), sets key to min(state + 1, last): a hint more, a solution asked once
// more. The change a press makes: {key, value, also}.
export function buttonPress(spec, state) {
  if (spec.count) {
    const [key, last] = spec.count;
    return { key, value: Math.min(buttonCount(spec, state) + 1, last), also: {} };
  }
  const [key, on] = spec.set;
  if (!spec.unset || !sameValue(state[key], on)) return { key, value: on, also: {} };
  const [off, also = {}] = spec.unset;
  return { key, value: off, also: Object.fromEntries(Object.entries(also).filter(([k]) => !off.includes(state[k]))) };
}

// A counter's count in `state` (0 before its first press).
export function buttonCount(spec, state) {
  return Number(state[spec.count[0]] ?? 0);
}

// Whether a counter has counted to its last (it is disabled there: no more hints).
export function buttonSpent(spec, state) {
  return !!spec.count && buttonCount(spec, state) >= spec.count[1];
}

// Whether a click goes to the kernel: not a button the page presses itself (spec.set, a counter,
// or spec.by_page: the view's press).
export function buttonNeedsKernel(spec) {
  return !spec.set && !spec.count && !spec.by_page;
}

// How such a button shows the state: {hidden, pressed} (pressed null: no aria-pressed); a pressed
// toggle reads spec.pressed_text (what pressing it again does) where it has one.
export function buttonLook(spec, state) {
  if (!spec.set) return { hidden: false, pressed: null };
  const held = sameValue(state[spec.set[0]], spec.set[1]);
  return spec.unset ? { hidden: false, pressed: held } : { hidden: held, pressed: null };
}

// A button's label: the one its control state holds, else a counter's text for its count
// (spec.texts, keyed by the count), else a pressed toggle's spec.pressed_text, else its own.
export function buttonText(spec, state, controlState = {}) {
  const counted = spec.count ? (spec.texts || {})[String(buttonCount(spec, state))] : undefined;
  return controlState.text || counted || (buttonLook(spec, state).pressed && spec.pressed_text) || spec.text;
}

const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function buttonControl(spec, ctx) {
  // a click goes to the kernel, unless the page presses it itself (buttonNeedsKernel)
  const press = () => {
    const { key, value, also } = buttonPress(spec, ctx.state);
    ctx.set(key, value, { also });
  };
  const b = h("button", { class: spec.css, title: spec.tooltip, text: spec.text,
    onclick: () => (spec.set || spec.count ? press() : ctx.click(spec.name)) });
  const sync = () => {
    const st = ctx.controlState(spec.name);
    b.disabled = !!st.disabled || buttonSpent(spec, ctx.state) ||
      (buttonNeedsKernel(spec) && ctx.offline && !ctx.plays(spec.name));
    const look = buttonLook(spec, ctx.state);
    b.textContent = buttonText(spec, ctx.state, st);
    b.hidden = look.hidden;
    if (look.pressed !== null) b.setAttribute("aria-pressed", String(look.pressed));
    if (spec.set && !b.hidden) {
      const { key, value, also } = buttonPress(spec, ctx.state);
      offlineGrey(ctx, b, { ...(also || {}), [key]: value });
    }
  };
  return { parts: [b], sync };
}

const KINDS = {
  grid: gridControl, slider: sliderControl, toggle: toggleControl, dropdown: dropdownControl,
  text: textControl, checkbox: checkboxControl, button: buttonControl,
};

// One control row: its label, its parts, and sync() (show the state; hide or disable it as the
// kernel's control_state says).
export function buildControl(spec, ctx) {
  const row = h("div", { class: `gk-control gk-${spec.kind}` });
  if (spec.label && spec.kind !== "button" && spec.kind !== "checkbox") {
    row.append(h("span", { class: `gk-label${spec.short ? " gk-short" : ""}`, text: spec.label }));
  }
  const made = KINDS[spec.kind](spec, ctx);
  row.append(...made.parts.filter(Boolean));
  const sync = () => {
    made.sync();
    const st = ctx.controlState(spec.name);
    row.hidden = !!st.hidden;
    // a control that needs the kernel, on a page without one, says so instead of breaking
    const needsKernel = ctx.offline && spec.kernel && !ctx.plays(spec.name);
    row.classList.toggle("gk-needs-kernel", !!needsKernel);
    for (const node of row.querySelectorAll("input, select, button")) {
      if (!needsKernel) continue;
      // greyed out, and saying why to the pointer and the screen reader (its tooltip)
      node.disabled = true;
      node.title = GREYED_TITLE;
    }
  };
  return { row, sync };
}
