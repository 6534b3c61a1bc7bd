// A Predict's progress across a reload (practice/progress.js, predict.js recalledLock): kept in
// the browser's storage under the Predict's id and the learner's own server path, taken back by a
// fresh Predict only where it is a guess this Predict can read.
import assert from "node:assert/strict";
import { test } from "node:test";

import { recalledLock } from "../../gradkit/widgets/practice/predict.js";
import {
  progressKey, recalledProgress, rememberProgress,
} from "../../gradkit/widgets/practice/progress.js";
import { readFixture } from "./fixture.mjs";

const fixture = readFixture("practice");
const [slope, calls, , fast] = fixture.predicts.map((p) => p.scene);

function fakeStorage() {
  const items = new Map();
  return {
    items,
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => { items.set(k, String(v)); },
  };
}

test("each learner's server on a hub keeps its own progress; elsewhere one key per Predict", () => {
  assert.equal(progressKey("07-calls-n10", "/user/ada/notebooks/07.ipynb"), "gradkit-predict:/user/ada/:07-calls-n10");
  assert.equal(progressKey("07-calls-n10", "/notebooks/07.ipynb"), "gradkit-predict::07-calls-n10");
  assert.notEqual(progressKey("07-calls-n10", "/user/ada/lab"), progressKey("07-calls-n10", "/user/grace/lab"));
  assert.equal(progressKey("07-calls-n10", "/lab/tree/x"), progressKey("07-calls-n10", "/site/07.html"));
});

test("a lock is kept and recalled; nothing before a lock, and a storage that refuses keeps nothing", () => {
  globalThis.localStorage = fakeStorage();
  try {
    rememberProgress("07-calls-n10", { guess: "21", locked: false }, "/");
    assert.equal(recalledProgress("07-calls-n10", "/"), null);
    rememberProgress("07-calls-n10", { guess: "21", locked: true, second: "22" }, "/user/ada/");
    assert.deepEqual(recalledProgress("07-calls-n10", "/user/ada/"), { guess: "21", second: "22" });
    assert.equal(recalledProgress("07-calls-n10", "/user/grace/"), null); // another learner's
    globalThis.localStorage.setItem(progressKey("x", "/"), "{not json");
    assert.equal(recalledProgress("x", "/"), null);
    globalThis.localStorage = { getItem() { throw new Error("denied"); }, setItem() { throw new Error("denied"); } };
    rememberProgress("x", { guess: "1", locked: true }, "/");
    assert.equal(recalledProgress("x", "/"), null);
  } finally {
    delete globalThis.localStorage;
  }
  rememberProgress("x", { guess: "1", locked: true }, "/"); // no storage at all: nothing kept, no error
  assert.equal(recalledProgress("x", "/"), null);
});

test("a fresh Predict takes back a kept guess it can read, and a second try only where one may be", () => {
  const open = { guess: "", locked: false };
  assert.deepEqual(recalledLock(calls, open, { guess: "21", second: "22" }), { guess: "21", locked: true, second: "22" });
  assert.deepEqual(recalledLock(calls, open, { guess: "22", second: "21" }), { guess: "22", locked: true });
  assert.deepEqual(recalledLock(fast, { guess: null, locked: false }, { guess: "fails", second: "passes" }),
    { guess: "fails", locked: true }); // a choice of two has no second try
  assert.equal(recalledLock(calls, open, { guess: "many", second: "" }), null); // not a number
  assert.equal(recalledLock(slope, { guess: "1", locked: true }, { guess: "2", second: "" }), null);
  assert.equal(recalledLock({ ...calls, actual: null }, open, { guess: "21", second: "" }), null);
  assert.equal(recalledLock(calls, open, null), null);
});
