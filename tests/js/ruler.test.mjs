// FloatRuler's lookups, ticks and wording, against scenes Python sent (tools/js_fixtures.py):
// the numbers the page finds are torch's, the ticks are the representable numbers, and the words
// say what happened (also where x overflows: never "NaN ulps" or "exactly 0").
import assert from "node:assert/strict";
import { test } from "node:test";

import { epsState } from "../../gradkit/widgets/base/eps.js";
import { Axes } from "../../gradkit/widgets/base/plot.js";
import {
  RULER_LAYOUT, landed, pyRepr, rulerFound, rulerReadouts, tickSegments, ulpsText, viewTicks, zoomTicks,
} from "../../gradkit/widgets/ruler/ruler.js";
import { answerOf, named, readFixture, stateOf, tablesOf } from "./fixture.mjs";

const fixture = readFixture("ruler");
const num = (v) => (typeof v === "string" ? Number(v.replace("inf", "Infinity")) : v);
const text = (html) => html.replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ").replace(/\s+/g, " ").trim();

// A scene as the tests read it: its tables decoded, each state whole, torch's ruler by name.
function sceneOf(name) {
  const sc = fixture[name];
  const states = sc.states.map((row) => ({ ...row, state: stateOf(sc, row), ruler: named(sc.ruler_fields, row.ruler) }));
  return { ...sc, tables: tablesOf(sc), states };
}

function find(name, dtype, eps) {
  const sc = sceneOf(name);
  const row = sc.states.find((s) => s.state.dtype === dtype && s.state.eps === epsState(eps).eps);
  return { sc, row, r: rulerFound(sc.scene, sc.tables, null, row.state, sc.x_value) };
}

test("the page finds torch's numbers and flags for every dtype and eps", () => {
  let checked = 0;
  for (const name of Object.keys(fixture)) {
    const sc = sceneOf(name);
    for (const { state, ruler } of sc.states) {
      const r = rulerFound(sc.scene, sc.tables, {}, state, sc.x_value);
      const where = `${name} ${JSON.stringify(state)}`;
      assert.ok(r, where);
      for (const [name, want] of Object.entries(ruler)) {
        assert.ok(Object.is(r[name], num(want)), `${where}: ${name} ${r[name]} vs ${want}`);
      }
      checked += 1;
    }
  }
  assert.equal(checked, 4 * 4 * 5);
});

test("the landing panel draws the representable numbers torch walks to, or none when too dense", () => {
  let drawn = 0;
  for (const name of Object.keys(fixture)) {
    const sc = sceneOf(name);
    for (const { state, ticks } of sc.states) {
      const got = viewTicks(rulerFound(sc.scene, sc.tables, {}, state, sc.x_value), sc.scene.view);
      if (ticks === null) { assert.equal(got, null, `${name} ${JSON.stringify(state)}`); continue; }
      assert.equal(got.length, ticks.length, `${name} ${JSON.stringify(state)}`);
      got.forEach((t, i) => assert.ok(Math.abs(t - ticks[i]) <= 1e-12 * Math.max(1, Math.abs(t)), `${t} vs ${ticks[i]}`));
      drawn += 1;
    }
  }
  assert.ok(drawn >= 10, `only ${drawn} states drew ticks`);
});

test("the spacing panel: 8 ulps either side, twice as dense just below a power of two", () => {
  const { r } = find("half", "float32", 1e-6);
  const ticks = zoomTicks(r, 8);
  assert.equal(ticks.filter((t) => t > 0).length, 8);
  assert.equal(ticks.filter((t) => t < 0).length, 16);
  assert.ok(ticks.includes(-0.5));
  const { ulps } = landed(r);
  assert.equal(ulps[1], 17); // x + eps lands 17 ulps above x
  const tenth = find("tenth", "float32", 1e-6).r;
  assert.equal(zoomTicks(tenth, 8).length, 17);
});

test("readouts at the defaults: eps in ulps, where x ± eps land, the real nudge", () => {
  const out = rulerReadouts(find("half", "float32", 1e-6).r);
  assert.equal(text(out.x), "x 0.5 stored exactly in float32");
  assert.match(text(out.ulp), /^spacing \(ulp\) at x 5\.96e-08 = 0\.0000000596046447753906\d*; eps is 16\.8 ulps; just below x it is 2\.98e-08 \(x is a power of two: below it the numbers sit twice as close\)$/);
  assert.equal(text(out.landing), "x − eps → 0.4999989867210388 x + eps → 0.5000010132789612 (17 ulps above x)");
  assert.match(text(out.step), /^the nudge that really happened 1\.013e-06 .* \(1\.013 × 2·eps\)$/);
  assert.equal(text(out.collapse), "x − eps, x and x + eps are three different float32 numbers.");
  assert.equal(text(rulerReadouts(find("tenth", "float16", 1e-3).r).x), "x 0.1 stored as 0.0999755859375 in float16");
});

test("collapse, one side only, and eps rounding to 0 are each said", () => {
  assert.match(text(rulerReadouts(find("half", "float16", 1e-6).r).collapse), /both land on x.*exactly 0/);
  assert.match(text(rulerReadouts(find("half", "float16", 1e-12).r).collapse), /rounds to 0, so \(f\(x\) − f\(x\)\) \/ 0 is 0\/0 = NaN/);
  assert.match(text(rulerReadouts(find("half", "float16", 1e-12).r).landing), /no nudge eps = 1e-12 rounds to 0 in float16/);
  assert.match(text(rulerReadouts(find("half", "float32", 1e-8).r).collapse), /both land on x/);
});

test("issue 19 #15: an x that overflows says inf − inf is NaN, never NaN ulps or a zero slope", () => {
  for (const [name, dtype] of [["overflow", "float16"], ["huge", "float32"], ["huge", "bfloat16"]]) {
    const { r } = find(name, dtype, 1e-6);
    assert.ok(r.overflow && !r.collapsed, `${name} ${dtype}`);
    const all = Object.values(rulerReadouts(r)).map(text).join(" | ");
    assert.match(all, /overflows to ∞ in /, all);
    assert.match(all, /∞ − ∞ = NaN/, all);
    assert.doesNotMatch(all, /NaN ulps|exactly 0/, all);
    assert.equal(viewTicks(r, 1.6), null);
  }
  assert.match(text(rulerReadouts(find("overflow", "float16", 1e-6).r).x), /largest float16 number is 65504/);
  // 1e300 fits float64: x ± eps land on x, which is a true zero slope there
  const f64 = find("huge", "float64", 1e-6).r;
  assert.ok(!f64.overflow && f64.collapsed);
  assert.match(text(rulerReadouts(f64).collapse), /exactly 0/);
});

test("a typed eps off the grid is the kernel's answer, for this x only", () => {
  const sc = sceneOf("half");
  const state = { ...sc.exact_state, dtype: "float32" };
  const r = rulerFound(sc.scene, sc.tables, answerOf(sc), state, sc.x_value);
  assert.equal(r.eps, 3e-7);
  assert.equal(r.upper, Math.fround(0.5 + Math.fround(3e-7)));
  assert.equal(rulerFound(sc.scene, sc.tables, null, state, sc.x_value), null); // not come yet: the page waits
  assert.equal(rulerFound(sc.scene, sc.tables, answerOf(sc), { ...state, x: 1 }, 0.51), null); // beyond the window
});

test("Python's repr, spacing counts and tick segments", () => {
  const cases = [[0.5, "0.5"], [1e-5, "1e-05"], [65504, "65504.0"], [1e16, "1e+16"], [0.0999755859375, "0.0999755859375"],
    [1.5e300, "1.5e+300"], [-3.000000106112566e-7, "-3.000000106112566e-07"], [Infinity, "∞"]];
  for (const [v, want] of cases) assert.equal(pyRepr(v), want, String(v));
  assert.equal(ulpsText(1), "1 ulp");
  assert.equal(ulpsText(16.777216), "16.8 ulps");
  const [xs, ys] = tickSegments([-1, 2], 0.2);
  assert.deepEqual(xs.map(String), ["-1", "-1", "NaN", "2", "2", "NaN"]);
  assert.deepEqual(ys.map(String), ["-0.2", "0.2", "NaN", "-0.2", "0.2", "NaN"]);
});

test("the panels fit their pictures: boxes inside the canvas, one layout per choice", () => {
  for (const lay of Object.values(RULER_LAYOUT)) {
    const [W, H] = lay.size;
    for (const box of [lay.landing, lay.spacing].filter(Boolean)) {
      const [l, t, w, h] = box;
      assert.ok(l >= 0 && t >= 30 && l + w <= W && t + h + 36 <= H, `${box} in ${lay.size}`);
    }
  }
  assert.ok(RULER_LAYOUT.both.landing[1] + RULER_LAYOUT.both.landing[3] + 36 < RULER_LAYOUT.both.spacing[1] - 20);
  const ax = new Axes({ box: RULER_LAYOUT.both.landing, xlim: [-1.664, 1.664], ylim: [-0.6, 1.3] });
  assert.equal(ax.px(0), 34 + 792 / 2);
});
