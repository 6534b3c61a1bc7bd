// GradcheckLab's lookups, colours, layout and wording, against scenes Python sent
// (tools/js_fixtures.py: lab.json).
import assert from "node:assert/strict";
import { test } from "node:test";

import { linearTicks, makePainter } from "../../gradkit/widgets/base/plot.js";
import { fitSize, fitTitle, textWidth } from "../../gradkit/widgets/base/matrix.js";
import {
  BAR_LABELS, FAST_MODE_WORDS, LAB_LAYOUT, barLabelAt, jacobianScale, labReadouts, labState, labTitle, labView,
  layoutFor, ratioColour, ratioTicks, titleLines, titleRoom,
} from "../../gradkit/widgets/lab/lab.js";
import { answerOf, paintAsHost, readFixture, tablesOf } from "./fixture.mjs";

const fixture = readFixture("lab");
// the typed eps's scene is WrongSquareFn's: the fixture holds what changed from it
const typed = { ...fixture.WrongSquareFn, ...fixture.typed };
const text = (html) => html.replace(/<[^>]+>/g, "").replace(/&gt;/g, ">").replace(/\s+/g, " ").trim();
const stateOf = (sent, key) => {
  const [fast, dtype, eps] = key.split("|");
  return { ...sent.state, fast_mode: fast === "1", dtype, eps: Number(eps), eps_exact: null };
};
const failingOf = (found, cols) => {
  const out = [];
  found.ratio.forEach((r, q) => { if (r > 1) out.push([Math.floor(q / cols), q % cols]); });
  return out;
};
const rgb = (css) => css.match(/\d+/g).map(Number);

test("every state Python sent is found, and its failing entries are Python's", () => {
  for (const name of ["SquareFn", "WrongSquareFn"]) {
    const sent = fixture[name];
    const tables = tablesOf(sent);
    for (const [key, rec] of Object.entries(sent.scene.states)) {
      const found = labState(sent.scene, tables, null, stateOf(sent, key));
      assert.ok(found, `${name} ${key}`);
      assert.equal(found.rec, rec);
      assert.deepEqual(failingOf(found, sent.scene.shape[1]), sent.failing[key], `${name} ${key}`);
      const [i, j] = rec.worst.cell;
      assert.equal(found.ratio[i * sent.scene.shape[1] + j], Math.max(...found.ratio), `${name} ${key}`);
    }
  }
});

test("the worst entry's numbers and its pass test are the report's, in every state sent", () => {
  const parts = /^numeric (\S+) vs analytic (\S+) \(\|diff\| (\S+), allowed (\S+)\)$/;
  const seen = new Set();
  for (const name of ["SquareFn", "WrongSquareFn"]) {
    const sent = fixture[name];
    const said = Object.entries(sent.worst_said);
    for (const [, s] of said) seen.add(s.outside);
    assert.ok(said.some(([, s]) => /\.\d{5}/.test(s.comparison)), `${name}: six digits, rounded`);
    for (const [key, { comparison, outside }] of said) {
      const [, numeric, analytic, error, allowed] = comparison.match(parts);
      const rec = labState(sent.scene, tablesOf(sent), {}, stateOf(sent, key)).rec;
      const r = labReadouts(sent.scene, rec, ["verdict"]);
      assert.equal(text(r.worst), `worst entry (boxed): ${rec.worst.position}: numeric ${numeric}, ` +
        `analytic ${analytic}, |diff| ${error} ${outside ? ">" : "≤"} allowed ${allowed}`, `${name} ${key}`);
    }
  }
  assert.deepEqual([...seen].sort(), [false, true]); // both sides of gradcheck's test are held
});

test("a state not sent, another function or a typed eps not yet checked waits (null)", () => {
  const sent = fixture.WrongSquareFn;
  const tables = tablesOf(sent);
  const here = stateOf(sent, "0|float64|18");
  assert.equal(labState(sent.scene, tables, null, { ...here, eps: 3 }), null);
  assert.equal(labState(sent.scene, tables, null, { ...here, function: "SquareFn" }), null);
  assert.equal(labState(sent.scene, tables, null, { ...here, eps_exact: 3e-7 }), null);
});

test("a typed eps reads the kernel's answer, matrices included, only for that eps and dtype", () => {
  const sent = typed;
  const found = labState(sent.scene, tablesOf(sent), answerOf(sent), sent.state);
  assert.equal(found.rec.eps, 3e-7);
  assert.equal(found.numeric.length, 4);
  assert.ok(Math.abs(found.numeric[3] - 3) < 1e-6 && found.analytic[3] === 4.5);
  assert.equal(labState(sent.scene, tablesOf(sent), null, sent.state), null); // not come yet: the page waits
  // the answer is one state: another dtype is another request (host.js keeps answers by request)
  assert.equal(labState(sent.scene, tablesOf(sent), answerOf(sent), { ...sent.state, dtype: "float32" }), null);
});

test("readouts word torch's verdict and gradkit's cause, numbers written by the page", () => {
  const sent = fixture.WrongSquareFn;
  const found = labState(sent.scene, tablesOf(sent), {}, sent.state);
  const r = labReadouts(sent.scene, found.rec, ["verdict", "jacobians", "difference"]);
  assert.match(text(r.verdict), /^✘ GradcheckError — cause: bug \(the backward rule disagrees .*; float64 inputs\)$/);
  assert.match(text(r.description), /^WrongSquareFn \(a buggy twin\): .*reveal the bug/);
  assert.match(text(r.explanation), /^why: analytic is 1\.5x numeric/);
  assert.match(text(r.suggestion), /^try: /);
  assert.equal(text(r.worst), "worst entry (boxed): output entry 1, input entry 1: numeric 3, " +
    "analytic 4.5, |diff| 1.5 > allowed 0.00301");
  assert.match(r.message, /<summary>torch's message<\/summary>.*Jacobian mismatch/s);
  assert.equal(labTitle(sent.scene, found.rec), "WrongSquareFn, float64 inputs: ✘ GradcheckError (bug)");
  const short = labReadouts(sent.scene, found.rec, ["difference"]);
  assert.equal(short.verdict, r.verdict);
  assert.deepEqual([short.explanation, short.worst, short.message], ["", "", ""]);
  const pass = fixture.SquareFn;
  const ok = labState(pass.scene, tablesOf(pass), {}, pass.state).rec;
  assert.match(text(labReadouts(pass.scene, ok, ["verdict"]).verdict), /^✔ pass — gradcheck returned True \(float64 inputs\)/);
  const f32 = labState(pass.scene, tablesOf(pass), {}, stateOf(pass, "0|float32|18")).rec;
  assert.match(labReadouts(pass.scene, f32, ["verdict"]).message, /torch warned: .*requires gradient/);
});

test("a missing analytic Jacobian and inputs a dtype cannot take are said, not drawn", () => {
  const miss = fixture.missing;
  const found = labState(miss.scene, tablesOf(miss), {}, miss.state);
  assert.ok(found.numeric && !found.analytic && !found.ratio);
  assert.match(labTitle(miss.scene, found.rec), /✘ RuntimeError \(error\)$/);
  const un = fixture.unavailable;
  const rec = labState(un.scene, tablesOf(un), {}, un.state).rec;
  const r = labReadouts(un.scene, rec, ["verdict"]);
  assert.match(text(r.verdict), /^✘ not checked — input 0 is complex/);
  assert.equal(r.explanation, "");
  assert.equal(labTitle(un.scene, rec), "ComplexSquareFn, float16 inputs: not checked");
});

test("the difference scale: a failing cell is hot, a passing one cool, clipped at 1e±3", () => {
  const hot = rgb(ratioColour(13));
  assert.ok(hot[0] > 190 && hot[0] - Math.max(hot[1], hot[2]) > 100, String(hot));
  const barely = rgb(ratioColour(2));
  assert.ok(barely[0] - barely[2] > 60, String(barely)); // already clearly red just above 1
  const cool = rgb(ratioColour(0.01));
  assert.ok(cool[2] > cool[0] + 50, String(cool));
  assert.notEqual(ratioColour(1), ratioColour(1.0000001)); // 1 passes, anything above fails
  assert.equal(ratioColour(1e6), ratioColour(1e3));
  assert.equal(ratioColour(1e-9), ratioColour(1e-3));
  assert.equal(ratioColour(0), ratioColour(1e-3)); // exact agreement: the safest blue
  assert.equal(ratioColour(NaN), "#E6E6E6");
  assert.deepEqual(ratioTicks().map((t) => t[1]), ["10⁻³", "10⁻²", "10⁻¹", "1 = limit", "10¹", "10²", "10³"]);
});

test("the Jacobians' colour scale spans both matrices' largest entry", () => {
  assert.equal(jacobianScale([1, -4.5], [NaN, 3]), 4.5);
  assert.equal(jacobianScale(null, [0, 0]), 1);
});

// A text's box [x0, y0, x1, y1] (estimated width, ±size/2 around a middle baseline).
const box = (x, y, s, size, align = "left", baseline = "middle") => {
  const w = textWidth(s, size);
  const x0 = align === "center" ? x - w / 2 : align === "right" ? x - w : x;
  const y0 = baseline === "top" ? y : baseline === "bottom" ? y - size : y - size / 2;
  return [x0, y0, x0 + w, y0 + size];
};
const overlap = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

test("colour-bar labels never overlap a tick label, a title or the panel beside them", () => {
  for (const [name, lay] of Object.entries(LAB_LAYOUT)) {
    for (const [bar, ticksOf] of [["jbar", (v) => linearTicks(-v, v, 4)], ["rbar", () => ratioTicks()]]) {
      if (!lay[bar]) continue;
      const [L, T, W, H] = lay[bar];
      for (const vmax of [0.0123, 1, 4.5, 1234.5, 2.5e-7]) {
        const ticks = ticksOf(vmax);
        const lo = bar === "jbar" ? -vmax : -3;
        const hi = -lo;
        const tickBoxes = ticks.map(([v, s]) => box(L + W + 5, T + H * (1 - (v - lo) / (hi - lo)), s, 10));
        const others = [...tickBoxes];
        for (const p of ["numeric", "analytic", "difference"]) {
          if (!lay[p]) continue;
          const [pl, pt, pw, ph] = lay[p];
          others.push([pl, pt, pl + pw, pt + ph]); // the heatmap itself
          others.push([pl, pt + ph + 6, pl + pw + 8, pt + ph + 17]); // its x tick labels
          others.push(box(pl, pt - 8, "|analytic − numeric| ÷ allowed", 12, "left", "bottom"));
        }
        BAR_LABELS[bar].forEach((line, k) => {
          const at = barLabelAt(lay[bar], k);
          const mine = box(at.x, at.y, line, at.size, "left", "top");
          for (const o of others) assert.ok(!overlap(mine, o), `${name} ${bar} "${line}" vmax ${vmax}: ${mine} ${o}`);
          assert.ok(mine[2] <= lay.size[0] && mine[3] <= lay.size[1], `${name} ${bar} inside the picture`);
        });
        for (const t of tickBoxes) assert.ok(t[2] <= lay.size[0], `${name} ${bar} tick inside: ${t}`);
      }
    }
  }
});

test("panels choose the layout; the verdict alone draws no picture", () => {
  assert.equal(layoutFor(["verdict", "jacobians", "difference"]), LAB_LAYOUT.all);
  assert.equal(layoutFor(["difference"]), LAB_LAYOUT.difference);
  assert.equal(layoutFor(["verdict", "jacobians"]), LAB_LAYOUT.jacobians);
  assert.deepEqual(layoutFor(["verdict"]).size, [860, 0]);
});

// --------------------------------------------------------------------------- titles fit
// DejaVu Sans Bold is about 0.7 em a character: a measure of that width, and a canvas that
// draws nothing and measures so.
const bold = (s, size) => 0.7 * size * String(s).length;
const canvas = new Proxy({}, {
  get: (t, k) => (k === "measureText" ? (s) => ({ width: bold(s, parseFloat(t.font.split(" ")[1])) }) : k in t ? t[k] : () => {}),
  set: (t, k, v) => { t[k] = v; return true; },
});

test("a title fits its width: shrunk first, then split after ': ' / ', ', never clipped", () => {
  const short = fitTitle("SquareFn, float64 inputs: ✔ pass", 524, bold);
  assert.deepEqual(short, { lines: ["SquareFn, float64 inputs: ✔ pass"], size: 14 });
  const long = "ForgotGradOutputSigmoidFn, float64 inputs: ✘ GradcheckError (bug)";
  const shrunk = fitTitle(long, 524, bold);
  assert.equal(shrunk.lines.length, 1);
  assert.ok(shrunk.size < 14 && bold(long, shrunk.size) <= 524, JSON.stringify(shrunk));
  const split = fitTitle(long, 330, bold);
  assert.deepEqual(split.lines, ["ForgotGradOutputSigmoidFn, float64 inputs:", "✘ GradcheckError (bug)"]);
  assert.ok(split.lines.every((l) => bold(l, split.size) <= 330), JSON.stringify(split));
  assert.deepEqual(fitTitle("Unbreakable", 10, bold), { lines: ["Unbreakable"], size: 11 }); // drawn whole, at 11 px
  assert.equal(fitSize(["abc"], 1000, bold, 12, 9), 12);
  assert.equal(fitSize(["abc"], 1, bold, 12, 9), 9);
});

test("the picture's title stays inside the picture, for every Function of the zoo's longest names", () => {
  const sent = fixture.WrongSquareFn;
  const tables = tablesOf(sent);
  const key = Object.keys(sent.scene.states)[0];
  for (const name of ["WrongSquareFn", "ForgotGradOutputSigmoidFn", "MissingConjComplexSquareFn"]) {
    for (const [panels, room] of [[["verdict", "difference"], null], [["jacobians", "difference"], null],
      [["difference"], null], [["jacobians", "difference"], 358], [["difference"], 358]]) {
      const state = { ...stateOf(sent, key), function: name, panels };
      const scene = { ...sent.scene, function: name };
      const node = () => ({ style: {}, dataset: {}, append() {}, innerHTML: "" });
      const ctx = { scene, tables, exact: null, state, painter: makePainter(canvas), h: node, legend: node(),
        panels: () => panels, set() {}, drawn: {}, room };
      const { drawn, axes } = paintAsHost(labView, ctx);
      const heatmaps = panels.includes("jacobians") ? ["numeric", "analytic", "difference"] : ["difference"];
      assert.deepEqual(axes.map((ax) => ax.name), heatmaps); // the worst cell boxed in each, by name
      assert.deepEqual(Object.keys(drawn.worst_px), heatmaps);
      const width = layoutFor(panels, room).size[0];
      assert.ok(drawn.title_size >= 11);
      assert.ok(drawn.title_lines.every((l) => bold(l, drawn.title_size) <= width - 16), `${name} ${panels}: ${JSON.stringify(drawn)}`);
      assert.equal(drawn.title_lines.join(" "), drawn.title);
    }
  }
  const two = titleLines("a".repeat(40) + ": " + "b".repeat(40), 540, bold);
  assert.deepEqual([two.lines.length, two.y], [2, [9, 24]]);
  assert.ok(two.size <= 12 && two.y[1] + two.size / 2 < LAB_LAYOUT.difference.difference[1] - 8 - 15 - 12);
});

test("a heatmap's title may run to the next heatmap or the picture's edge, never over them", () => {
  assert.equal(titleRoom(LAB_LAYOUT.all, "numeric"), 270 - 52 - 8);
  assert.equal(titleRoom(LAB_LAYOUT.all, "analytic"), 572 - 270 - 8);
  assert.equal(titleRoom(LAB_LAYOUT.all, "difference"), 860 - 572 - 8);
  assert.equal(titleRoom(LAB_LAYOUT.difference, "difference"), 540 - 52 - 8);
});

test("fast_mode is said in the verdict, and a page with no kernel knows which states it holds", () => {
  const sent = fixture.WrongSquareFn;
  const found = labState(sent.scene, tablesOf(sent), {}, sent.state);
  const fast = { ...found.rec, fast_mode: true };
  assert.match(text(labReadouts(sent.scene, fast, ["verdict"]).verdict), new RegExp(`float64 inputs; ${FAST_MODE_WORDS}\\)$`));
  assert.doesNotMatch(text(labReadouts(sent.scene, found.rec, ["verdict"]).verdict), /fast_mode/);
  const ctx = (state) => ({ scene: sent.scene, tables: tablesOf(sent), exact: null, state });
  assert.ok(labView.find(ctx(sent.state)));
  assert.equal(labView.find(ctx({ ...sent.state, eps: 0 })), null); // not sent
  assert.equal(labView.find(ctx({ ...sent.state, function: "CubeFn" })), null); // another scene
});
