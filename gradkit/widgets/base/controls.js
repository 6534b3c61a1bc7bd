// The controls from Python's specs, one builder per kind (KINDS), keys ours (data-lm-suppress-shortcuts);
// a move the model cannot answer (no kernel: ctx.whyNot) is greyed out, its tooltip saying why.
import { EPS_DECADE, EPS_GRID, epsLabel, epsOf, epsState, epsStepMoves, parseEps, stepEps } from "./eps.js";
import { escapeHtml, pyFormat } from "./format.js";

// A slider's keyboard rule over positions lo … hi: the new position for a key (null: ignored).
export function keyMove(key, position, lo, hi, page = 10) {
  const moves = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: page, PageDown: -page };
  const next = key === "Home" ? lo : key === "End" ? hi : key in moves ? position + moves[key] : null;
  return next === null ? null : Math.min(hi, Math.max(lo, next));
}

// A slider's state is its position k in spec.lo … spec.hi; its value, the one Python sent (spec.values).
export function sliderClamp(spec, k) {
  return Math.min(spec.hi, Math.max(spec.lo, k));
}

export function sliderValue(spec, k) {
  return spec.values[sliderClamp(spec, k) - spec.lo];
}

// A value as a learner reads it: a slider's position as its value, any other as held.
export function shownValue(controls, name, value) {
  const spec = (controls || []).find((s) => s.name === name && s.kind === "slider");
  return spec ? sliderValue(spec, value) : value;
}

// Whether a slider's − (dir -1) or + (dir +1) leads anywhere from position k: not at its end.
export function sliderStepMoves(spec, k, dir) {
  return k + dir >= spec.lo && k + dir <= spec.hi;
}

// The run of positions around `position` that the model answers (shows(k)), within spec.lo … spec.hi.
export function savedRange(spec, position, shows) {
  let lo = position;
  let hi = position;
  while (lo - 1 >= spec.lo && shows(lo - 1)) lo -= 1;
  while (hi + 1 <= spec.hi && shows(hi + 1)) hi += 1;
  return [lo, hi];
}

export function h(tag, attrs = {}, ...children) {
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

// The tooltip a node had before it was greyed out or disabled: it comes back once the node can move.
function ownTip(node) {
  if (node.dataset.tip === undefined) node.dataset.tip = node.title || "";
  return node.dataset.tip;
}

// Grey `node` out, its tooltip saying why ("" : the model can answer its move).
function greyOut(node, why) {
  const tip = ownTip(node);
  node.title = why || tip;
  node.classList.toggle("gk-needs-kernel", !!why);
  if (why) node.disabled = true;
}

// The eps grid and a slider: a range input over lo … hi between − and + (spec.down, spec.up), its
// value beside it. o.changes(k): the values k sets; o.text(state): the value shown; o.step(dir),
// o.moves(dir): where − / + lead, and whether; o.ends: their words at an end; o.page: Page Up/Down.
// The keys follow our own rule (the same in every front end), within min and max as drawn.
function stepped(spec, ctx, o) {
  const name = spec.name;
  const label = spec.aria || spec.label || name;
  const move = (k) => {
    const changes = o.changes(k);
    ctx.set(name, changes[name], { also: changes });
  };
  const shown = h("span", { class: "gk-value", "aria-hidden": "true" });
  const input = h("input", {
    type: "range", class: spec.css, title: spec.tooltip, min: o.lo, max: o.hi, step: 1,
    "aria-label": label, "data-lm-suppress-shortcuts": "true",
  });
  input.addEventListener("keydown", (event) => {
    const next = keyMove(event.key, Number(input.value), Number(input.min), Number(input.max), o.page);
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation();
    move(next);
  });
  if (spec.continuous === false) {
    input.addEventListener("input", () => { shown.textContent = o.text({ [name]: Number(input.value) }); });
    input.addEventListener("change", () => move(Number(input.value)));
  } else input.addEventListener("input", () => move(Number(input.value)));
  const [down, up] = [spec.down, spec.up].map((part, i) => part && h("button", {
    class: `gk-step ${part.css}`, title: part.tooltip, "aria-label": part.tooltip, text: part.label,
    onclick: () => move(o.step(2 * i - 1)),
  }));
  const sync = () => {
    if (o.span) o.span(input, label);
    input.value = String(ctx.state[name]);
    shown.textContent = o.text(ctx.state);
    input.setAttribute("aria-valuetext", `${label} ${shown.textContent}`);
    for (const [b, dir] of [[down, -1], [up, 1]]) {
      if (!b) continue;
      const moves = o.moves(dir); // at its end: disabled, its tooltip saying so
      const tip = ownTip(b);
      b.disabled = !moves;
      const end = o.text({ [name]: dir < 0 ? o.lo : o.hi });
      b.title = moves ? tip : `${label} is already ${o.ends[dir < 0 ? 0 : 1]} here (${end})`;
      b.setAttribute("aria-label", b.title);
      if (moves) greyOut(b, ctx.whyNot(o.changes(o.step(dir))));
    }
  };
  return { parts: [down, input, up, shown], sync };
}

// eps on EPS_GRID: state.eps (index) and state.eps_exact (a typed value off the grid)
function gridControl(spec, ctx) {
  return stepped(spec, ctx, {
    lo: 0, hi: EPS_GRID.length - 1, page: EPS_DECADE, ends: ["the smallest", "the largest"],
    changes: (k) => ({ eps: k, eps_exact: null }),
    text: (state) => epsLabel(epsOf(state)),
    step: (dir) => stepEps(ctx.state, dir),
    moves: (dir) => epsStepMoves(ctx.state, dir),
  });
}

// A position k in lo … hi (x, n) shown as spec.values[k - lo], spanning the positions around it that
// the model answers; greyed out where that is only the one shown, its tooltip saying why.
function sliderControl(spec, ctx) {
  const name = spec.name;
  const text = (state) => pyFormat(Number(sliderValue(spec, state[name])), spec.format || ".6g");
  const why = (k) => ctx.whyNot({ [name]: k });
  const span = (input, label) => {
    const [lo, hi] = savedRange(spec, ctx.state[name], (k) => !why(k));
    const only = lo === hi && spec.lo !== spec.hi;
    input.min = String(only ? spec.lo : lo);
    input.max = String(only ? spec.hi : hi);
    const tip = ownTip(input);
    input.disabled = only;
    input.classList.toggle("gk-needs-kernel", only);
    const beyond = why(lo > spec.lo ? lo - 1 : hi + 1);
    const held = `this page holds ${label} from ${text({ [name]: lo })} to ${text({ [name]: hi })}`;
    input.title = only ? beyond : lo > spec.lo || hi < spec.hi ? `${tip} (${held}; ${beyond})` : tip;
  };
  return stepped(spec, ctx, {
    lo: spec.lo, hi: spec.hi, ends: ["at the lowest", "at the highest"], span, text,
    changes: (k) => ({ [name]: sliderClamp(spec, k) }),
    step: (dir) => ctx.state[name] + dir,
    moves: (dir) => sliderStepMoves(spec, ctx.state[name], dir),
  });
}

function toggleControl(spec, ctx) {
  const name = spec.name;
  const buttons = spec.options.map((opt, i) => h("button", { title: (spec.tooltips || [])[i], text: opt,
    "data-value": opt, onclick: () => ctx.set(name, opt, { also: spec.also || {} }) }));
  const group = h("span", { class: `gk-toggle ${spec.css}`, role: "group", "aria-label": spec.label || name },
    ...buttons);
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
  const options = spec.options.map((opt) => h("option", { value: opt, text: opt }));
  const select = h("select", { class: spec.css, title: spec.tooltip, "aria-label": spec.label || spec.name,
    onchange: () => ctx.set(spec.name, select.value, { also: spec.also || {} }) }, ...options);
  const sync = () => {
    select.value = ctx.state[spec.name];
    select.disabled = !!ctx.controlState(spec.name).disabled;
    // only the options the model answers; greyed out when it answers no other
    const others = options.filter((o) => o.value !== select.value);
    const whys = others.map((o) => ctx.whyNot({ ...(spec.also || {}), [spec.name]: o.value }));
    for (const o of options) o.disabled = !!whys[others.indexOf(o)];
    greyOut(select, whys.every(Boolean) ? whys[0] || "" : "");
  };
  return { parts: [select], sync };
}

function textControl(spec, ctx) {
  const input = h("input", { type: "text", class: spec.css, title: spec.tooltip, placeholder: spec.placeholder,
    "aria-label": spec.label || spec.name, "data-lm-suppress-shortcuts": "true" });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") input.blur(); });
  input.addEventListener("change", () => {
    if (spec.parse !== "eps") return ctx.set(spec.name, input.value);
    const got = parseEps(input.value); // on the grid the page answers, off it the kernel computes
    if (got.error) return ctx.showError(got.error);
    const next = epsState(got.value);
    const why = ctx.whyNot(next); // no kernel: the box goes back to the eps shown, saying why
    if (why) ctx.showError(escapeHtml(why));
    else ctx.set("eps", next.eps, { also: next });
    input.value = epsLabel(epsOf(ctx.state));
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

// The change {key, value, also} a page-side button makes: spec.set = [key, value] sets it (hidden
// once it holds); with spec.unset = [value, also] a toggle (aria-pressed), pressed again setting
// `value` and each key of `also` not among `value` to its fallback; spec.count = [key, last] counts.
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

export function buttonCount(spec, state) {
  return Number(state[spec.count[0]] ?? 0);
}

// A counter is disabled at its last count (no more hints).
export function buttonSpent(spec, state) {
  return !!spec.count && buttonCount(spec, state) >= spec.count[1];
}

// How such a button shows the state: {hidden, pressed} (pressed null: no aria-pressed).
export function buttonLook(spec, state) {
  if (!spec.set) return { hidden: false, pressed: null };
  const held = sameValue(state[spec.set[0]], spec.set[1]);
  return spec.unset ? { hidden: false, pressed: held } : { hidden: held, pressed: null };
}

// A button's label: its control state's, a counter's spec.texts[count], a pressed toggle's, its own.
export function buttonText(spec, state, controlState = {}) {
  const counted = spec.count ? (spec.texts || {})[String(buttonCount(spec, state))] : undefined;
  return controlState.text || counted || (buttonLook(spec, state).pressed && spec.pressed_text) || spec.text;
}

const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// A click goes to the kernel, unless the page presses it (spec.set, spec.count; by_page: ctx.click).
function buttonControl(spec, ctx) {
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

// One control row: its label, its parts, and sync() (the state, and the kernel's control_state).
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
    // a button that runs Python or a text Python reads, with no kernel: greyed out, its tooltip why
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
