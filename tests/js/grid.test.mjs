// The slider grid (base/controls.js) against Python's (base/controls.py, written to grid.json by
// tools/js_fixtures.py): the same position for every value, exact ties included, where Python's
// round goes to the even position and Math.round would not; a position's value is the one
// Python sent in the slider's spec.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  gridPosition, roundHalfEven, savedRange, sliderPosition, sliderValue,
} from "../../gradkit/widgets/base/controls.js";
import { readFixture } from "./fixture.mjs";

const { grids } = readFixture("grid");
const all = grids.flatMap(({ slider, cases }) => cases.map(([value, position, onGrid]) => ({ slider, value, position, onGrid })));

test("every value finds Python's position, and a position's value is the one Python sent", () => {
  for (const { slider, value, position, onGrid } of all) {
    const where = `${JSON.stringify({ ...slider, values: undefined })} ${value}`;
    assert.equal(gridPosition(slider, value), position, where);
    assert.equal(sliderPosition(slider, value), position, where);
    assert.equal(sliderValue(slider, position) === value, onGrid, where);
  }
  for (const { slider } of grids) {
    assert.equal(sliderValue(slider, slider.lo - 5), slider.values[0]); // clamped to the ends
    assert.equal(sliderValue(slider, slider.hi + 5), slider.values[slider.values.length - 1]);
  }
});

test("the fixture holds the ties, where Math.round would answer otherwise", () => {
  const q = ({ slider, value }) => (value - slider.origin) / slider.step;
  const ties = all.filter((c) => q(c) - Math.floor(q(c)) === 0.5);
  assert.ok(ties.length >= 20, `${ties.length} ties`);
  assert.ok(ties.some((c) => Math.round(q(c)) !== c.position));
  assert.ok(ties.some((c) => q(c) < 0) && ties.every((c) => c.position % 2 === 0));
  assert.ok(all.filter((c) => c.onGrid).length >= 50);
});

test("ties go to the even whole number; all else to the nearest", () => {
  assert.deepEqual([0.5, 1.5, 2.5, -0.5, -1.5, -2.5].map(roundHalfEven), [0, 2, 2, 0, -2, -2]);
  assert.deepEqual([0.49999999999999994, 2.5000000000000004, -3.7, 7].map(roundHalfEven), [0, 3, -4, 7]);
});

test("with no kernel a slider spans only the saved positions next to the one shown", () => {
  const spec = { lo: -100, hi: 20 };
  const window = (k) => k >= -5 && k <= 5; // 01's x: five positions either side were saved
  assert.deepEqual(savedRange(spec, 0, window), [-5, 5]);
  assert.deepEqual(savedRange(spec, 0, () => false), [0, 0]); // another function: x alone
  // 02's n (1 … 64, saved 2 … 5 and 9): the span stops at the first gap, and at the ends
  const saved = (k) => [2, 3, 4, 5, 9].includes(k);
  assert.deepEqual(savedRange({ lo: 1, hi: 64 }, 3, saved), [2, 5]);
  assert.deepEqual(savedRange({ lo: 3, hi: 4 }, 3, saved), [3, 4]);
});
