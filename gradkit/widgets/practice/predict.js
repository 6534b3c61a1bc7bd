// Predict (predict.py): the guess is typed or picked and locked in here; the page then compares
// it with the true value Python computed when the widget was built (within the entry's
// tolerance), reveals that value and explains, with no kernel needed. Python reads the lock from
// the state. Until then the rest of the lesson is out of sight (unfold.js).
import { escapeHtml, pyFormat, readoutHtml } from "../base/format.js";
import { controlArea, feedbackHtml, optionButtons, richText } from "./feedback.js";
import { dropGate, onOpenAll, openAll, setGate } from "./unfold.js";

// Python's grammar of a typed number (quiz_bank/grading.py NUMBER_PATTERN; trim drops exactly
// its GUESS_SPACES), tested against Python's parsing in practice.json.
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

// The words for a guess that cannot be locked in, their one home: Python reads this table
// (predict.py check_guess, through common.page_words) to say the same in its error area.
export const GUESS_SLIPS = {
  number_first: "Type a number first, then lock it in.",
  choice_first: "Pick one of the options first, then lock it in.",
  not_number: "“{text}” is not a number: type digits such as 22 or 1e-3.",
  not_option: "“{text}” is not one of the options [{options}].",
};

// A slip's words with {text} and {options} filled in (as predict.py's slip does).
function slip(name, text, options = []) {
  const values = { text, options: options.map((o) => `'${o}'`).join(", ") };
  return { error: GUESS_SLIPS[name].replace(/\{(\w+)\}/g, (_, key) => values[key]) };
}

// A guess as typed or picked: {value} (a number for kind "number", else the option), or {error}
// in the words Python's check_guess uses for the same slip.
export function parseGuess(scene, raw) {
  const text = String(raw ?? "").trim();
  if (!text) return slip(scene.kind === "number" ? "number_first" : "choice_first", text);
  if (scene.kind !== "number") {
    return scene.options.includes(text) ? { value: text } : slip("not_option", text, scene.options);
  }
  const cleaned = text.replace(/−/g, "-").replace(/_/g, "");
  const value = NUMBER.test(cleaned) ? Number(cleaned) : NaN;
  return Number.isFinite(value) ? { value } : slip("not_number", text);
}

// Whether a guess is right: a number inside the range Python sent (quiz_bank right_range: the
// floats within the entry's relative tolerance of the true value, graded once, in Python); a
// choice when it is the true option.
export function isRight(scene, value) {
  if (scene.kind !== "number") return value === scene.actual;
  const [lo, hi] = scene.right_range;
  return value >= lo && value <= hi;
}

// The tolerance in words, said before and after the guess.
export function toleranceWords(tolerance) {
  return tolerance > 0 ? `within ${pyFormat(tolerance * 100, ".3g")} % of the true value counts as right`
    : "only the exact value counts as right";
}

// The word after a number: the singular after exactly 1 ("1 entry", "6 entries").
export function unitAfter(scene, value) {
  return Number(value) === 1 && scene.unit_one ? scene.unit_one : scene.unit || "";
}

function shown(scene, value) {
  const word = scene.kind === "number" ? unitAfter(scene, value) : scene.unit;
  const unit = word ? ` ${escapeHtml(word)}` : "";
  return (scene.kind === "number" ? pyFormat(value, ".6g") : richText(value)) + unit;
}

// How far a number was from the true value, and the rule (nothing for a choice).
export function howFar(scene, value, right) {
  if (scene.kind !== "number") return "";
  const rule = toleranceWords(scene.tolerance);
  if (right || scene.actual === 0) return rule;
  const off = (Math.abs(value - scene.actual) / Math.abs(scene.actual)) * 100;
  return `${pyFormat(off, ".2g")} % ${value > scene.actual ? "above" : "below"} the true value; ${rule}`;
}

// What the page shows: before the lock, the invitation (and the tolerance); after it, the guess
// beside the true value and the feedback.
export function predictReadouts(scene, state) {
  if (scene.actual === null || scene.actual === undefined) {
    return { result: "The true value could not be computed when this cell ran: fix the error and run the cell again.", feedback: "" };
  }
  if (!state.locked) {
    const words = toleranceWords(scene.tolerance);
    const rule = scene.kind === "number" ? ` ${words[0].toUpperCase()}${words.slice(1)}.` : "";
    return { result: `<span class="gk-r-detail">Commit to a guess first: the true value appears only after you lock it in.${rule}</span>`, feedback: "" };
  }
  const { value } = parseGuess(scene, state.guess);
  const right = isRight(scene, value);
  const far = howFar(scene, value, right);
  return {
    result: `${readoutHtml("your guess", shown(scene, value))} &nbsp;·&nbsp; `
      + readoutHtml("true value", shown(scene, scene.actual), far ? `(${far})` : ""),
    feedback: feedbackHtml(right, right ? scene.right : scene.wrong, false),
  };
}

function guessRow(ctx) {
  const { scene, h } = ctx;
  const row = h("div", { class: "gk-control gk-guess-row" });
  const lock = h("button", { class: "gradkit-lock", title: "freeze your guess, then compare", text: "Lock in my guess" });
  let input = null;
  let options = null;
  if (scene.kind === "number") {
    const unit = scene.unit ? ` (${scene.unit})` : "";
    input = h("input", { type: "text", class: "gradkit-guess", inputmode: "decimal", placeholder: "a number",
      "aria-label": `your guess${unit}`, "data-lm-suppress-shortcuts": "true" });
    input.addEventListener("change", () => { if (!ctx.state.locked) ctx.set("guess", input.value); });
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); lock.click(); } });
    row.append(h("span", { class: "gk-label", text: "guess" }), input);
    if (scene.unit) row.append(h("span", { class: "gk-unit", text: scene.unit }));
  } else {
    options = optionButtons(h, scene.options, scene.options.map((_, i) => i), {
      label: "your guess", css: "gradkit-guess", pick: (o) => ctx.set("guess", o) });
    row.append(options.group);
  }
  lock.addEventListener("click", () => {
    const raw = input ? input.value : ctx.state.guess;
    const got = parseGuess(scene, raw);
    if (got.error) { ctx.showError(escapeHtml(got.error)); return; }
    ctx.set("guess", input ? raw : got.value, { also: { locked: true } });
  });
  row.append(lock);
  return { row, input, options, lock };
}

// Whether the rest of the lesson may show: a guess is locked in (or none can be: no true value).
export function gateOpen(scene, state) {
  return !!state.locked || scene.actual === null || scene.actual === undefined;
}

export const UNFOLD_NOTE = "The rest of the lesson opens when you lock in your guess.";

// Close or open the rest of the lesson, and say so beside the guess while it is closed.
function unfold(ctx) {
  const hides = setGate(ctx.el, gateOpen(ctx.scene, ctx.state), { allOpen: !!ctx.scene.open_all });
  ctx.predict.gate.hidden = !hides;
}

export const OPEN_ALL_ASK = "This shows every answer on the page, before any guess.";

// The note, and "Open the whole lesson" (for a teacher, or a second read): it asks first, so that
// a learner's stray click beside "Lock in my guess" gives nothing away.
function gateRow(ctx) {
  const { h } = ctx;
  const open = h("button", { class: "gradkit-open-all", text: "Open the whole lesson",
    title: "show every cell now, without guessing (for a teacher, or a second read)" });
  const sure = h("button", { class: "gradkit-open-all-sure", text: "Show every answer" });
  const keep = h("button", { class: "gradkit-open-all-keep", text: "Keep it closed" });
  const ask = h("span", { class: "gk-open-ask", role: "group", "aria-label": "open the whole lesson?" },
    h("span", { class: "gk-unfold-note", text: OPEN_ALL_ASK }), sure, keep);
  ask.hidden = true;
  const asking = (yes) => { ask.hidden = !yes; open.hidden = yes; (yes ? keep : open).focus(); };
  open.addEventListener("click", () => asking(true));
  keep.addEventListener("click", () => asking(false));
  sure.addEventListener("click", () => { openAll(); unfold(ctx); });
  const row = h("div", { class: "gk-unfold", role: "note" },
    h("span", { class: "gk-unfold-note", text: UNFOLD_NOTE }), open, ask);
  row.hidden = true;
  return row;
}

export const predictView = {
  init(ctx) {
    ctx.predict = guessRow(ctx);
    ctx.predict.gate = gateRow(ctx);
    controlArea(ctx).append(ctx.predict.row, ctx.predict.gate);
    ctx.el.querySelector(".gk-title").innerHTML = richText(ctx.scene.prompt);
  },
  attached(ctx) {
    ctx.predict.forget?.();
    ctx.predict.forget = onOpenAll(() => unfold(ctx));
    unfold(ctx);
  },
  detached(ctx) {
    ctx.predict.forget?.();
    dropGate(ctx.el);
  },
  drawsFrom: ["guess", "locked"],
  size() { return [0, 0]; },
  paint(ctx) {
    const { scene, state } = ctx;
    const { input, options, lock } = ctx.predict;
    const frozen = !!state.locked || scene.actual === null || scene.actual === undefined;
    if (input) {
      if (document.activeElement !== input || state.locked) input.value = state.guess ?? "";
      input.disabled = frozen;
    }
    const right = state.locked ? isRight(scene, parseGuess(scene, state.guess).value) : null;
    if (options) options.sync(state.guess ?? null, right, frozen);
    lock.disabled = frozen;
    lock.textContent = state.locked ? "Locked in" : "Lock in my guess";
    unfold(ctx);
    const drawn = { guess: state.guess ?? null, locked: !!state.locked };
    if (state.locked) Object.assign(drawn, { actual: scene.actual, right });
    return { readouts: predictReadouts(scene, state), drawn };
  },
};
