// Lessons that unfold: a Predict closes the rest of the lesson until its guess is locked in. Every
// cell after the first open Predict's cell (.jp-Cell of JupyterLab, Notebook 7 and Voilà, or
// .gk-site-cell of the static site; the element holding only it where Voilà wraps each cell) is
// taken out of sight with display: none (not on screen, not read aloud, not found by find); it
// has run, and shows as it is once the guess is locked in. Outside any such cell (marimo, a plain
// output) nothing is hidden. "Open the whole lesson" and GRADKIT_OPEN_LESSONS=1 open every gate.
//
// In JupyterLab and Notebook 7 the cell after each Predict is a level-1 heading saved collapsed,
// so a fresh copy, a reopened one and a Run All keep what follows out of sight, and Jupyter's own
// keyboard moves skip the hidden cells. There that heading is the gate (`nativeGate`): a lock
// expands it, and nothing is hidden by class.
export const CELLS = ".jp-Cell, .gk-site-cell";
export const HIDDEN = "gk-unfold-hidden";

// One record per page, shared by every bundle that carries this file (each widget class loads
// its own module): the gates by cell, the widgets' cells, the watched containers.
const shared = (globalThis.__gradkitUnfold ??= {
  gates: new WeakMap(), // a cell (or the item holding it) -> {open: bool}
  cells: new WeakMap(), // a widget's element -> its item (kept: a removed view has none)
  containers: new Set(), // parents of gated cells, each watched for cells added or replaced
  page: { allOpen: false },
});
shared.openers ??= new Set(); // called when the page opens whole (each Predict drops its note)
const { gates, cells, containers, page, openers } = shared;

// The cell a widget sits in and the list it is an item of: the cell itself where the cells are
// siblings (JupyterLab, the site), the wrapper that holds it where each cell has its own (Voilà).
export function itemOf(cell) {
  let item = cell;
  while (item.parentElement && item.parentElement.parentElement
    && !siblingsHoldCells(item)) item = item.parentElement;
  return item;
}

function holdsCell(node) {
  return node.matches(CELLS) || (node.querySelector ? node.querySelector(CELLS) !== null : false);
}

function siblingsHoldCells(item) {
  for (const other of item.parentElement.children) if (other !== item && holdsCell(other)) return true;
  return false;
}

// The heading that closes the rest of the lesson natively: the cell after `item`, where Jupyter
// drew a collapse button on it (JupyterLab and Notebook 7; not Voilà or the site). Or null.
export function nativeGate(item) {
  const next = nextCell(item);
  return next && next.querySelector ? next.querySelector(".jp-collapseHeadingButton") : null;
}

function nextCell(item) {
  let next = item.nextElementSibling;
  while (next && !holdsCell(next)) next = next.nextElementSibling;
  return next;
}

// Collapse or expand a native gate through Jupyter's own button (its state: jp-mod-collapsed).
function collapse(button, collapsed) {
  if (button.classList.contains("jp-mod-collapsed") !== collapsed) button.click();
}

// Hide every item of `container` after the first closed gate; show the others. Returns the number
// of items hidden. (The rule, pure over the DOM: unit-tested with a stand-in document.)
export function applyGates(container, allOpen = page.allOpen) {
  let closed = false;
  let hidden = 0;
  for (const item of container.children) {
    if (!holdsCell(item)) continue;
    const hide = closed && !allOpen;
    if (item.classList.contains(HIDDEN) !== hide) item.classList.toggle(HIDDEN, hide);
    hidden += hide ? 1 : 0;
    const gate = gates.get(item);
    if (gate && !gate.open && !gate.native) closed = true; // a native gate hides on its own
  }
  return hidden;
}

// Open every gate of the page (the teacher's button).
export function openAll() {
  page.allOpen = true;
  for (const container of containers) {
    for (const item of container.children) {
      const gate = gates.get(item);
      const native = gate && gate.native ? nativeGate(item) : null;
      if (native) collapse(native, false);
    }
    applyGates(container);
  }
  for (const opened of [...openers]) opened();
}

// Call `opened` when the page opens whole (the teacher's button on any Predict), so that every
// Predict drops its "the rest opens when…" note, not only the one clicked. Returns the undo.
export function onOpenAll(opened) {
  openers.add(opened);
  return () => openers.delete(opened);
}

// Set the gate of the widget at `el`: closed (`open` false) hides what follows its cell. Returns
// whether it hides anything (so the widget says why the rest is hidden only when it is).
export function setGate(el, open, { allOpen = false } = {}) {
  if (allOpen) page.allOpen = true;
  const found = el.closest ? el.closest(CELLS) : null;
  const item = found ? itemOf(found) : cells.get(el);
  if (!item || !item.parentElement) return false;
  cells.set(el, item);
  // A native gate is collapsed when first set closed and expanded when it opens; a learner who
  // expands it by hand meanwhile is not overruled on every repaint.
  const before = gates.get(item);
  const native = nativeGate(item);
  if (native && (!before || before.open !== !!open)) collapse(native, !open && !page.allOpen);
  gates.set(item, { open: !!open, native: native !== null });
  const container = item.parentElement;
  if (!containers.has(container) && typeof MutationObserver === "function") {
    // JupyterLab adds cells as they scroll in, Voilà as they run: gate those too
    new MutationObserver(() => applyGates(container)).observe(container, { childList: true });
  }
  containers.add(container);
  applyGates(container);
  return !open && nextCell(item) !== null && !page.allOpen;
}

// Forget the gate of the widget at `el` (its view was removed: a rerun or cleared output).
export function dropGate(el) {
  const cell = cells.get(el);
  if (!cell) return;
  cells.delete(el);
  gates.delete(cell);
  if (cell.parentElement) applyGates(cell.parentElement);
}
