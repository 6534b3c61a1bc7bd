// EpsilonLab's lookups, limits and wording, against scenes Python sent (tools/js_fixtures.py):
// the page finds gradkit.sweep's numbers for every state, says gradcheck's verdict as the numbers
// give it, and never quotes a theory number far outside the eps range (issue 19 #16).
import assert from "node:assert/strict";
import { test } from "node:test";

import { buttonLook, buttonPress, buttonText } from "../../gradkit/widgets/base/controls.js";
import { EPS_GRID, epsState } from "../../gradkit/widgets/base/eps.js";
import { viewKey } from "../../gradkit/widgets/base/host.js";
import { pointSlot } from "../../gradkit/widgets/base/tables.js";
import { makePainter } from "../../gradkit/widgets/base/plot.js";
import {
  LAB_LAYOUT, curveOrder, dtypeSwatch, epsilonView, labParts, shelfRun,
} from "../../gradkit/widgets/epsilon/epsilon.js";
import {
  errorLimits, errorText, labFound, labReadouts, noSlopeLines, optimumInRange, theoryText, verdictText,
} from "../../gradkit/widgets/epsilon/words.js";
import { answerOf, named, paintAsHost, readFixture, stateOf as rowState, tablesOf } from "./fixture.mjs";

const fixture = readFixture("epsilon");
const num = (v) => (typeof v === "string" ? Number(v.replace("inf", "Infinity")) : v);
const text = (html) => html.replace(/<[^>]+>/g, " ").replace(/&nbsp;/g, " ").replace(/\s+/g, " ").replace(/ ([,.;:)])/g, "$1").trim();
const ALL = ["curves", "theory", "table"];

// A scene as the tests read it: its tables decoded, each state whole, sweep's numbers by name.
function sceneOf(name) {
  const sc = fixture[name];
  const states = sc.states.map((row) => ({ state: rowState(sc, row), want: named(sc.want_fields, row.want) }));
  return { ...sc, tables: tablesOf(sc), states };
}

function stateOf(sc, changes) {
  return { ...sc.state, ...changes };
}

test("the page finds gradkit.sweep's error and flags for every dtype, scheme and eps", () => {
  let checked = 0;
  for (const name of ["main", "zero"]) {
    const sc = sceneOf(name);
    for (const { state, want } of sc.states) {
      const found = labFound(sc.scene, sc.tables, null, state, sc.x_value);
      const r = found.at[found.d];
      const where = `${name} ${state.dtype} ${state.scheme} eps ${EPS_GRID[state.eps]}`;
      assert.ok(Object.is(r.error, num(want.error)), `${where}: ${r.error} vs ${want.error}`);
      assert.equal(r.underflow > 0, want.underflow === 1, where);
      assert.equal(r.collapsed > 0, want.collapsed === 1, where);
      assert.equal(r.passes > 0, want.passes === 1, where);
      checked += 1;
    }
  }
  assert.equal(checked, 2 * 2 * 4 * 4);
});

test("the error axes fit every error of both schemes and the tolerance", () => {
  const sc = sceneOf("main");
  const found = labFound(sc.scene, sc.tables, null, sc.states[0].state, sc.x_value);
  assert.deepEqual(errorLimits(sc.tables, found.w, found.point.tolerance), sc.limits);
});

test("a typed eps off the grid reads the kernel's answer, and waits for it", () => {
  const sc = sceneOf("main");
  const state = stateOf(sc, { ...epsState(3e-7), scheme: "forward", dtype: "float64" });
  const found = labFound(sc.scene, sc.tables, answerOf(sc), state, sc.x_value);
  assert.equal(found.eps, 3e-7);
  assert.ok(Object.is(found.at[found.d].error, num(sc.exact_want.forward.float64)));
  assert.ok(Object.is(found.at[1].error, num(sc.exact_want.forward.float32)));
  assert.equal(labFound(sc.scene, sc.tables, null, state, sc.x_value), null); // not come yet: the page waits
  assert.equal(labFound(sc.scene, sc.tables, answerOf(sc), { ...state, x: 1 }, 0.55), null); // beyond the window
  assert.equal(pointSlot(sc.scene, sc.tables, null, { ...state, x: 0 }).w, 0); // x's position: the window's first
  assert.equal(pointSlot(sc.scene, sc.tables, null, { ...state, x: 1 }), null);
  assert.equal(pointSlot(sc.scene, sc.tables, null, state).from, null); // the typed eps's answer: not come yet
});

test("at gradcheck's eps float32 fails 13 times over the tolerance and float64 passes", () => {
  const sc = sceneOf("main");
  const state = stateOf(sc, { ...epsState(1e-6), scheme: "central", dtype: "float32" });
  const out = labReadouts(sc.scene, state, labFound(sc.scene, sc.tables, null, state, sc.x_value), ALL);
  assert.match(text(out.error), /^float32 error at this eps 9\.96e-03 13\.1 × the tolerance 0\.00076: gradcheck fails$/);
  assert.equal(text(out.tolerance), "gradcheck tolerance 0.00076 = atol + rtol·|f′(x)| = 1e-05 + 0.001·0.75");
  assert.equal(text(out.eps), "eps 1e-06 = 0.000001");
  assert.match(text(out.optimal), /^best eps for float32 0\.002 the smallest error on this lab's eps grid \(4e-07\); theory 0\.0016 \(error ≈ 7e-06\)$/);
  assert.match(text(out.table), /^at eps = 1e-06, against the tolerance 0\.00076: float64 6\.19e-12 passes u = 1e-16 float32 9\.96e-03 fails/);
  assert.match(out.table, /<tr style='font-weight:bold'><td>float32/);
  const two = labReadouts(sc.scene, { ...state, shown: ["float64", "float32"] }, labFound(sc.scene, sc.tables, null, state, sc.x_value), ALL);
  assert.doesNotMatch(text(two.table), /float16/);
  const closed = labReadouts(sc.scene, state, labFound(sc.scene, sc.tables, null, state, sc.x_value), ["curves"]);
  assert.equal(closed.optimal, "");
  assert.equal(closed.table, "");
});

test("errors and verdicts: no slope, x ± eps on x, NaN, pass and fail", () => {
  assert.equal(errorText({ underflow: 1, error: NaN }), "no slope (eps rounds to 0)");
  assert.equal(errorText({ underflow: 0, collapsed: 1, error: 0.75 }), "7.50e-01 (x ± eps round to x: slope 0)");
  assert.equal(verdictText({ underflow: 1 }, 1e-3), "gradcheck could not measure a slope");
  assert.match(verdictText({ underflow: 0, error: NaN }, 1e-3), /no measurement/);
  assert.equal(verdictText({ underflow: 0, error: 1e-4, passes: 1 }, 7.6e-4), "within the tolerance 0.00076: gradcheck passes");
  assert.equal(verdictText({ underflow: 0, error: 0.75, passes: 0 }, 7.5e-4), "1e+03 × the tolerance 0.00075: gradcheck fails");
});

test("issue 19 #16: at x = 0 theory's best eps is said to be off the scale, never as 8.7e-106", () => {
  const sc = sceneOf("zero");
  for (const dtype of ["float32", "float16", "bfloat16", "float64"]) {
    const state = stateOf(sc, { ...epsState(1e-6), scheme: "central", dtype });
    const found = labFound(sc.scene, sc.tables, null, state, sc.x_value);
    const optimal = text(labReadouts(sc.scene, state, found, ALL).optimal);
    assert.match(optimal, /theory: below 1e-12, off this scale: f\(x\) = 0/, optimal);
    const theory = optimal.slice(optimal.indexOf("theory"));
    assert.doesNotMatch(theory, /e-(1[3-9]|[2-9]\d|\d{3})/, theory); // nothing below the eps range
    assert.equal(optimumInRange(found.optima[found.d]), false); // no star drawn
  }
  assert.equal(theoryText({ optimal_eps: Infinity, optimal_error: NaN }, 1), "theory: no best eps (no truncation error here, larger is better)");
  assert.equal(theoryText({ optimal_eps: 3, optimal_error: 1 }, 1), "theory: above 1, off this scale");
  assert.equal(theoryText({ optimal_eps: 1.56e-3, optimal_error: 6.6e-6 }, 0.125), "theory 0.0016 (error ≈ 7e-06)");
});

test("where f has no slope the page says why, with no numbers to draw", () => {
  const sc = sceneOf("log");
  const state = sc.state ?? { function: "log(x)", x: 0, eps: 18, eps_exact: 3e-7,
    dtype: "float32", scheme: "central", shown: sc.scene.dtypes, theory: true };
  const found = labFound(sc.scene, sc.tables, null, state, sc.x_value);
  assert.ok(found.noSlope && found.at === null);
  const out = labReadouts(sc.scene, state, found, ALL);
  assert.equal(text(out.error), "f(x) = log(x) is NaN at x = -1 (outside its domain, or too large for float64), so there is no slope to measure; move x to a positive number");
  assert.equal(out.table, "");
  assert.deepEqual(noSlopeLines("log(x)", -1, found.point), ["f(x) = log(x) is NaN at x = -1", "no slope to measure here: move x"]);
  assert.equal(noSlopeLines("sqrt", 0, { fx: 0, analytic: Infinity })[0], "the slope of sqrt is ∞ at x = 0");
});

test("panels choose the parts, the theory switch hides the lines, the key names each state", () => {
  const ctx = (panels, theory = true) => ({ panels: () => panels, state: { theory } });
  assert.deepEqual(labParts(ctx(ALL)), { curves: true, theory: true, picture: true });
  assert.deepEqual(labParts(ctx(ALL, false)), { curves: true, theory: false, picture: true });
  assert.deepEqual(labParts(ctx(["table"])), { curves: false, theory: false, picture: false });
  assert.deepEqual(labParts(ctx(["theory"])), { curves: false, theory: true, picture: true });
  assert.deepEqual(epsilonView.layout(ctx(["table"]), {}).size, [860, 0]); // no picture
  assert.deepEqual(epsilonView.layout(ctx(["curves"]), { noSlope: true }).size, LAB_LAYOUT.sizes.plain); // no strip
  const base = { panels: () => ALL, state: { function: "x³", x: 0.5, eps: 18, eps_exact: null, dtype: "float32",
    scheme: "central", theory: true, shown: ["float64"] } };
  const keys = new Set([base, { ...base, state: { ...base.state, shown: ["float64", "float16"] } },
    { ...base, state: { ...base.state, theory: false } }, { ...base, panels: () => ["table"] }].map((c) => viewKey(epsilonView, c)));
  assert.equal(keys.size, 4);
  // a state key the picture does not use (another widget's, or the page's seq) repaints nothing
  assert.equal(viewKey(epsilonView, { ...base, state: { ...base.state, __seq: 7 } }), viewKey(epsilonView, base));
});

test("the picture's parts do not overlap: axes, x labels, strip and legend", () => {
  const [l, t, w, h] = LAB_LAYOUT.main;
  const [sl, st, sw, sh] = LAB_LAYOUT.strip;
  const [W, H] = LAB_LAYOUT.sizes.strip;
  assert.equal(sl, l);
  assert.equal(sw, w);
  assert.ok(t + h + 40 <= st - 14, "the x label sits between the axes and the strip's title");
  assert.ok(st + sh + 10 <= H);
  assert.ok(LAB_LAYOUT.legend[0] > l + w + 8 && LAB_LAYOUT.legend[0] + 200 <= W);
  assert.ok(t + h + 40 <= LAB_LAYOUT.sizes.plain[1]);
});

test("the strip below the plot appears only when a shown dtype has something to mark", () => {
  const sc = sceneOf("main");
  const ctxOf = (shown) => ({ panels: () => ALL, scene: sc.scene, tables: sc.tables, exact: null,
    state: stateOf(sc, { shown, dtype: shown[0] }), value: () => sc.x_value });
  const sizeOf = (shown) => epsilonView.layout(ctxOf(shown), epsilonView.find(ctxOf(shown))).size;
  assert.deepEqual(sizeOf(["float64", "float32"]), LAB_LAYOUT.sizes.plain);
  assert.deepEqual(sizeOf(["float16", "float64"]), LAB_LAYOUT.sizes.strip);
  // and the strip is drawn where it was laid out, nowhere else
  const stripOf = (shown) => paintOf(sc, { shown, dtype: shown[0] }).strip;
  assert.deepEqual(stripOf(["float64", "float32"]), {});
  assert.deepEqual(Object.keys(stripOf(["float16", "float64"])), ["float64", "float16"]);
});

// ------------------------------------------------------------------ the curves as drawn
const canvas = new Proxy({}, { get: (t, k) => (k === "measureText" ? (s) => ({ width: 6 * String(s).length }) : () => {}), set: () => true });
globalThis.document ??= { createTextNode: (text) => ({ text }) };
const node = () => ({ style: {}, dataset: {}, append() {}, innerHTML: "" });
function paintOf(sc, changes) {
  const state = stateOf(sc, changes);
  const ctx = { scene: sc.scene, tables: sc.tables, exact: null, state, value: () => sc.x_value, painter: makePainter(canvas), h: node,
    legend: node(), showLegend() {}, panels: () => ALL, set() {}, drawn: {} };
  return paintAsHost(epsilonView, ctx).drawn;
}

test("the highlighted curve is drawn first and widest: every other curve stays visible on it", () => {
  const order = curveOrder(["float64", "float32", "float16"], "float32");
  assert.deepEqual(order.map(([n]) => n), ["float32", "float64", "float16"]);
  assert.ok(order.slice(1).every(([, lw, ms]) => lw < order[0][1] && ms < order[0][2] && lw >= 1.8));
  const sc = sceneOf("main");
  const drawn = paintOf(sc, { ...epsState(1e-6), dtype: "float32" });
  assert.equal(drawn.order[0], "float32");
  assert.deepEqual([...drawn.order].sort(), [...sc.scene.dtypes].sort());
});

test("each dtype's legend swatch differs by dash and marker, not by hue alone", () => {
  const sc = sceneOf("main");
  const looks = sc.scene.dtypes.map((n) => dtypeSwatch(sc.scene.styles[n], "#000000", false));
  assert.equal(new Set(looks.map((l) => l.glyph)).size, looks.length);
  // the curve's own dash pattern: solid for float64 and float32 (their markers differ), dashed
  // and dash-dotted for the half precisions
  const dashes = sc.scene.dtypes.map((n) => sc.scene.styles[n][2]);
  assert.equal(new Set(looks.map((l) => l.background)).size, new Set(dashes).size);
  looks.forEach((l, k) => assert.equal(l.background === "#000000", dashes[k] === "-"));
  assert.equal(dtypeSwatch(sc.scene.styles.float32, "#000000", true).height, "4px");
});

test("the shelf where x ± eps round to x (slope 0) is found and labelled", () => {
  assert.deepEqual(shelfRun([true, true, true, false, true, true, true, true]), [4, 7]);
  assert.deepEqual(shelfRun([true, true, false, true]), null); // two steps are no shelf
  assert.deepEqual(shelfRun([false, true, true, true, false]), [1, 3]);
  const sc = sceneOf("main"); // x³ at 0.5: float32's x ± eps land on x below about 3e-8
  const drawn = paintOf(sc, { ...epsState(1e-6), dtype: "float32", shown: ["float64", "float32"] });
  assert.equal(drawn.shelf.dtype, "float32");
  assert.equal(drawn.shelf.eps[0], EPS_GRID[0]);
  assert.ok(drawn.shelf.eps[1] >= 1e-8 && drawn.shelf.eps[1] < 1e-7, String(drawn.shelf.eps));
  assert.equal(drawn.shelf.error, 0.75); // |f′(x)|: the numeric slope is exactly 0
  assert.equal(drawn.shelf.label, "float32: x ± eps round to x, slope 0"); // whose shelf it is
  assert.equal(paintOf(sc, { ...epsState(1e-6), dtype: "float64", shown: ["float64"] }).shelf, undefined);
});

test("the half-precision button is a toggle: pressed again it hides them, the highlight moves back", () => {
  const all = ["float64", "float32", "float16", "bfloat16"];
  const spec = { set: ["shown", all], unset: [["float64", "float32"], { dtype: "float32" }] };
  const first = { shown: ["float64", "float32"], dtype: "float64" };
  assert.deepEqual(buttonLook(spec, first), { hidden: false, pressed: false });
  const show = buttonPress(spec, first);
  assert.deepEqual(show, { key: "shown", value: all, also: {} });
  const shown = { ...first, shown: all, dtype: "float16" };
  assert.deepEqual(buttonLook(spec, shown), { hidden: false, pressed: true });
  assert.deepEqual(buttonPress(spec, shown), { key: "shown", value: ["float64", "float32"], also: { dtype: "float32" } });
  assert.deepEqual(buttonPress(spec, { ...shown, dtype: "float64" }).also, {}); // a shown highlight stays
  // a plain set-button (no unset) still hides once its state holds, with no aria-pressed
  const plain = { set: spec.set };
  assert.deepEqual(buttonLook(plain, shown), { hidden: true, pressed: null });
  assert.deepEqual(buttonPress(plain, shown).value, all);
  // its label says what a press does: show them, then hide them again
  const labelled = { ...spec, text: "show float16 and bfloat16", pressed_text: "hide float16 and bfloat16" };
  assert.equal(buttonText(labelled, first), "show float16 and bfloat16");
  assert.equal(buttonText(labelled, shown), "hide float16 and bfloat16");
  assert.equal(buttonText(labelled, shown, { text: "greyed" }), "greyed");
});
