// Predict (predict.py): the guess is typed or picked and locked in here, then compared with the
// true value Python sent, revealed and explained, with no kernel needed; until then the rest of
// the lesson is out of sight (unfold.js). A wrong guess gets one more try (the value "second")
// after a hint that gives nothing away; the first guess keeps the score.
import { escapeHtml, pyFormat, readoutHtml } from "../base/format.js";
import { feedbackHtml, optionButtons, richText, verdictBox } from "./feedback.js";
import { recalledProgress, rememberProgress } from "./progress.js";
import { dropGate, onOpenAll, openAll, setGate } from "./unfold.js";

// Python's grammar of a typed number (quiz_bank/grading.py NUMBER_PATTERN; trim drops exactly
// its GUESS_SPACES), tested against Python's parsing in practice.json.
const NUMBER = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

export const RETRY_WORDS = {
  not_yet: "Not yet.",
  higher: "The true value is higher than your guess.",
  lower: "The true value is lower than your guess.",
  other: "It is not this one.",
  invite: "One more try; the true value and the rest of the lesson follow it (your first guess keeps the score):",
  button: "Lock in my second try",
  right: "Right on the second try.",
  wrong: "Not on the second try either.",
  score: "The score keeps your first guess.",
};

// A guess as typed or picked: {value} (a number for kind "number", else the option), or {error}:
// the words Python sent for the slip (scene.slips), filled in as its check_guess does.
export function parseGuess(scene, raw) {
  const text = String(raw ?? "").trim();
  const values = { text, options: scene.options.map((o) => `'${o}'`).join(", ") };
  const slip = (name) => ({ error: scene.slips[name].replace(/\{(\w+)\}/g, (_, key) => values[key]) });
  if (!text) return slip(scene.kind === "number" ? "number_first" : "choice_first");
  if (scene.kind !== "number") return scene.options.includes(text) ? { value: text } : slip("not_option");
  const cleaned = text.replace(/−/g, "-").replace(/_/g, "");
  const value = NUMBER.test(cleaned) ? Number(cleaned) : NaN;
  return Number.isFinite(value) ? { value } : slip("not_number");
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

// A guess or the true value as shown, with its unit (the singular after exactly 1: "1 entry").
function shown(scene, value) {
  if (scene.kind !== "number") return richText(value) + (scene.unit ? ` ${escapeHtml(scene.unit)}` : "");
  const word = Number(value) === 1 && scene.unit_one ? scene.unit_one : scene.unit;
  return pyFormat(value, ".6g") + (word ? ` ${escapeHtml(word)}` : "");
}

// How far a number was from the true value, and the rule (nothing for a choice).
export function howFar(scene, value, right) {
  if (scene.kind !== "number") return "";
  const rule = toleranceWords(scene.tolerance);
  if (right || scene.actual === 0) return rule;
  const off = (Math.abs(value - scene.actual) / Math.abs(scene.actual)) * 100;
  return `${percent(off)} % ${value > scene.actual ? "above" : "below"} the true value; ${rule}`;
}

// A percentage to 2 significant digits, written plainly: 1.3, 18, 100, 290 (never 1e+02).
export function percent(value) {
  return String(Number(value.toPrecision(2)));
}

// Whether the second try is open: a wrong first guess is locked in (one may be given, or was),
// where a second try is offered (a number, or a choice of more than two).
export function retryOpen(scene, state) {
  if (!state.locked || scene.actual == null) return false;
  const offered = scene.kind === "number" || scene.options.length > 2;
  return offered && !isRight(scene, parseGuess(scene, state.guess).value);
}

// Whether the true value shows (and the rest of the lesson): after a right guess, a wrong one with
// no second try to come, or the second try.
export function revealed(scene, state) {
  if (scene.actual == null) return true;
  return !!state.locked && (!retryOpen(scene, state) || !!state.second);
}

// What the page shows: before the lock, the invitation (and the tolerance); after it, the guess
// beside the true value and the feedback.
export function predictReadouts(scene, state) {
  if (scene.actual == null) {
    return { result: "The true value could not be computed when this cell ran: fix the error and run the cell again.", feedback: "" };
  }
  if (!state.locked) {
    const words = toleranceWords(scene.tolerance);
    const rule = scene.kind === "number" ? ` ${words[0].toUpperCase()}${words.slice(1)}.` : "";
    return { result: `<span class="gk-r-detail">Commit to a guess first: the true value appears only after you lock it in.${rule}</span>`, feedback: "" };
  }
  const { value } = parseGuess(scene, state.guess);
  if (!revealed(scene, state)) { // the hint before the second try: which way, never how far
    const way = scene.kind !== "number" ? "other" : scene.actual > value ? "higher" : "lower";
    return {
      result: readoutHtml("your guess", shown(scene, value)),
      feedback: `<div class="gk-feedback gk-wrong"><b class="gk-verdict-word">${RETRY_WORDS.not_yet}</b> `
        + `${escapeHtml(RETRY_WORDS[way])}</div>`,
    };
  }
  const right = isRight(scene, value);
  const far = howFar(scene, value, right);
  let feedback = feedbackHtml(right, right ? scene.right : scene.wrong, false);
  if (retryOpen(scene, state)) { // the second try's verdict under the first's, and the score's rule
    const second = parseGuess(scene, state.second).value;
    const ok = isRight(scene, second);
    feedback += verdictBox(ok, ok ? RETRY_WORDS.right : RETRY_WORDS.wrong,
      ` Your second guess: ${shown(scene, second)}. ${RETRY_WORDS.score}`);
  }
  return {
    result: `${readoutHtml("your guess", shown(scene, value))} &nbsp;·&nbsp; `
      + readoutHtml("true value", shown(scene, scene.actual), far ? `(${far})` : ""),
    feedback,
  };
}

// A row to give a guess in: a box (kind "number") or the options, and a lock that, once the guess
// parses (else the page says why), locks it in (`first`: the first guess's row, its value the
// state's guess) or gives the second try. Its parts are set on `parts`.
function guessRow(ctx, first, parts = {}) {
  const { scene, h } = ctx;
  const name = first ? "guess" : "second guess";
  const row = h("div", { class: `gk-control gk-guess-row${first ? "" : " gk-retry-row"}` });
  const lock = first ? h("button", { class: "gradkit-lock", title: "freeze your guess, then compare", text: "Lock in my guess" })
    : h("button", { class: "gradkit-lock-second", text: RETRY_WORDS.button });
  if (!first) row.append(h("span", { class: "gk-label gk-retry-words", text: RETRY_WORDS.invite }));
  const css = first ? "gradkit-guess" : "gradkit-second-guess";
  if (scene.kind === "number") {
    const unit = first && scene.unit ? ` (${scene.unit})` : "";
    const input = h("input", { type: "text", class: css, inputmode: "decimal", placeholder: "a number",
      "aria-label": `your ${name}${unit}`, "data-lm-suppress-shortcuts": "true" });
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); lock.click(); } });
    if (first) {
      input.addEventListener("change", () => { if (!ctx.state.locked) ctx.set("guess", input.value); });
      row.append(h("span", { class: "gk-label", text: "guess" }));
    }
    row.append(input);
    if (unit) row.append(h("span", { class: "gk-unit", text: scene.unit }));
    parts.input = input;
  } else {
    const pick = (o) => (first ? ctx.set("guess", o) : parts.options.sync((parts.picked = o)));
    parts.options = optionButtons(h, scene.options, scene.options.map((_, i) => i), { label: `your ${name}`, css, pick });
    row.append(parts.options.group);
  }
  lock.addEventListener("click", () => {
    const raw = parts.input ? parts.input.value : first ? ctx.state.guess : parts.picked;
    const got = parseGuess(scene, raw);
    const typed = scene.kind === "number";
    if (got.error) ctx.showError(escapeHtml(got.error));
    else if (first) ctx.set("guess", typed ? raw : got.value, { also: { locked: true } });
    else ctx.set("second", typed ? raw.trim() : got.value);
  });
  row.append(lock);
  return Object.assign(parts, { row, lock });
}

export const UNFOLD_NOTE = "The rest of the lesson opens when you lock in your guess.";
export const UNFOLD_NOTE_SECOND = "The rest of the lesson opens after your second try.";

// Close or open the rest of the lesson, and say so beside the guess while it is closed.
function unfold(ctx) {
  // the rest of the lesson shows with the true value (or when none can show)
  const hides = setGate(ctx.el, revealed(ctx.scene, ctx.state), { allOpen: !!ctx.scene.open_all });
  ctx.predict.gate.hidden = !hides;
  ctx.predict.note.textContent = ctx.state.locked ? UNFOLD_NOTE_SECOND : UNFOLD_NOTE;
}

export const OPEN_ALL_ASK = "This shows every answer on the page, before any guess.";

// The note, and "Open the whole lesson" (for a teacher, or a second read): it asks first, so that
// a learner's stray click beside "Lock in my guess" gives nothing away.
function gateRow(ctx) {
  const { h } = ctx;
  const asking = (yes) => { ask.hidden = !yes; open.hidden = yes; (yes ? keep : open).focus(); };
  const open = h("button", { class: "gradkit-open-all", text: "Open the whole lesson",
    title: "show every cell now, without guessing (for a teacher, or a second read)", onclick: () => asking(true) });
  const sure = h("button", { class: "gradkit-open-all-sure", text: "Show every answer",
    onclick: () => { openAll(); unfold(ctx); } });
  const keep = h("button", { class: "gradkit-open-all-keep", text: "Keep it closed", onclick: () => asking(false) });
  const ask = h("span", { class: "gk-open-ask", role: "group", "aria-label": "open the whole lesson?", hidden: true },
    h("span", { class: "gk-unfold-note", text: OPEN_ALL_ASK }), sure, keep);
  ctx.predict.note = h("span", { class: "gk-unfold-note", text: UNFOLD_NOTE });
  return h("div", { class: "gk-unfold", role: "note", hidden: true }, ctx.predict.note, open, ask);
}

// The values that lock a fresh Predict as the learner left it before a reload (progress.js), or
// null: a kept guess this Predict can read, and a second try only where one may be given.
export function recalledLock(scene, state, kept) {
  if (!kept || state.locked || scene.actual == null) return null;
  if (parseGuess(scene, kept.guess).error) return null;
  const values = { guess: kept.guess, locked: true };
  const after = { ...state, ...values };
  if (kept.second && retryOpen(scene, after) && !parseGuess(scene, kept.second).error) {
    values.second = kept.second;
  }
  return values;
}

// Show a guess row's value, whether it is right (null: not judged) and whether it is frozen.
function paintRow(parts, value, right, frozen) {
  if (parts.input) {
    if (frozen || document.activeElement !== parts.input) parts.input.value = value ?? "";
    parts.input.disabled = frozen;
  }
  if (parts.options) parts.options.sync(value ?? null, right, frozen);
  parts.lock.disabled = frozen;
}

// The second try's row shows after a wrong first guess, built then (until then the widget holds
// one set of options only) before the note on the rest of the lesson, and freezes once given.
function paintRetry(ctx) {
  const { scene, state, predict } = ctx;
  const { retry } = predict;
  const open = retryOpen(scene, state);
  if (retry.row) retry.row.hidden = !open;
  if (!open) return;
  if (!retry.row) predict.gate.before(guessRow(ctx, false, retry).row);
  const given = !!state.second;
  const value = given ? state.second : retry.input ? retry.input.value : retry.picked;
  paintRow(retry, value, given ? isRight(scene, state.second) : null, given);
}

export const predictView = {
  init(ctx) {
    ctx.predict = guessRow(ctx, true);
    ctx.predict.gate = gateRow(ctx);
    ctx.predict.retry = { row: null, picked: null };
    ctx.controls.append(ctx.predict.row, ctx.predict.gate);
    ctx.title.innerHTML = richText(ctx.scene.prompt);
  },
  attached(ctx) {
    ctx.predict.forget?.();
    ctx.predict.forget = onOpenAll(() => unfold(ctx));
    const kept = recalledLock(ctx.scene, ctx.state, recalledProgress(ctx.scene.entry));
    if (kept) ctx.set("guess", kept.guess, { also: kept });
    unfold(ctx);
  },
  detached(ctx) {
    ctx.predict.forget?.();
    dropGate(ctx.el);
  },
  drawsFrom: ["guess", "locked", "second"],
  paint(ctx) {
    const { scene, state } = ctx;
    const frozen = !!state.locked || scene.actual == null;
    const right = state.locked ? isRight(scene, parseGuess(scene, state.guess).value) : null;
    paintRow(ctx.predict, state.guess, right, frozen);
    ctx.predict.lock.textContent = state.locked ? "Locked in" : "Lock in my guess";
    paintRetry(ctx);
    unfold(ctx);
    if (state.locked) rememberProgress(scene.entry, state);
    const drawn = { guess: state.guess ?? null, locked: !!state.locked };
    if (revealed(scene, state) && state.locked) Object.assign(drawn, { actual: scene.actual, right });
    if (state.second) drawn.second = state.second;
    return { readouts: predictReadouts(scene, state), drawn };
  },
};
