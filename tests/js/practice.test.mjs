// The practice widgets in the page: the learner's option order, marking and feedback (Quiz), the
// typed guess, the tolerance and the reveal (Predict), ZooHunt's runs and readouts, ExercisePanel's
// readouts; against what Python grades from the same scenes (tools/js_fixtures.py practice_fixture).
import assert from "node:assert/strict";
import { test } from "node:test";

import { feedbackHtml, optionButtons, richText, seededOrder } from "../../gradkit/widgets/practice/feedback.js";
import { quizFeedback, quizOption } from "../../gradkit/widgets/practice/quiz.js";
import {
  RETRY_WORDS, howFar, isRight, parseGuess, percent, predictReadouts, retryOpen, revealed, toleranceWords,
} from "../../gradkit/widgets/practice/predict.js";
import {
  exerciseReadouts, exerciseView, fillWords, huntReadouts, huntResult, huntRun, huntScore, huntView,
} from "../../gradkit/widgets/practice/panel.js";
import { paintAsHost, readFixture } from "./fixture.mjs";

const fixture = readFixture("practice");

// What a reader sees of some HTML: tags dropped, entities decoded, the aria-hidden mark dropped.
function text(html) {
  const entities = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&nbsp;": " " };
  return html.replace(/<span class="gk-mark" aria-hidden="true">.<\/span>\s*/g, "")
    .replace(/<[^>]+>/g, "").replace(/&[a-z#0-9]+;/g, (e) => entities[e] ?? e).replace(/\s+/g, " ").trim();
}

// ------------------------------------------------------------------------------- option order

test("an order is a permutation, the same for the same seed, the given order without one", () => {
  for (const seed of [0, 1, 42, 2 ** 32 - 1]) {
    const order = seededOrder(7, seed);
    assert.deepEqual([...order].sort(), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(seededOrder(7, seed), order);
  }
  assert.deepEqual(seededOrder(4, null), [0, 1, 2, 3]);
  assert.deepEqual(seededOrder(4, undefined), [0, 1, 2, 3]);
  assert.deepEqual(seededOrder(1, 5), [0]);
  assert.deepEqual(seededOrder(5, 1), [4, 2, 1, 0, 3]); // pinned: a learner's order never moves
});

test("the page shows a quiz's options in the order Python says (quiz_bank.seeded_order)", () => {
  for (const q of fixture.quizzes) {
    assert.deepEqual(seededOrder(q.scene.options.length, q.scene.seed), q.order, q.scene.question);
  }
  assert.ok(fixture.quizzes.filter((q) => q.scene.seed !== null).length >= 4);
});

test("learners see the answer in different places, each learner always in the same", () => {
  for (const [id, seeds] of Object.entries(fixture.seeds)) {
    const orders = new Set(seeds.map((s) => seededOrder(4, s).join()));
    assert.ok(orders.size >= 3, `${id}: ${[...orders]}`);
  }
  const firsts = new Set(fixture.quizzes.filter((q) => q.scene.seed !== null)
    .map((q) => seededOrder(q.scene.options.length, q.scene.seed).indexOf(0)));
  assert.ok(firsts.size >= 3, `the answer (sent first) lands at ${[...firsts]}`);
});

// --------------------------------------------------------------------------------- marking

test("the page marks every option as Python reads it, with the option's explanation", () => {
  let checked = 0;
  for (const { scene, answers } of fixture.quizzes) {
    for (const { choice, correct } of answers) {
      const option = quizOption(scene, choice);
      assert.equal(option.right, correct, choice);
      const said = [correct ? "Right." : "Not quite. Try another answer.", option.explanation];
      assert.equal(text(quizFeedback(scene, choice)), said.filter(Boolean).join(" ").replace(/`/g, ""), choice);
      checked += 1;
    }
    assert.equal(quizOption(scene, null), null);
    assert.equal(quizFeedback(scene, null), "");
    assert.equal(scene.options.filter((o) => o.right).length, 1);
  }
  assert.ok(checked >= 20);
});

test("quiz text is escaped, with `backticks` as code", () => {
  assert.equal(richText("Is `x < y` & y > x?"), "Is <code>x &lt; y</code> &amp; y &gt; x?");
  assert.equal(richText(null), "");
  const html = feedbackHtml(false, "That is `float32`.", true);
  assert.match(html, /gk-wrong/);
  assert.match(html, /Not quite\.<\/b> Try another answer\. That is <code>float32<\/code>\./);
  assert.match(feedbackHtml(true, "", true), /gk-right.*Right\.<\/b><\/div>$/);
});

test("option buttons: each a toggle with aria-pressed; only the picked one is marked", () => {
  const made = [];
  const h = (tag, attrs) => {
    const node = { tag, attrs: { ...attrs }, dataset: {}, classes: new Set(), children: [], disabled: false,
      setAttribute(k, v) { this.attrs[k] = v; }, append(c) { this.children.push(c); },
      classList: { toggle(c, on) { if (on) node.classes.add(c); else node.classes.delete(c); } } };
    if (attrs["data-option"]) node.dataset.option = attrs["data-option"];
    made.push(node);
    return node;
  };
  const picked = [];
  const { group, buttons, sync } = optionButtons(h, ["a", "b `c`"], [1, 0], { label: "Q?", css: "gk-x", pick: (o) => picked.push(o) });
  assert.equal(group.attrs.role, "group");
  assert.deepEqual(buttons.map((b) => b.dataset.option), ["b `c`", "a"]);
  assert.equal(buttons[0].innerHTML, "b <code>c</code>");
  buttons[1].attrs.onclick();
  assert.deepEqual(picked, ["a"]);
  sync("a", false);
  assert.deepEqual(buttons.map((b) => b.attrs["aria-pressed"]), ["false", "true"]);
  assert.deepEqual(buttons.map((b) => [...b.classes]), [[], ["gk-wrong"]]);
  sync("b `c`", true, true);
  assert.deepEqual(buttons.map((b) => [...b.classes]), [["gk-right"], []]);
  assert.ok(buttons.every((b) => b.disabled));
});

// --------------------------------------------------------------------------------- predict

test("typed guesses: the same numbers and the same messages as Python", () => {
  for (const { scene, guesses } of fixture.predicts) {
    for (const row of guesses) {
      const got = parseGuess(scene, row.text);
      if ("value" in row) assert.equal(got.value, row.value, JSON.stringify(row.text));
      else assert.equal(got.error, row.error, JSON.stringify(row.text));
    }
  }
});

test("a locked guess is right within the entry's tolerance, as Python grades it", () => {
  let checked = 0;
  for (const { scene, locks } of fixture.predicts) {
    for (const { guess, correct } of locks) {
      assert.equal(isRight(scene, parseGuess(scene, guess).value), correct, `${scene.key} ${guess}`);
      const state = { guess, locked: true };
      const shown = text(predictReadouts(scene, state).feedback);
      const said = retryOpen(scene, state) ? `${RETRY_WORDS.not_yet} `
        : `${correct ? "Right." : "Not quite."} ${(correct ? scene.right : scene.wrong).replace(/`/g, "")}`;
      assert.ok(shown.startsWith(said), `${scene.key} ${guess}: ${shown}`);
      checked += 1;
    }
  }
  assert.ok(checked >= 15);
});

test("the tolerance is said before the guess and beside the true value after it", () => {
  const [slope, calls, , fast] = fixture.predicts.map((p) => p.scene);
  assert.equal(toleranceWords(0.01), "within 1 % of the true value counts as right");
  assert.equal(toleranceWords(0), "only the exact value counts as right");
  const before = text(predictReadouts(slope, { guess: "1", locked: false }).result);
  assert.match(before, /only after you lock it in\. Within 1 % of the true value counts as right\.$/);
  assert.ok(!before.includes("1.01328"), "the true value stays hidden until the lock");
  assert.equal(predictReadouts(slope, { guess: "1", locked: false }).feedback, "");
  assert.equal(howFar(slope, 1.0, false), "1.3 % below the true value; within 1 % of the true value counts as right");
  assert.match(howFar(slope, 1.2, false), /^18 % above the true value/);
  // a wrong guess: which way, never how far, until the second try; then the true value
  assert.equal(text(predictReadouts(slope, { guess: "1", locked: true }).result), "your guess 1");
  assert.ok(!JSON.stringify(predictReadouts(slope, { guess: "1", locked: true })).includes("1.01"));
  const after = text(predictReadouts(slope, { guess: "1", locked: true, second: "1" }).result);
  assert.equal(after, "your guess 1 · true value 1.01328 (1.3 % below the true value; within 1 % of the true value counts as right)");
  assert.equal(text(predictReadouts(calls, { guess: "22", locked: true }).result),
    "your guess 22 calls · true value 22 calls (only the exact value counts as right)");
  assert.match(text(predictReadouts(calls, { guess: "1", locked: true, second: "2" }).result),
    /^your guess 1 call · true value 22 calls /); // the singular after exactly 1
  assert.match(text(predictReadouts(calls, { guess: "22", locked: false }).result), /Only the exact value counts as right\.$/);
  assert.equal(text(predictReadouts(fast, { guess: "fails", locked: true }).result), "your guess fails · true value passes");
  assert.doesNotMatch(text(predictReadouts(fast, { guess: null, locked: false }).result), /counts as right/);
});

test("a distance of 100 % or more is a plain percentage, never 1e+02 %", () => {
  const calls = fixture.predicts[1].scene; // true value 22
  assert.deepEqual([1.33, 18.4, 100, 289.3, 1000].map(percent), ["1.3", "18", "100", "290", "1000"]);
  assert.match(howFar(calls, 44, false), /^100 % above the true value; /);
  assert.match(howFar(calls, 85, false), /^290 % above the true value; /);
  assert.doesNotMatch(howFar(calls, 2222, false), /e\+/);
});

test("a wrong guess gets a hint and one more try before the true value; the first guess keeps the score", () => {
  const [, calls, , fast] = fixture.predicts.map((p) => p.scene);
  const wrong = { guess: "21", locked: true };
  assert.ok(retryOpen(calls, wrong) && !retryOpen(calls, { guess: "22", locked: true }));
  assert.ok(!retryOpen(calls, { guess: "21", locked: false }));
  // before the second try: which way only, no true value, no explanation, the lesson closed
  const hinted = predictReadouts(calls, wrong);
  assert.equal(text(hinted.feedback), `${RETRY_WORDS.not_yet} ${RETRY_WORDS.higher}`);
  assert.ok(!JSON.stringify(hinted).includes("22"), "the true value shows only after the second try");
  assert.equal(text(predictReadouts(calls, { guess: "30", locked: true }).feedback), `${RETRY_WORDS.not_yet} ${RETRY_WORDS.lower}`);
  assert.ok(!revealed(calls, wrong));
  // the second try reveals: the first guess is the one compared and scored
  const second = predictReadouts(calls, { ...wrong, second: "22" });
  assert.ok(revealed(calls, { ...wrong, second: "22" }));
  assert.match(text(second.result), /^your guess 21 calls · true value 22 calls/);
  assert.match(text(second.feedback), new RegExp(`${RETRY_WORDS.right} Your second guess: 22 calls\\. ${RETRY_WORDS.score}$`));
  // a choice of two has no second try: the true value shows at once
  const fastWrong = { guess: "fails", locked: true };
  assert.ok(!retryOpen(fast, fastWrong) && revealed(fast, fastWrong));
  assert.equal(text(predictReadouts(fast, fastWrong).result), "your guess fails · true value passes");
  const right = predictReadouts(calls, { guess: "22", locked: true, second: "21" });
  assert.equal(right.feedback, predictReadouts(calls, { guess: "22", locked: true }).feedback);
});

test("a true value that could not be computed is said, never a verdict", () => {
  const scene = { ...fixture.predicts[0].scene, actual: null };
  const shown = predictReadouts(scene, { guess: "1", locked: true });
  assert.match(shown.result, /could not be computed/);
  assert.equal(shown.feedback, "");
});

// --------------------------------------------------------------------------------- zoo hunt

const SCENE = { specimens: { a: "<pre>A</pre>", b: "<pre>B</pre>" }, prompt: "Run it.", total: 2,
  words: { none: "You ran it without a prediction.", right: "Right: the cause is {cause}.",
    wrong: "Not quite: you predicted {guess}, the cause is {cause}.",
    score: "Score: {right} right at the first try, out of {tried} predicted ({total} Functions in the hunt)." },
  verdicts: {} };
const VERDICTS = { a: { name: "WrongSquareFn", cause: "bug", unmasked: "<p>report A</p>" },
  b: { name: "CubeFn", cause: "pass", unmasked: "<p>report B</p>" } };

// A view's page as host.js gives it: the state, and set (with `also`) as the page's controls use it.
function page(view, scene, state = {}) {
  const ctx = { scene, state: { ...state } };
  ctx.set = (name, value, opts = {}) => { Object.assign(ctx.state, { [name]: value, ...(opts.also || {}) }); };
  ctx.press = (name) => view.press(ctx, name);
  return ctx;
}

test("the hunt shows the specimen picked, its latest result or the invitation, and the score", () => {
  assert.equal(fillWords("a {x} b {y} {z}", { x: 1, y: "two" }), "a 1 b two {z}");
  const scene = { ...SCENE, verdicts: VERDICTS };
  assert.deepEqual(huntReadouts(scene, { entry: "a", runs: {}, first_guesses: {} }),
    { code: "<pre>A</pre>", result: "Run it.", score: "" });
  assert.equal(huntResult(scene, "a", "bug"), "<div class='gk-hunt-verdict gk-good'>Right: the cause is bug.</div><p>report A</p>");
  assert.match(huntResult(scene, "b", "bug"), /gk-bad'>Not quite: you predicted bug, the cause is pass\./);
  assert.match(huntResult(scene, "a", null), /^<div class='gk-hunt-verdict '>You ran it without/);
  assert.equal(huntScore(scene, { a: "bug", b: "bug" }),
    "Score: 1 right at the first try, out of 2 predicted (2 Functions in the hunt).");
  assert.equal(huntScore(scene, { a: null }), "Score: 0 right at the first try, out of 0 predicted (2 Functions in the hunt).");
});

test("a specimen whose code, or a run whose verdict, has not arrived yet waits (null: the busy mark shows)", () => {
  const scene = { ...SCENE, specimens: { a: "<pre>A</pre>" } };
  const painted = (ctx) => paintAsHost(huntView, ctx);
  assert.equal(painted({ scene, state: { entry: "b" } }), null);
  assert.equal(painted({ scene, state: { entry: "a" } }).readouts.code, "<pre>A</pre>");
  const ran = { entry: "a", runs: { a: "bug" }, first_guesses: { a: "bug" } };
  assert.equal(painted({ scene, state: ran }), null); // Python has not sent its verdict yet
  // another specimen shown waits too: the score counts the run whose verdict has not come
  assert.equal(painted({ scene: SCENE, state: { ...ran, entry: "b" } }), null);
  const came = { ...scene, verdicts: { a: VERDICTS.a } };
  assert.match(painted({ scene: came, state: ran }).readouts.result, /Right: the cause is bug/);
});

test("Run gradcheck is page state: the view presses it, runs and first guesses in one change", () => {
  const ctx = page(huntView, SCENE, { entry: "a", prediction: "bug", runs: {}, first_guesses: {} });
  const sets = [];
  const set = ctx.set;
  ctx.set = (name, value, opts) => { sets.push([name, Object.keys(opts.also || {})]); set(name, value, opts); };
  ctx.press("run");
  assert.deepEqual(sets, [["runs", ["first_guesses"]]]);
  assert.deepEqual(ctx.state.runs, { a: "bug" });
  ctx.state.prediction = "pass"; // a second try does not change the first guess
  ctx.press("run");
  Object.assign(ctx.state, { entry: "b", prediction: null });
  ctx.press("run");
  assert.deepEqual(ctx.state.runs, { a: "pass", b: null });
  assert.deepEqual(ctx.state.first_guesses, { a: "bug", b: null }); // b run unpredicted
  assert.deepEqual(huntRun({ entry: "a", runs: { a: "x" } }), { runs: { a: null }, first_guesses: { a: null } });
  const scene = { ...SCENE, verdicts: VERDICTS };
  assert.equal(huntReadouts(scene, ctx.state).score,
    "Score: 1 right at the first try, out of 1 predicted (2 Functions in the hunt).");
  assert.match(huntReadouts(scene, { ...ctx.state, entry: "a" }).result, /you predicted pass, the cause is bug/);
  assert.equal(huntView.find({ scene, state: { entry: "c" } }), null);
  assert.equal(huntView.plays, undefined); // a page with no kernel draws the same way: nothing to play
});

test("the page words every run of Python's and the score from the state and the verdicts sent", () => {
  const { scene, states } = fixture.hunt;
  const shown = states.map((state) => huntReadouts(scene, state));
  const said = [
    [/without a prediction.*report of WrongSquareFn/, 0, 0],
    [/you predicted precision, the cause is bug\..*report of WrongSquareFn/, 0, 0],
    [/Right: the cause is bug\..*report of WrongSquareFn/, 0, 0], // seen before a prediction
    [/Right: the cause is pass\..*report of SquareFn/, 1, 1],
    [/you predicted precision, the cause is pass\./, 1, 1], // the first try keeps the score
  ];
  assert.equal(shown.length, said.length);
  shown.forEach(({ result, score }, k) => {
    assert.match(result, said[k][0], JSON.stringify(states[k]));
    assert.match(score, new RegExp(`^Score: ${said[k][1]} right at the first try, out of ${said[k][2]} predicted \\(2 Functions`));
  });
  // each state is the one the page's press makes from the one before
  const last = states.at(-1);
  assert.deepEqual(huntRun({ ...states.at(-2), prediction: last.prediction }), { runs: last.runs, first_guesses: last.first_guesses });
});

// ------------------------------------------------------------------------------- exercise

test("an exercise shows the hints asked for and the solution at the second ask, one code path", () => {
  const scene = { feedback: "F", hints: ["<div>h1</div>", "<div>h2</div>"], solution: "<pre>code</pre>" };
  assert.deepEqual(exerciseReadouts(scene, {}), { feedback: "F", hints: "", solution: "" });
  assert.equal(exerciseReadouts(scene, { hints_shown: 1 }).hints, "<div>h1</div>");
  assert.equal(exerciseReadouts(scene, { hints_shown: 2 }).hints, "<div>h1</div><div>h2</div>");
  assert.equal(exerciseReadouts(scene, { solution_step: 1 }).solution, "");
  assert.equal(exerciseReadouts(scene, { solution_step: 2 }).solution, "<pre>code</pre>");
  const painted = exerciseView.paint({ scene, state: { hints_shown: 1, solution_step: 2 } });
  assert.deepEqual(painted.readouts, { feedback: "F", hints: "<div>h1</div>", solution: "<pre>code</pre>" });
  assert.equal(exerciseView.press, undefined); // its counters are the page's own buttons
  assert.equal(exerciseView.plays, undefined);
});
