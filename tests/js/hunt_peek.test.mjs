// The zoo hunt's score counts only predictions made before the verdict: a run without a prediction
// shows the verdict, so a guess made afterwards for that Function never scores (practice/panel.js,
// the page's own runs: the one copy of the rule; Python keeps what the page sends).
import assert from "node:assert/strict";
import { test } from "node:test";

import { huntScore, huntView } from "../../gradkit/widgets/practice/panel.js";

const SCENE = { total: 2, words: { none: "ran without", right: "Right", wrong: "Not quite",
  score: "{right} right of {tried} predicted ({total})" }, verdicts: {
  a: { name: "WrongSquareFn", cause: "bug", unmasked: "" },
  b: { name: "CubeFn", cause: "pass", unmasked: "" } } };

function page(state) {
  const ctx = {
    state: { ...state },
    set(key, value, { also = {} } = {}) { Object.assign(ctx.state, { [key]: value }, also); },
  };
  return ctx;
}

test("a run before any prediction shows the verdict, and a later guess there never scores", () => {
  const ctx = page({ entry: "a", prediction: null });
  huntView.press(ctx, "run"); // peeked
  ctx.state.prediction = "bug";
  huntView.press(ctx, "run"); // right, but after the verdict
  assert.deepEqual(ctx.state.first_guesses, { a: null });
  assert.equal(huntScore(SCENE, ctx.state.first_guesses), "0 right of 0 predicted (2)");
  Object.assign(ctx.state, { entry: "b", prediction: "pass" });
  huntView.press(ctx, "run");
  assert.equal(huntScore(SCENE, ctx.state.first_guesses), "1 right of 1 predicted (2)");
});
