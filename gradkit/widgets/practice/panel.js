// ExercisePanel (exercise.py) and ZooHunt (zoo_hunt.py): the kernel checks the learner's code or
// runs gradcheck and writes the readouts into the scene; the page shows them. ZooHunt's page
// switches specimens itself (every specimen's code is in the scene). On a page with no kernel
// (a static export) the page plays what it was given: an exercise's hints and solution, and the
// hunt's verdicts, saved with the widget (its `offline` trait), in Python's words.
import { escapeHtml } from "../base/format.js";

// A sentence of Python's with its {names} filled in.
export function fillWords(words, values) {
  return String(words || "").replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

// What an exercise shows: the scene's readouts; with no kernel, the hints and the solution as far
// as the learner asked for them (`offline` holds them, as Python writes them), and in place of the
// feedback the export's run gave the starter, why this page cannot check code.
export function exerciseReadouts(scene, state, offline = null) {
  const out = { ...(scene.readouts || {}) };
  if (!offline) return out;
  if (offline.feedback) out.feedback = offline.feedback;
  const k = state.hints_shown || 0;
  if (k > 0) out.hints = (offline.hints || []).slice(0, k).join("");
  if ((state.solution_step || 0) >= 2) out.solution = offline.solution || "";
  return out;
}

// A run of the hunt with no kernel: the saved verdict of the specimen against the guess.
export function huntResult(offline, label, guess) {
  const v = offline.verdicts[label];
  const words = offline.words || {};
  let text = words.none;
  let css = "";
  if (guess !== null && guess !== undefined) {
    const right = guess === v.cause;
    text = fillWords(right ? words.right : words.wrong, { guess, cause: v.cause });
    css = right ? "gk-good" : "gk-bad";
  }
  return `<div class='gk-hunt-verdict ${css}'>${escapeHtml(text)}</div>${v.unmasked}`;
}

// The score with no kernel, from the first tries {zoo name: right, or null for a run before any
// prediction: a guess made after seeing the verdict never scores}.
export function huntScore(offline, firstTries) {
  const tries = Object.values(firstTries).filter((right) => right !== null);
  return fillWords((offline.words || {}).score, {
    right: tries.filter(Boolean).length, tried: tries.length, total: offline.total,
  });
}

// What ZooHunt shows for a state: the specimen's code, its latest result (or the invitation to
// run it) and the score; with no kernel, the runs the page played (state.runs, first_tries).
export function huntReadouts(scene, state, offline = null) {
  const played = offline && offline.verdicts && state.runs && state.entry in state.runs;
  return {
    code: (scene.specimens || {})[state.entry] ?? "",
    result: played ? huntResult(offline, state.entry, state.runs[state.entry])
      : (scene.results || {})[state.entry] ?? scene.prompt ?? "",
    score: offline && offline.verdicts && state.first_tries ? huntScore(offline, state.first_tries)
      : scene.score ?? "",
  };
}

export const exerciseView = {
  // the scene's own key changes with every new readout; with no kernel, what the page played
  drawsFrom: ["hints_shown", "solution_step"],
  size() { return [0, 0]; },
  plays(ctx, name) {
    const d = ctx.offlineData || {};
    return (name === "hint" && (d.hints || []).length > 0) || (name === "solution" && !!d.solution);
  },
  press(ctx, name) {
    const d = ctx.offlineData;
    const words = d.words || {};
    if (name === "hint") {
      const k = Math.min((ctx.state.hints_shown || 0) + 1, d.hints.length);
      if (k === d.hints.length) ctx.setControl("hint", { disabled: true, text: words.no_more });
      ctx.set("hints_shown", k);
    } else if (!ctx.state.solution_step) {
      ctx.setControl("solution", { text: words.confirm }); // asks once more first, as Python does
      ctx.set("solution_step", 1);
    } else {
      ctx.setControl("solution", { disabled: true, text: words.shown });
      ctx.set("solution_step", 2);
    }
  },
  paint(ctx) {
    return { readouts: exerciseReadouts(ctx.scene, ctx.state, ctx.offline ? ctx.offlineData : null), drawn: {} };
  },
};

export const huntView = {
  drawsFrom: ["entry", "runs", "first_tries"],
  size() { return [0, 0]; },
  ready(ctx) { return ctx.state.entry in (ctx.scene.specimens || {}); },
  plays(ctx, name) { return name === "run" && !!(ctx.offlineData || {}).verdicts; },
  press(ctx) {
    const v = ctx.offlineData.verdicts[ctx.state.entry];
    if (!v) return;
    const guess = ctx.state.prediction ?? null;
    const first = { ...(ctx.state.first_tries || {}) };
    if (!(v.name in first)) first[v.name] = guess === null ? null : guess === v.cause;
    ctx.set("runs", { ...(ctx.state.runs || {}), [ctx.state.entry]: guess }, { also: { first_tries: first } });
  },
  paint(ctx) {
    // a specimen whose code has not arrived yet (sent after the first picture): wait, busy
    if (!huntView.ready(ctx)) return null;
    const readouts = huntReadouts(ctx.scene, ctx.state, ctx.offline ? ctx.offlineData : null);
    return { readouts, drawn: { entry: ctx.state.entry } };
  },
};
