// Lessons that unfold (practice/unfold.js): after a Predict still open, no cell is on screen; a
// lock opens the cells up to the next open Predict; "Open the whole lesson" opens them all.
// A stand-in for the few DOM parts the rule reads (children, matches, classList, closest).
import assert from "node:assert/strict";
import { test } from "node:test";

import { revealed } from "../../gradkit/widgets/practice/predict.js";
import { HIDDEN, applyGates, dropGate, onOpenAll, openAll, setGate } from "../../gradkit/widgets/practice/unfold.js";

class FakeElement {
  constructor(classes = [], parent = null) {
    this.classes = new Set(classes);
    this.children = [];
    this.parentElement = parent;
    if (parent) parent.children.push(this);
    this.classList = {
      contains: (c) => this.classes.has(c),
      toggle: (c, on) => (on ? this.classes.add(c) : this.classes.delete(c)),
    };
  }
  querySelector(selector) {
    for (const child of this.children) {
      if (child.matches(selector)) return child;
      const found = child.querySelector(selector);
      if (found) return found;
    }
    return null;
  }
  matches(selector) { return selector.split(",").some((s) => this.classes.has(s.trim().slice(1))); }
  closest(selector) {
    for (let node = this; node; node = node.parentElement) if (node.matches(selector)) return node;
    return null;
  }
  get nextElementSibling() {
    const siblings = this.parentElement.children;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
}

// A notebook of `n` cells (JupyterLab's class, or the static site's), each with an output area;
// `wrapped`: each cell in a wrapper of its own, as Voilà puts them (what is hidden is the wrapper).
function notebook(n, kind = "jp-Cell", wrapped = false) {
  const root = new FakeElement(["jp-WindowedPanel-viewport"], new FakeElement(["jp-LabShell"]));
  const items = Array.from({ length: n }, () => new FakeElement(wrapped ? [] : [kind], root));
  const cells = wrapped ? items.map((item) => new FakeElement([kind], item)) : items;
  if (wrapped) return { root, cells: items, widgets: widgetsIn(cells) };
  return { root, cells, widgets: widgetsIn(cells) };
}

function widgetsIn(cells) {
  return cells.map((cell) => new FakeElement(["gradkit-widget"], new FakeElement(["jp-OutputArea"], cell)));
}

const hidden = (cells) => cells.map((c) => (c.classList.contains(HIDDEN) ? 1 : 0)).join("");

test("an open Predict hides every later cell; locking it shows them up to the next open one", () => {
  for (const [kind, wrapped] of [["jp-Cell", false], ["gk-site-cell", false], ["jp-Cell", true]]) {
    const { cells, widgets } = notebook(6, kind, wrapped);
    assert.equal(setGate(widgets[1], false), true);
    assert.equal(hidden(cells), "001111");
    setGate(widgets[3], false); // a second Predict, further down (its cell is hidden too)
    assert.equal(hidden(cells), "001111");
    setGate(widgets[1], true); // the first guess locked in
    assert.equal(hidden(cells), "000011");
    assert.equal(setGate(widgets[3], true), false); // the last one: nothing left to hide
    assert.equal(hidden(cells), "000000");
  }
});

test("a Predict with nothing after it, or in no notebook cell, hides nothing", () => {
  const { cells, widgets } = notebook(3);
  assert.equal(setGate(widgets[2], false), false);
  assert.equal(hidden(cells), "000");
  const lone = notebook(1, "jp-Cell", true);
  assert.equal(setGate(lone.widgets[0], false), false);
  assert.equal(hidden(cells), "000");
  const loose = new FakeElement(["gradkit-widget"], new FakeElement(["marimo-cell"]));
  assert.equal(setGate(loose, false), false);
});

test("cells added later (JupyterLab scrolling, Voilà running) are gated as they come", () => {
  const { root, cells, widgets } = notebook(2);
  setGate(widgets[0], false);
  cells.push(new FakeElement(["jp-Cell"], root), new FakeElement(["jp-Cell"], root));
  applyGates(root); // what the MutationObserver does
  assert.equal(hidden(cells), "0111");
});

test("a removed Predict view opens what it closed", () => {
  const { cells, widgets } = notebook(3);
  setGate(widgets[0], false);
  assert.equal(hidden(cells), "011");
  dropGate(widgets[0]);
  assert.equal(hidden(cells), "000");
});

test("the gate opens on a lock, or when no true value could be computed", () => {
  const scene = { kind: "choice", options: ["passes", "fails"], actual: "passes" };
  assert.equal(revealed(scene, { guess: "passes", locked: false }), false);
  assert.equal(revealed(scene, { guess: "passes", locked: true }), true);
  assert.equal(revealed({ ...scene, actual: null }, { guess: null, locked: false }), true);
});

// A heading cell as JupyterLab and Notebook 7 draw it: a collapse button whose class says whether
// the heading is collapsed; clicking it toggles (Jupyter then hides the cells under it itself).
function headingCell(root, collapsed) {
  const cell = new FakeElement(["jp-Cell"], root);
  const button = new FakeElement(["jp-collapseHeadingButton", ...(collapsed ? ["jp-mod-collapsed"] : [])], cell);
  button.clicks = 0;
  button.click = () => {
    button.clicks += 1;
    button.classList.toggle("jp-mod-collapsed", !button.classList.contains("jp-mod-collapsed"));
  };
  return { cell, button };
}

test("in Jupyter the heading after a Predict is the gate: collapsed while open, expanded by the lock", () => {
  const root = new FakeElement(["jp-WindowedPanel-viewport"], new FakeElement(["jp-LabShell"]));
  const predictCell = new FakeElement(["jp-Cell"], root);
  const widget = new FakeElement(["gradkit-widget"], new FakeElement(["jp-OutputArea"], predictCell));
  const gate = headingCell(root, true); // saved collapsed: closed before anything ran
  const after = [new FakeElement(["jp-Cell"], root), new FakeElement(["jp-Cell"], root)];
  assert.equal(setGate(widget, false), true);
  assert.equal(gate.button.clicks, 0); // already collapsed: left alone
  assert.equal(hidden([gate.cell, ...after]), "000"); // Jupyter hides them, not a class
  gate.button.click(); // the learner expands it by hand: a repaint does not overrule that
  setGate(widget, false);
  assert.equal(gate.button.classList.contains("jp-mod-collapsed"), false);
  assert.equal(gate.button.clicks, 1);
  setGate(widget, true); // locked in: stays expanded
  assert.equal(gate.button.classList.contains("jp-mod-collapsed"), false);
});

test("a gate heading saved expanded is collapsed when its Predict shows, and the lock expands it", () => {
  const root = new FakeElement(["jp-WindowedPanel-viewport"], new FakeElement(["jp-LabShell"]));
  const widget = new FakeElement(["gradkit-widget"], new FakeElement(["jp-OutputArea"], new FakeElement(["jp-Cell"], root)));
  const gate = headingCell(root, false);
  setGate(widget, false);
  assert.equal(gate.button.classList.contains("jp-mod-collapsed"), true);
  setGate(widget, true);
  assert.equal(gate.button.classList.contains("jp-mod-collapsed"), false);
});

test("Open the whole lesson opens every gate on the page, and later ones stay open", () => {
  const { cells, widgets } = notebook(4);
  setGate(widgets[0], false);
  assert.equal(hidden(cells), "0111");
  const jupyter = new FakeElement(["jp-WindowedPanel-viewport"], new FakeElement(["jp-LabShell"]));
  const predict = new FakeElement(["gradkit-widget"], new FakeElement(["jp-OutputArea"], new FakeElement(["jp-Cell"], jupyter)));
  const gate = headingCell(jupyter, true);
  setGate(predict, false);
  openAll();
  assert.equal(hidden(cells), "0000");
  assert.equal(gate.button.classList.contains("jp-mod-collapsed"), false); // Jupyter's heading too
  const other = notebook(3);
  assert.equal(setGate(other.widgets[0], false), false);
  assert.equal(hidden(other.cells), "000");
});

test("opening the whole lesson tells every Predict on the page, so each drops its note", () => {
  const told = [];
  const forgetFirst = onOpenAll(() => told.push("first"));
  onOpenAll(() => told.push("second"));
  openAll();
  assert.deepEqual(told, ["first", "second"]);
  forgetFirst(); // a removed view is told no more
  openAll();
  assert.deepEqual(told, ["first", "second", "second"]);
});
