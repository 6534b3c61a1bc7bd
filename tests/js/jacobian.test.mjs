// JacobianBuilder's steps, counts, wording and layout, and the matrix helpers it shares with
// GradcheckLab, against a scene Python sent (tools/js_fixtures.py: jacobian.json).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MOVES, callsHtml, historyHtml, jacobianView, jbLayout, statusHtml, stepParts, verdictHtml,
} from "../../gradkit/widgets/jacobian/jacobian.js";
import {
  cellBox, cellLabels, cellText, entryTicks, fits, matrixAxes, matrixCells, textWidth,
} from "../../gradkit/widgets/base/matrix.js";
import { ramp } from "../../gradkit/widgets/base/plot.js";
import { paintAsHost, readFixture, tablesOf } from "./fixture.mjs";

const fixture = readFixture("jacobian");
const tables = tablesOf(fixture);
const scene = fixture.scene;
const text = (html) => html.replace(/<[^>]+>/g, "").replace(/&nbsp;/g, " ").replace(/\s+/g, " ").trim();

test("each step shows the columns, then the rows, that Python's build has made", () => {
  const { n, m } = scene;
  for (const { step, calls } of fixture.steps) {
    const p = stepParts(scene, step);
    assert.equal(p.columns, Math.min(step, n));
    assert.equal(p.rows, Math.max(0, step - n));
    assert.deepEqual([tables.forward.data[step], tables.backward.data[step]], calls);
    const c = text(callsHtml(scene, tables, step));
    assert.match(c, new RegExp(`^this build so far ${calls[0]} forward, ${calls[1]} backward `));
  }
  assert.deepEqual(stepParts(scene, 0).current, null);
  assert.deepEqual(stepParts(scene, 1).current, { column: 0 });
  assert.deepEqual(stepParts(scene, n + m).current, { row: m - 1 });
  assert.equal(stepParts(scene, 99).step, n + m); // a stale step is clamped
});

test("step, run all and reset move along the steps; each is disabled where it would stay", () => {
  const moved = (s) => Object.fromEntries(Object.entries(MOVES).map(([name, move]) => [name, move(s, 6)]));
  assert.deepEqual(moved(2), { step_button: 3, run_button: 6, reset_button: 0 });
  assert.deepEqual(moved(6), { step_button: 6, run_button: 6, reset_button: 0 }); // the end: step, run all stay
  assert.deepEqual(moved(0).reset_button, 0); // reset stays at 0
});

test("gradcheck's own count stands beside the build's, labelled as the whole check", () => {
  const c = text(callsHtml(scene, tables, 1));
  const g = scene.gradcheck;
  assert.ok(c.includes(`torch.autograd.gradcheck, counted ${g.forward} forward, ${g.backward} backward`), c);
  assert.match(c, /forward: 1 plain run \+ 2 × 1 nudged; backward: one per output entry built/);
  assert.match(text(callsHtml({ ...scene, gradcheck: null }, tables, 1)), /gradcheck raised on this f/);
});

test("status and verdict say what each step does and what gradcheck concludes", () => {
  const x = tables.x.data;
  assert.match(text(statusHtml(scene, x, 0)), /^step 0 of 6 one plain run of f at x: 3 output entries, so the Jacobians are 3 × 3/);
  assert.match(text(statusHtml(scene, x, 1)), /nudge input entry 0 \(x0 = 0\.25\) by ±1e-06: .* fills column 0 of the numeric Jacobian/);
  assert.match(text(statusHtml(scene, x, 4)), /grad_output = e0 \(1 at output entry 0, 0 elsewhere\) .* row 0 of the analytic Jacobian/);
  const v = text(verdictHtml(scene, tables));
  assert.match(v, /^✘ 3 of 9 entries differ by more than 1e-05 \+ 0\.001·\|numeric\|: gradcheck fails/);
  assert.match(v, /output entry 0, input entry 0: analytic 0\.75, numeric 0\.5/);
  const fine = { data: new Float64Array(9) };
  assert.match(text(verdictHtml({ ...scene, gradcheck: { ...scene.gradcheck, passed: true } }, { ...tables, outside: fine })),
    /^✔ all 9 entries agree .*: gradcheck passes/);
});

test("every n built is listed with both counts", () => {
  const t = historyHtml(scene.history);
  const h = scene.history[0];
  assert.ok(t.includes(`<tr><td>${h.n}</td><td>${h.forward}, ${h.backward}</td><td>${h.gradcheck_forward}, ` +
    `${h.gradcheck_backward}</td><td>0.9 ms</td></tr>`), t);
  assert.ok(t.includes("<th>n</th><th>this build</th><th>gradcheck</th><th>time</th>"), t);
  assert.ok(historyHtml([{ ...h, gradcheck_forward: null }]).includes("<td>—</td><td>0.9 ms</td>"));
});

test("cells are square, inside the picture, and the panels choose what is drawn", () => {
  for (const [n, m] of [[1, 1], [3, 3], [64, 64], [64, 1], [4, 16]]) {
    for (const panels of [["numeric", "analytic"], ["numeric"], ["analytic", "counts"]]) {
      const lay = jbLayout(panels, n, m);
      for (const name of ["numeric", "analytic"].filter((p) => panels.includes(p))) {
        const [l, t, w, h] = lay[name];
        assert.ok(Math.abs(w / n - h / m) < 1e-9 && w / n <= 48, `${n}x${m} ${name}`);
        assert.ok(l >= 30 && l + w <= lay.size[0] && t + h + 40 <= lay.size[1], `${n}x${m} ${name}: ${lay[name]}`);
      }
      if (panels.length === 2 && panels.includes("numeric")) assert.ok(lay.analytic[0] > lay.numeric[0] + lay.numeric[2] + 40);
    }
  }
  assert.deepEqual(jbLayout(["counts"], 3, 3).size, [860, 0]);
});

test("matrix helpers: entry ticks thin out before they collide, cells print short", () => {
  assert.deepEqual(entryTicks(3).map((t) => t[1]), ["0", "1", "2"]);
  for (const [count, width] of [[16, 190], [15, 190], [64, 190], [64, 860], [10, 40]]) {
    const ticks = entryTicks(count, width / count, textWidth(String(count - 1), 10) + 5);
    const gap = (ticks.length > 1 ? ticks[1][0] - ticks[0][0] : count) * (width / count);
    assert.ok(gap >= textWidth(String(count - 1), 10) + 5, `${count} in ${width}px: ${gap}`);
  }
  assert.deepEqual([0, 0.25, -1.5, 2e-7, 123456, 3.14159, NaN].map(cellText),
    ["0", "0.25", "−1.5", "2.0e−07", "1.2e+05", "3.14", ""]);
  assert.ok(fits("0.25", 40, 20, 11) && !fits("1.2e+05", 30, 20, 11) && !fits("1", 30, 10, 11));
  // cells on whole-pixel edges, each sharing its neighbour's (no pale seam between them)
  const boxes = Array.from({ length: 10 }, (_, j) => cellBox(matrixAxes("m", [66.4, 0, 216, 20], 1, 10), 0, j));
  assert.ok(boxes.flat().every(Number.isInteger) && boxes[0][0] === 66 && boxes[9][0] + boxes[9][2] === 282, String(boxes));
  assert.ok(boxes.slice(1).every(([x], j) => x === boxes[j][0] + boxes[j][2]));
  // a cell's fill: the palette colour over the paper at the entry's strength (base/plot.js ramp)
  assert.equal(ramp(["#FFFFFF", "#0072B2"], 1), "rgb(0,114,178)");
  assert.equal(ramp(["#FFFFFF", "#0072B2"], 0), "rgb(255,255,255)");
  assert.equal(ramp(["#000000", "#0072B2"], 0.5), "rgb(0,57,89)");
});

test("a new n is drawn only from a scene of that n (a page with no kernel greys the others)", () => {
  assert.ok(jacobianView.drawsFrom.includes("n"), "a new n must repaint (or wait), never leave the old grids");
  const n = scene.n;
  assert.equal(jacobianView.find({ scene, state: { n, step: 1 } }), scene);
  assert.equal(jacobianView.find({ scene, state: { n: n + 1, step: 1 } }), null);
  const failed = { ...scene, failed: true }; // a build that failed is drawn: it says why
  assert.equal(jacobianView.find({ scene: failed, state: { n } }), failed);
});

test("a matrix's cells are filled and labelled each in its own box, row by row", () => {
  const ax = matrixAxes("m", [0, 0, 60, 40], 2, 3); // 2 rows, 3 columns of 20-px cells
  const rects = [];
  const texts = [];
  const painter = { rect: (...args) => rects.push(args), text: (...args) => texts.push(args) };
  matrixCells(painter, ax, (i, j) => `c${i}${j}`);
  assert.deepEqual(rects.slice(0, -1).map(([x, y, w, h, st]) => [x, y, w, h, st.fill]), [
    [0, 0, 20, 20, "c00"], [20, 0, 20, 20, "c01"], [40, 0, 20, 20, "c02"],
    [0, 20, 20, 20, "c10"], [20, 20, 20, 20, "c11"], [40, 20, 20, 20, "c12"]]);
  cellLabels(painter, ax, (i, j) => `${i}${j}`, (i, j) => `ink${i}${j}`);
  assert.deepEqual(texts.map(([x, y, t, st]) => [x, y, t, st.color]), [
    [10, 10, "00", "ink00"], [30, 10, "01", "ink01"], [50, 10, "02", "ink02"],
    [10, 30, "10", "ink10"], [30, 30, "11", "ink11"], [50, 30, "12", "ink12"]]);
});
