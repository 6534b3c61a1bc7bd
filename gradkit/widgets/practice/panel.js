// ExercisePanel (exercise.py) and ZooHunt (zoo_hunt.py), drawn from the state and the scene by
// one code path, with a kernel or without: hints, the solution and a hunt's runs are page state;
// the scene brings the hints, the solution and the verdict of each specimen run, with its words.
import { escapeHtml } from "../base/format.js";

// A sentence of Python's with its {names} filled in.
export function fillWords(words, values) {
  return String(words || "").replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

// What an exercise shows: the feedback Python wrote, the first state.hints_shown hints, and the
// solution once asked for twice (state.solution_step 2).
export function exerciseReadouts(scene, state) {
  const shown = Math.max(0, Number(state.hints_shown) || 0);
  return {
    feedback: scene.feedback ?? "",
    hints: (scene.hints || []).slice(0, shown).join(""),
    solution: (state.solution_step || 0) >= 2 ? scene.solution ?? "" : "",
  };
}

// A run of the hunt: the verdict of specimen `label` (scene.verdicts) against the guess it was
// run with.
export function huntResult(scene, label, guess) {
  const v = scene.verdicts[label];
  const words = scene.words || {};
  const right = guess === v.cause;
  const [text, css] = guess == null ? [words.none, ""]
    : [fillWords(right ? words.right : words.wrong, { guess, cause: v.cause }), right ? "gk-good" : "gk-bad"];
  return `<div class='gk-hunt-verdict ${css}'>${escapeHtml(text)}</div>${v.unmasked}`;
}

// The score, from the first runs {label: the prediction then, or null for a run before any
// prediction: a guess made after seeing the verdict never scores}; empty before any run.
export function huntScore(scene, firstGuesses) {
  const firsts = Object.entries(firstGuesses || {});
  if (!firsts.length) return "";
  const tried = firsts.filter(([, guess]) => guess !== null && guess !== undefined);
  const right = tried.filter(([label, guess]) => guess === (scene.verdicts[label] || {}).cause);
  return fillWords((scene.words || {}).score, { right: right.length, tried: tried.length, total: scene.total });
}

// What a run makes of the state: runs[entry] the prediction now, first_guesses[entry] the one
// at its first run.
export function huntRun(state) {
  const guess = state.prediction ?? null;
  const firsts = { ...(state.first_guesses || {}) };
  if (!(state.entry in firsts)) firsts[state.entry] = guess;
  return { runs: { ...(state.runs || {}), [state.entry]: guess }, first_guesses: firsts };
}

// What ZooHunt shows for a state: the specimen's code, its latest result (or the invitation to
// run it) and the score; null while the verdict of a run has not come (the busy mark shows).
export function huntReadouts(scene, state) {
  const runs = state.runs || {};
  const verdicts = scene.verdicts || {};
  if (Object.keys(runs).some((label) => !(label in verdicts))) return null;
  return {
    code: (scene.specimens || {})[state.entry] ?? "",
    result: state.entry in runs ? huntResult(scene, state.entry, runs[state.entry]) : scene.prompt ?? "",
    score: huntScore(scene, state.first_guesses),
  };
}

export const exerciseView = {
  // the scene's own key changes with every new feedback
  drawsFrom: ["hints_shown", "solution_step"],
  paint(ctx) {
    const { hints_shown: hints = 0, solution_step: solution = 0 } = ctx.state;
    return { readouts: exerciseReadouts(ctx.scene, ctx.state), drawn: { hints_shown: hints, solution_step: solution } };
  },
};

export const huntView = {
  drawsFrom: ["entry", "runs", "first_guesses"],
  // the readouts, or null while the specimen's code (sent after the first picture) or a run's
  // verdict has not come: wait, busy
  find(ctx) {
    return ctx.state.entry in (ctx.scene.specimens || {}) ? huntReadouts(ctx.scene, ctx.state) : null;
  },
  // Run gradcheck (by_page): the run is page state; the verdict comes in the scene
  press(ctx) {
    const { runs, first_guesses: firsts } = huntRun(ctx.state);
    ctx.set("runs", runs, { also: { first_guesses: firsts } });
  },
  paint: (ctx, readouts) => ({ readouts, drawn: { entry: ctx.state.entry } }),
};
