// SlopeExplorer's lookups and wording, against a scene Python sent (tools/js_fixtures.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { epsState } from "../../gradkit/widgets/base/eps.js";
import { makePainter } from "../../gradkit/widgets/base/plot.js";
import {
  SLOPE_MARGIN, fmtSlope, overviewLimits, slopeLegendItems, slopeReadouts, slopeRow, slopeView, windowShade,
} from "../../gradkit/widgets/slope/slope.js";
import { answerOf, paintAsHost, readFixture, stateOf, tablesOf } from "./fixture.mjs";

const fixture = readFixture("slope");
const tables = tablesOf(fixture);
const X = fixture.x_value; // the value at the fixture's x position (the page: ctx.value("x"))
const states = fixture.states.map((row) => ({ ...row, state: stateOf(fixture, row) }));

test("the page reads the numeric and analytic slopes Python reads, for every state", () => {
  let checked = 0;
  for (const { state, numeric, analytic } of states) {
    if (state.eps_exact != null) continue;
    const found = slopeRow(fixture.scene, tables, null, state, X);
    assert.ok(found, JSON.stringify(state));
    if (numeric === null) assert.ok(Number.isNaN(found.r.numeric), JSON.stringify(state));
    else assert.equal(found.r.numeric, numeric, JSON.stringify(state));
    assert.equal(found.analytic, analytic);
    checked += 1;
  }
  assert.ok(checked >= 12);
});

test("an x beyond the positions sent, or a typed eps not yet measured, waits (null)", () => {
  const state = { ...states[0].state };
  assert.equal(slopeRow(fixture.scene, tables, null, { ...state, x: state.x + 1 }, X), null);
  assert.equal(slopeRow(fixture.scene, tables, null, { ...state, eps_exact: 3e-7 }, X), null);
  assert.equal(slopeRow(fixture.scene, tables, null, { ...state, dtype: "float8" }, X), null);
});

test("a typed eps off the grid reads the kernel's answer: the numeric slope Python reads", () => {
  const { state, numeric, exact } = fixture.typed;
  const found = slopeRow(fixture.scene, tables, answerOf(fixture.typed), state, X);
  assert.equal(found.eps, 3e-7);
  assert.equal(found.r.numeric, numeric);
  const { rows, zoom } = exact.answer.tables; // one x position and one eps of the scene's tables
  assert.deepEqual([rows.shape[0], rows.shape[3], zoom.shape[0], zoom.shape[2]], [1, 1, 1, 1]);
  assert.equal(found.zoom.length, zoom.shape[3]);
});

test("readouts word the row: slopes, errors, eps and the rounding notes", () => {
  const pick = (dtype, eps) => states.find((s) => s.state.dtype === dtype
    && s.state.scheme === "central" && s.state.eps === epsState(eps).eps);
  const f64 = pick("float64", 1e-6).state;
  const text = (html) => html.replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ").replace(/\s+/g, " ");
  const r64 = slopeReadouts(fixture.scene, f64, slopeRow(fixture.scene, tables, {}, f64, X));
  assert.match(text(r64.numeric), /^numeric slope 0\.750 = 0\.7\d+, \(f\(x\+eps\) − f\(x−eps\)\) \/ \(2·eps\) in float64$/);
  assert.match(text(r64.analytic), /^analytic slope 0\.750 = 0\.75, autograd in float64$/);
  assert.match(text(r64.eps), /^eps 1e-06 = 0\.000001$/);
  assert.match(text(r64.note), /land on 0\.499999 and 0\.500001 in float64/);
  const f16 = pick("float16", 1e-6).state;
  const r16 = slopeReadouts(fixture.scene, f16, slopeRow(fixture.scene, tables, {}, f16, X));
  assert.match(text(r16.note), /same float16 number|rounds to 0 in float16/);
  assert.match(text(r16.numeric), /^numeric slope 0\.000 /);
  const f32 = pick("float32", 1e-6).state;
  const r32 = slopeReadouts(fixture.scene, f32, slopeRow(fixture.scene, tables, {}, f32, X));
  assert.match(text(r32.eps), /stored in float32 as 9\.99999997e-07/);
});

test("huge slopes are written short, never as hundreds of digits", () => {
  assert.equal(fmtSlope(2e300), "2.0000e+300");
  assert.equal(fmtSlope(4.0000001), "4.000");
  assert.equal(fmtSlope(NaN), "NaN");
});

test("the overview's limits follow the visible curve and cut a pole to the bulk", () => {
  const xs = Array.from({ length: 601 }, (_, i) => -3 + i * 0.01);
  const square = overviewLimits(xs, xs.map((x) => x * x), 0.5, 3.5, 4);
  assert.ok(square[0] < 0.25 && square[0] > -1 && square[1] > 9 && square[1] < 11, String(square));
  const pole = overviewLimits(xs, xs.map((x) => 1 / x), -1.5, 1.5, 1);
  assert.ok(pole[1] - pole[0] < 1000, String(pole));
});

// --------------------------------------------------------------------- the picture's parts
// A canvas that draws nothing (every call a no-op; text 6 px a character), and a page node.
const canvas = new Proxy({}, { get: (t, k) => (k === "measureText" ? (s) => ({ width: 6 * String(s).length }) : () => {}), set: () => true });
globalThis.document ??= { createTextNode: (text) => ({ text }) };
const node = () => ({ style: {}, dataset: {}, append() {}, innerHTML: "" });
function paint(state, scene = fixture.scene) {
  const ctx = { scene, tables, exact: null, state, value: () => X, painter: makePainter(canvas), h: node, legend: node(), showLegend() {},
    panels: () => state.panels, set() {}, drawn: {} };
  return paintAsHost(slopeView, ctx).drawn;
}
const first = states.find((s) => s.state.eps_exact == null).state;

test("the legend lists every mark drawn: the zoom window wherever the curve is, curve only too", () => {
  const parts = (lay) => slopeLegendItems(fixture.scene, lay).map(([part]) => part);
  assert.deepEqual(parts({ curve: 1, zoom: 1 }), ["tangent", "secant", "window"]);
  assert.deepEqual(parts({ curve: 1 }), ["tangent", "secant", "window"]);
  assert.deepEqual(parts({ zoom: 1 }), ["tangent", "secant"]);
  const shown = paint({ ...first, panels: ["curve"] }).legend;
  assert.equal(shown.find(([part]) => part === "window")[1], "x ± 2.5·eps around the evaluation points");
  const zoomed = slopeLegendItems(fixture.scene, { curve: 1, zoom: 1 }).find(([part]) => part === "window");
  assert.equal(zoomed[1], "x ± 2.5·eps: the stretch the right-hand panel magnifies");
  // the window is told apart from the dashed secant by its swatch, not by hue alone
  const swatches = slopeLegendItems(fixture.scene, { curve: 1 }).map(([, , swatch]) => swatch);
  assert.deepEqual(swatches, ["solid", "dashed", "window"]);
});

test("a Function's blue line is called the slope its backward claims, never the tangent", () => {
  const label = (custom) => slopeLegendItems({ ...fixture.scene, custom }, { curve: 1 })[0][1];
  assert.equal(label(false), "tangent: the analytic slope");
  assert.equal(label(true), "slope your backward claims, through (x, f(x))");
  assert.doesNotMatch(label(true), /^tangent/);
  const drawn = paint({ ...first, panels: ["curve"] }, { ...fixture.scene, custom: true });
  assert.equal(drawn.legend[0][1], label(true));
});

test("the zoom window is shaded while it is a window, outlined once it covers most of the view", () => {
  assert.equal(windowShade([1.9, 2.1], [0.5, 3.5]).alpha, 0.16);
  assert.equal(windowShade([0.5, 3.5], [0.5, 3.5]).alpha, 0); // eps = 0.6: the whole view
  assert.equal(windowShade([1.25, 2.75], [0.5, 3.5]).alpha, 0.16); // exactly half
  assert.equal(windowShade([0.8, 3.2], [0.5, 3.5]).alpha, 0);
  assert.deepEqual([windowShade([-0.5, 4.5], [0.5, 3.5]).wider, windowShade([1, 3], [0.5, 3.5]).wider], [true, false]);
  const at = (eps) => paint({ ...first, panels: ["curve", "zoom"], ...epsState(eps) }).window.shaded;
  assert.deepEqual([1e-3, 0.1, 0.2, 0.5, 1].map(at), [true, true, true, false, false]); // 0.5: 83 % of the view
});

test("the zoom panel's limits are the page's: all it draws, padded by its one margin", () => {
  let checked = 0;
  for (const { state } of states) {
    if (state.eps_exact != null) continue;
    const found = slopeRow(fixture.scene, tables, {}, state, X);
    const { r, analytic: a, eps, zoom } = found;
    const hw = fixture.scene.half_width;
    const drawn = [...zoom, -a * hw, a * hw, (r.v0 - r.fx) / eps, (r.v1 - r.fx) / eps, 0].filter(Number.isFinite);
    const [lo, hi] = paint({ ...state, panels: ["zoom"] }).zoom_ylim;
    const [min, max] = [Math.min(...drawn), Math.max(...drawn)];
    const where = JSON.stringify(state);
    if (max > min) {
      assert.ok(Math.abs(min - lo - SLOPE_MARGIN * (max - min)) <= 1e-9 * (max - min), where);
      assert.ok(Math.abs(hi - max - SLOPE_MARGIN * (max - min)) <= 1e-9 * (max - min), where);
    } else {
      assert.ok(lo < min && hi > max, where); // nothing but 0: still a range to draw in
    }
    checked += 1;
  }
  assert.ok(checked >= 12);
});
