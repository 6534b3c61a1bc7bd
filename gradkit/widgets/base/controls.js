// The controls of every widget, from the specs Python sends: toggles, drop-downs, sliders (x, n),
// the eps grid slider with ÷10 / ×10 and a typed box, text boxes, check boxes and buttons. Each
// control moves from the keyboard (arrows, Page Up/Down, Home/End; the notebook never steals the
// keys: data-lm-suppress-shortcuts) and names itself to screen readers (aria-label, aria-valuetext
// with the value as shown, aria-pressed). A toggle or drop-down whose spec has `also` sets those
// values too with each change (a new specimen clears the prediction). A control, or one option
// of it, whose move the model cannot answer (a page with no kernel, where its table has no
// answer: ctx.whyNot) is greyed out, its tooltip saying why (greyOut).
import { EPS_DECADE, EPS_GRID, epsLabel, epsOf, epsState, epsStepMoves, parseEps, stepEps } from "./eps.js";
import { escapeHtml, pyFormat } from "./format.js";

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

// A slider (x, n): its state is its whole position k in spec.lo … spec.hi, and the page sends
// and reads positions only; the value shown at k is the one Python sent for it (spec.values,
// controls.py holds the grid's rule).

// Position k clamped to the slider's lo … hi.
export function sliderClamp(spec, k) {
  return Math.min(spec.hi, Math.max(spec.lo, k));
}

// A slider's value at position k (clamped to lo … hi): the value Python sent for it.
export function sliderValue(spec, k) {
  return spec.values[sliderClamp(spec, k) - spec.lo];
}

// A value as a learner reads it: a slider's position as the slider's value, any other as held
// (`controls`: the widget's control specs).
export function shownValue(controls, name, value) {
  const spec = (controls || []).find((s) => s.name === name && s.kind === "slider");
  return spec ? sliderValue(spec, value) : value;
}

// Whether a slider's − (dir -1) or + (dir +1) leads anywhere from position k: not at its end.
export function sliderStepMoves(spec, k, dir) {
  return k + dir >= spec.lo && k + dir <= spec.hi;
}

// The positions lo … hi around `position` that the model answers (shows(k)), each one next to
// the last, within spec.lo … spec.hi.
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
    // min and max as drawn: a slider spans only the positions the model answers
    const next = keyMove(event.key, Number(input.value), Number(input.min), Number(input.max), spec.page || 10);
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation();
    onMove(next);
  });
  return input;
}

// Grey `node` out, its tooltip saying why, while the model cannot answer the values `changes`
// lead to (`why`: the reason, "" when it can); its own tooltip comes back once it can.
function greyOut(node, why) {
  if (node.dataset.tip === undefined) node.dataset.tip = node.title || "";
  node.classList.toggle("gk-needs-kernel", !!why);
  node.title = why || node.dataset.tip;
  if (why) node.disabled = true;
}

// A slider spans the positions around its own that the model answers; where it answers none but
// the one shown, it is greyed out where it stands, its tooltip saying why.
function spanAnswered(ctx, input, spec, label, fmt) {
  const name = spec.name;
  const why = (k) => ctx.whyNot({ [name]: k });
  const [lo, hi] = savedRange(spec, ctx.state[name], (k) => !why(k));
  const only = lo === hi && spec.lo !== spec.hi;
  input.min = String(only ? spec.lo : lo);
  input.max = String(only ? spec.hi : hi);
  if (input.dataset.tip === undefined) input.dataset.tip = input.title || "";
  input.disabled = only;
  input.classList.toggle("gk-needs-kernel", only);
  const cut = lo > spec.lo || hi < spec.hi;
  const beyond = why(lo > spec.lo ? lo - 1 : hi + 1);
  input.title = only ? beyond
    : cut ? `${input.dataset.tip} (this page holds ${label} from ${fmt(sliderValue(spec, lo))} to ` +
      `${fmt(sliderValue(spec, hi))}; ${beyond})`
      : input.dataset.tip;
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
        greyOut(b, ctx.whyNot({ eps: stepEps(ctx.state, dir), eps_exact: null }));
      }
    }
  };
  return { parts: [down, input, up, shown], sync };
}

function sliderControl(spec, ctx) {
  // a whole position k in lo … hi (x, n), shown as its value spec.values[k - lo]
  const name = spec.name;
  const label = spec.aria || spec.label || name;
  const fmt = (v) => pyFormat(Number(v), spec.format || ".6g");
  const shown = h("span", { class: "gk-value", "aria-hidden": "true" });
  const move = (k) => ctx.set(name, sliderClamp(spec, k));
  const position = () => ctx.state[name];
  const input = rangeInput(spec, spec.lo, spec.hi, label, move);
  if (spec.continuous === false) {
    input.addEventListener("input", () => { shown.textContent = fmt(sliderValue(spec, Number(input.value))); });
    input.addEventListener("change", () => move(Number(input.value)));
  } else input.addEventListener("input", () => move(Number(input.value)));
  const down = spec.down ? stepButton(spec.down, () => move(position() - 1)) : null;
  const up = spec.up ? stepButton(spec.up, () => move(position() + 1)) : null;
  const sync = () => {
    spanAnswered(ctx, input, spec, label, fmt);
    input.value = String(position());
    shown.textContent = fmt(sliderValue(spec, position()));
    input.setAttribute("aria-valuetext", `${label} ${shown.textContent}`);
    for (const [b, dir] of [[down, -1], [up, 1]]) {
      if (!b) continue;
      const end = fmt(sliderValue(spec, dir < 0 ? spec.lo : spec.hi));
      const words = `${label} is already at the ${dir < 0 ? "lowest" : "highest"} here (${end})`;
      if (atEnd(b, sliderStepMoves(spec, position(), dir), words)) {
        greyOut(b, ctx.whyNot({ [name]: sliderClamp(spec, position() + dir) }));
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
      greyOut(b, ctx.whyNot({ ...(spec.also || {}), [name]: b.dataset.value }));
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
    // only the options the model answers; greyed out when it answers no other
    let other = null;
    let why = "";
    for (const o of options) {
      const not = o.value === select.value ? "" : ctx.whyNot({ ...(spec.also || {}), [spec.name]: o.value });
      o.disabled = !!not;
      if (o.value !== select.value) { if (!not) other = o; else why = why || not; }
    }
    greyOut(select, other || !why ? "" : why);
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
      const why = ctx.whyNot(next);
      if (why) {
        // a model that cannot measure it (no kernel): the box goes back to the eps shown, saying why
        input.value = epsLabel(epsOf(ctx.state));
        ctx.showError(escapeHtml(why));
        return;
      }
      ctx.set("eps", next.eps, { also: { eps_exact: next.eps_exact } });
      input.value = epsLabel(epsOf(ctx.state));
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
    greyOut(input, ctx.whyNot({ [spec.name]: !input.checked }));
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
  // a click goes to the kernel (spec.kernel), unless the page presses it itself: spec.set, a
  // counter (spec.count) or the view's press (spec.by_page)
  const press = () => {
    const { key, value, also } = buttonPress(spec, ctx.state);
    ctx.set(key, value, { also });
  };
  const b = h("button", { class: spec.css, title: spec.tooltip, text: spec.text,
    onclick: () => (spec.set || spec.count ? press() : ctx.click(spec.name)) });
  const sync = () => {
    const st = ctx.controlState(spec.name);
    b.disabled = !!st.disabled || buttonSpent(spec, ctx.state);
    const look = buttonLook(spec, ctx.state);
    b.textContent = buttonText(spec, ctx.state, st);
    b.hidden = look.hidden;
    if (look.pressed !== null) b.setAttribute("aria-pressed", String(look.pressed));
    if (spec.set && !b.hidden) {
      const { key, value, also } = buttonPress(spec, ctx.state);
      greyOut(b, ctx.whyNot({ ...(also || {}), [key]: value }));
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
    // a control that asks the kernel (a button that runs Python, a text Python reads), where the
    // model cannot answer it, is greyed out saying why (its tooltip, read by screen readers too)
    const asks = spec.kernel && (spec.kind === "button" || spec.kind === "text");
    const why = asks ? ctx.whyNotAsk(spec.name) : "";
    row.classList.toggle("gk-needs-kernel", !!why);
    if (why) {
      for (const node of row.querySelectorAll("input, select, button")) {
        node.disabled = true;
        node.title = why;
      }
    }
  };
  return { row, sync };
}
