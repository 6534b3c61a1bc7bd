// The base's browser rules: number formatting, the eps rule (against Python's fixture), tables,
// axes and ticks, the keyboard rule and the state handshake.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

import {
  EPS_DECADE, EPS_GRID, epsLabel, epsOf, epsState, epsStepMoves, parseEps, snapEps, stepEps,
} from "../../gradkit/widgets/base/eps.js";
import { fmtPlain, pyFormat, readoutHtml } from "../../gradkit/widgets/base/format.js";
import {
  Axes, diverging, drawPanels, linearTicks, logTicks, niceTicks, paddedLimits, panelBox, panelLayout, powerLabel,
  tickLabels,
} from "../../gradkit/widgets/base/plot.js";
import {
  decodeTables, flatIndex, pointRecord, record, rowOf,
} from "../../gradkit/widgets/base/tables.js";
import {
  buildControl, buttonPress, buttonSpent, buttonText, keyMove, savedRange, shownValue,
  sliderStepMoves, sliderValue,
} from "../../gradkit/widgets/base/controls.js";
import { FAILED, askKernel, askNumbers, valuesOf } from "../../gradkit/widgets/base/page.js";
import { offGridRequest, sceneFits } from "../../gradkit/widgets/base/host.js";
import {
  NEEDS_KERNEL, offGridWords, settingWords, standIn,
} from "../../gradkit/widgets/base/standin.js";
import { readFixture } from "./fixture.mjs";

const fixture = readFixture("eps");

test("the eps grid is Python's, value for value", () => {
  assert.deepEqual([...EPS_GRID], fixture.grid);
});

test("eps snapping and labels agree with Python", () => {
  for (const row of fixture.values) {
    assert.equal(epsLabel(row.eps), row.label, `label of ${row.eps}`);
    assert.deepEqual(epsState(row.eps), row.state, `state of ${row.eps}`);
    assert.equal(epsOf(row.state), row.eps);
  }
});

test("÷10 / ×10 move a decade from the nearest grid value; the ends clamp", () => {
  const at = (eps) => EPS_GRID.indexOf(eps);
  const cases = [ // [eps, ÷10's grid value, ×10's]
    [1e-6, 1e-7, 1e-5], [2e-6, 2e-7, 2e-5], [3e-7, 2e-8, 2e-6], [3.16e-7, 2e-8, 2e-6],
    [7e-4, 5e-5, 5e-3], [1.4e-12, 1e-12, 1e-11], [2e-12, 1e-12, 2e-11], [0.35, 0.05, 1], [1, 0.1, 1],
  ];
  assert.equal(EPS_DECADE, 3);
  for (const [eps, down, up] of cases) {
    assert.equal(stepEps(epsState(eps), -1), at(down), `÷10 from ${eps}`);
    assert.equal(stepEps(epsState(eps), 1), at(up), `×10 from ${eps}`);
  }
});

test("typed eps: its value, or the words for the slip (the range's words are Python's)", () => {
  const values = [["1e-6", 1e-6], [" 0.001 ", 0.001], ["3e-7", 3e-7], ["2E-3", 0.002], ["1", 1]];
  for (const [text, value] of values) assert.deepEqual(parseEps(text), { value }, text);
  const notOne = (text) => `eps must be a number written like 1e-6 or 0.001; “${text}” is not one`;
  for (const text of ["abc", "nan", "inf", "", "1e-6x", "<b>"]) {
    assert.deepEqual(parseEps(text), { error: notOne(text.replace("<", "&lt;").replace(">", "&gt;")) });
  }
  assert.deepEqual(parseEps("0"), { error: "eps must be a number > 0 (e.g. 1e-6), got 0" });
  assert.deepEqual(parseEps("−1e-6"), { error: "eps must be a number > 0 (e.g. 1e-6), got -1e-6" });
  for (const row of fixture.outside) assert.deepEqual(parseEps(row.text), { error: row.error }, row.text);
});

test("ties snap to the smaller grid value; the ends clamp", () => {
  assert.equal(snapEps(1e-12), 0);
  assert.equal(snapEps(1), EPS_GRID.length - 1);
  assert.equal(stepEps({ eps: 1, eps_exact: null }, -1), 0);
  assert.equal(stepEps({ eps: EPS_GRID.length - 2, eps_exact: null }, 1), EPS_GRID.length - 1);
});

test("pyFormat writes numbers as Python's format() does", () => {
  const cases = [[3.9999999999995595, ".3f", "4.000"], [4.41e-13, ".2e", "4.41e-13"], [1e-6, ".3g", "1e-06"],
    [0.001, ".3g", "0.001"], [3.16e-7, ".3g", "3.16e-07"], [123456, ".3g", "1.23e+05"], [0.5, ".15g", "0.5"],
    [NaN, ".3f", "NaN"], [Infinity, ".3f", "∞"], [-Infinity, ".2e", "−∞"], [2e300, ".4e", "2.0000e+300"]];
  for (const [v, spec, want] of cases) assert.equal(pyFormat(v, spec), want, `${v} ${spec}`);
});

test("fmtPlain writes numbers without an exponent", () => {
  assert.equal(fmtPlain(1e-6), "0.000001");
  assert.equal(fmtPlain(5e-5), "0.00005");
  assert.equal(fmtPlain(-1e-7), "-0.0000001");
  assert.equal(fmtPlain(1.0000000000000021e-7), "0.00000010000000000000021");
  assert.equal(fmtPlain(0.001), "0.001");
  assert.equal(fmtPlain(2), "2");
  assert.match(readoutHtml("eps", "1e-06", "d"), /<b>1e-06<\/b> <span class="gk-r-detail">d<\/span>/);
});

test("tables decode float64 and float32 arrays at their offsets", () => {
  const a = new Float64Array([1, 2, 3, 4, 5, 6]);
  const b = new Float32Array([0.5, 1.5]);
  const buf = new Uint8Array(a.byteLength + 8);
  buf.set(new Uint8Array(a.buffer), 0);
  buf.set(new Uint8Array(b.buffer), a.byteLength);
  const t = decodeTables(new DataView(buf.buffer), {
    a: { offset: 0, shape: [2, 3], dtype: "float64" }, b: { offset: 48, shape: [2], dtype: "float32" },
  });
  assert.deepEqual([...rowOf(t.a, [1])], [4, 5, 6]);
  assert.deepEqual([...t.b.data], [0.5, 1.5]);
  assert.equal(rowOf(t.a, [2]), null);
  assert.equal(flatIndex([2, 3], [1, 2]), 5);
  assert.deepEqual(record(["p", "q"], [1, null]), { p: 1, q: NaN });
});

test("pointRecord: nothing until the scene of the state's function has come, then the lookup's record", () => {
  // state.x a position; the lookup is handed its value too (ctx.value)
  const lookup = (scene, tables, exact, state, x) => (state.x in tables ? { row: tables[state.x], exact, x } : undefined);
  const value = (name) => (name === "x" ? 2.1 : null);
  const ctx = (scene, state) => ({ scene, state, tables: { 2: "two" }, exact: "answer", value });
  assert.equal(pointRecord(ctx({}, { x: 2 }), "fields", lookup), null); // no scene yet
  assert.equal(pointRecord(ctx({ fields: 1, function: "x²" }, { function: "sin", x: 2 }), "fields", lookup), null);
  assert.deepEqual(pointRecord(ctx({ fields: 1, function: "x²" }, { function: "x²", x: 2 }), "fields", lookup),
    { row: "two", exact: "answer", x: 2.1 });
  assert.equal(pointRecord(ctx({ fields: 1 }, { x: 3 }), "fields", lookup), null); // still being measured
});

test("drawPanels: only the panels the layout has, in order, their facts merged", () => {
  const calls = [];
  const draw = (name) => (ctx, lay, record) => {
    calls.push([name, lay[name], record]);
    return { ax: `${name} axes`, drawn: { [name]: true } };
  };
  const drawn = { eps: 1 };
  const axes = drawPanels("ctx", { zoom: [1, 2, 3, 4] }, "rec", [["curve", draw("curve")], ["zoom", draw("zoom")]], drawn);
  assert.deepEqual(axes, ["zoom axes"]);
  assert.deepEqual(calls, [["zoom", [1, 2, 3, 4], "rec"]]);
  assert.deepEqual(drawn, { eps: 1, zoom: true });
});

test("panelLayout: both panels, either one alone, the first when none is named", () => {
  const layouts = { both: "B", curve: "C", zoom: "Z" };
  assert.equal(panelLayout(layouts, ["curve", "zoom"], ["curve", "zoom"]), "B");
  assert.equal(panelLayout(layouts, ["zoom", "curve"], ["curve", "zoom"]), "B");
  assert.equal(panelLayout(layouts, ["zoom"], ["curve", "zoom"]), "Z");
  assert.equal(panelLayout(layouts, ["curve"], ["curve", "zoom"]), "C");
  assert.equal(panelLayout(layouts, [], ["curve", "zoom"]), "C");
});

test("offGridRequest names what a typed eps's numbers are for: scene, eps and the values they depend on", () => {
  const spec = { off_grid_of: ["x"] };
  const state = { eps: 18, eps_exact: 3e-7, x: 2, dtype: "float32" };
  assert.deepEqual(JSON.parse(offGridRequest(spec, { key: "k1" }, state)), { key: "k1", eps: 3e-7, x: 2 });
  assert.equal(offGridRequest(spec, { key: "k1" }, { ...state, dtype: "float64" }), offGridRequest(spec, { key: "k1" }, state));
  for (const other of [[{ key: "k2" }, state], [{ key: "k1" }, { ...state, eps_exact: 4e-7 }], [{ key: "k1" }, { ...state, x: 3 }]]) {
    assert.notEqual(offGridRequest(spec, ...other), offGridRequest(spec, { key: "k1" }, state));
  }
  assert.equal(offGridRequest(spec, { key: "k1" }, { ...state, eps_exact: null }), null); // on the grid: nothing to ask
  assert.equal(offGridRequest(spec, {}, state), null); // no scene yet
});

test("sceneFits: a scene is drawn only for the values it was made for", () => {
  const scene = { for: { function: "x²", atol: "1e-05" } };
  assert.equal(sceneFits(scene, { function: "x²", atol: "1e-05", x: 2 }), true);
  assert.equal(sceneFits(scene, { function: "sin", atol: "1e-05" }), false);
  assert.equal(sceneFits(scene, { function: "x²", atol: "0.001" }), false);
  assert.equal(sceneFits({}, { function: "sin" }), true); // a scene that names nothing fits any state
});

test("axes map data to pixels, linear and log", () => {
  const ax = new Axes({ box: [10, 20, 100, 50], xlim: [0, 10], ylim: [-1, 1] });
  assert.equal(ax.px(0), 10);
  assert.equal(ax.px(10), 110);
  assert.equal(ax.py(1), 20);
  assert.equal(ax.py(-1), 70);
  assert.deepEqual(ax.pixels([1 / 3, 5], [0, 1]), [[13.33, 45], [60, 20]]); // to 0.01 px, as the tests read them
  const lg = new Axes({ box: [0, 0, 120, 60], xlim: [1e-12, 1], ylim: [1e-16, 1], xscale: "log", yscale: "log" });
  assert.equal(lg.px(1e-6), 60);
  assert.ok(Number.isNaN(lg.px(0)));
  assert.deepEqual(panelBox([800, 400], [0.1, 0.2, 0.5, 0.5]).map((v) => +v.toFixed(9)), [80, 120, 400, 200]);
});

test("ticks are round numbers covering the range", () => {
  assert.deepEqual(niceTicks(0, 10, 5), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(niceTicks(0.5, 3.5, 5), [1, 2, 3]);
  assert.deepEqual(niceTicks(-0.3, 0.3, 6), [-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3]);
  assert.deepEqual(tickLabels([-1, -0.5, 0, 0.5]), ["−1.0", "−0.5", "0.0", "0.5"]);
  assert.deepEqual(linearTicks(1, 3, 2).map((t) => t[1]), ["1", "2", "3"]);
  assert.deepEqual(logTicks(1e-12, 1, 13).map((t) => t[1]).slice(0, 2), ["10⁻¹²", "10⁻¹¹"]);
  assert.equal(logTicks(1e-12, 1, 7).length, 7);
  assert.equal(powerLabel(0), "1");
  assert.deepEqual(paddedLimits([1, 2], 0.1), [0.9, 2.1]);
  assert.deepEqual(paddedLimits([NaN], 0.1), [-1, 1]);
  assert.equal(diverging(0), "rgb(247,247,247)");
});

test("the keyboard moves sliders by one, a page, or to the ends", () => {
  assert.equal(keyMove("ArrowRight", 5, 0, 36, 3), 6);
  assert.equal(keyMove("ArrowDown", 5, 0, 36, 3), 4);
  assert.equal(keyMove("PageUp", 5, 0, 36, 3), 8);
  assert.equal(keyMove("PageDown", 1, 0, 36, 3), 0);
  assert.equal(keyMove("Home", 5, -60, 20), -60);
  assert.equal(keyMove("End", 5, 0, 36), 36);
  assert.equal(keyMove("a", 5, 0, 36), null);
  const x = { origin: 2, step: 0.05, lo: -100, hi: 20, values: Array.from({ length: 121 }, (_, i) => 2 + (i - 100) * 0.05) };
  assert.equal(sliderValue(x, 1), x.values[101]); // the value Python sent for position 1
  assert.equal(sliderValue(x, 99), x.values[120]); // clamped to the ends
  assert.equal(sliderValue(x, -999), x.values[0]);
});

test("a slider's state is its position: the page reads its value only to show it", () => {
  const x = { kind: "slider", name: "x", lo: -2, hi: 2, values: [1.9, 1.95, 2, 2.05, 2.1] };
  const controls = [{ kind: "grid", name: "eps" }, x];
  assert.equal(shownValue(controls, "x", -2), 1.9);
  assert.equal(shownValue(controls, "x", 1), 2.05);
  assert.equal(shownValue(controls, "eps", 27), 27); // not a slider: as held
  assert.equal(shownValue(controls, "dtype", "float32"), "float32");
  assert.equal(shownValue(undefined, "x", 1), 1);
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

test("a step button at the end of its range leads nowhere (the page greys it out)", () => {
  const last = EPS_GRID.length - 1;
  assert.equal(epsStepMoves({ eps: last, eps_exact: null }, 1), false); // ×10 at the largest eps
  assert.equal(epsStepMoves({ eps: last, eps_exact: null }, -1), true);
  assert.equal(epsStepMoves({ eps: 0, eps_exact: null }, -1), false); // ÷10 at the smallest
  assert.equal(epsStepMoves({ eps: last - 1, eps_exact: null }, 1), true); // clamps onto the end
  assert.equal(epsStepMoves({ eps: last, eps_exact: EPS_GRID[last] * 0.9 }, 1), true); // back on the grid
  const x = { origin: 2, step: 0.05, lo: -100, hi: 20, values: Array.from({ length: 121 }, (_, i) => 2 + (i - 100) * 0.05) };
  assert.equal(sliderStepMoves(x, 20, 1), false); // + at the highest position
  assert.equal(sliderStepMoves(x, 19, 1), true);
  assert.equal(sliderStepMoves(x, -100, -1), false); // − at the lowest
  assert.equal(sliderStepMoves(x, 0, -1), true);
});

test("valuesOf reads each value from its own trait", () => {
  const traits = { x: 2, eps: 27, other: "not a value" };
  const model = { get: (name) => traits[name] };
  assert.deepEqual(valuesOf(model, ["x", "eps"]), { x: 2, eps: 27 });
  assert.deepEqual(valuesOf(model, undefined), {});
});

// a model that answers anywidget's command message as anywidget's Python side does
function commandModel() {
  const listeners = [];
  const sent = [];
  return {
    sent,
    on(event, fn) { if (event === "msg:custom") listeners.push(fn); },
    off(event, fn) { listeners.splice(listeners.indexOf(fn), 1); },
    send(content) {
      sent.push(content);
      const reply = { id: content.id, kind: "anywidget-command-response", response: { asked: content.name, msg: content.msg } };
      const buffers = [new DataView(new Float64Array([content.name.length]).buffer)];
      queueMicrotask(() => { for (const fn of [...listeners]) fn({ id: "someone else's", kind: reply.kind }, []); for (const fn of [...listeners]) fn(reply, buffers); });
    },
    listeners,
  };
}

test("askKernel asks through anywidget's invoke, with no time limit", async () => {
  const calls = [];
  const buffer = new DataView(new Float64Array([2]).buffer);
  const experimental = { invoke: async (name, msg, options) => { calls.push([name, msg, options.signal.aborted]); return [{ ok: name }, [buffer]]; } };
  const ask = askKernel(commandModel(), experimental);
  assert.deepEqual(await ask("press_button", { name: "run" }), [{ ok: "press_button" }, [buffer]]); // answer and buffers
  assert.deepEqual(calls, [["press_button", { name: "run" }, false]]);
});

test("askKernel sends anywidget's command message where invoke refuses (marimo)", async () => {
  const model = commandModel();
  let tried = 0;
  const experimental = { invoke: async () => { tried += 1; throw new Error("anywidget.invoke not supported in marimo"); } };
  const ask = askKernel(model, experimental);
  const [answer, [buffer]] = await ask("numbers_at", { key: "k", eps: 3e-7 });
  assert.deepEqual(answer, { asked: "numbers_at", msg: { key: "k", eps: 3e-7 } });
  assert.equal(buffer.getFloat64(0, true), "numbers_at".length); // the answer's buffer comes with it
  assert.deepEqual((await ask("press_button", { name: "hint" }))[0], { asked: "press_button", msg: { name: "hint" } });
  assert.equal(tried, 1, "invoke is tried once, then the page sends the message itself");
  assert.equal(model.sent[0].kind, "anywidget-command");
  assert.equal(model.listeners.length, 0, "every answer's listener is gone once answered");
});

test("pyFormat gives Python's digits for awkward numbers (exact ties round to even)", () => {
  const { specs, rows } = readFixture("format");
  // Python's "nan" and "inf" the page writes as NaN and ∞, and a minus sign as a real one
  const page = { nan: "NaN", inf: "∞", "-inf": "−∞" };
  const value = (v) => (typeof v === "string" ? Number(v.replace("inf", "Infinity")) : v);
  let checked = 0;
  for (const [v, ...texts] of rows) {
    specs.forEach((spec, k) => {
      assert.equal(pyFormat(value(v), spec), page[texts[k]] ?? texts[k], `${v} ${spec}`);
      checked += 1;
    });
  }
  assert.ok(checked >= 500, `${checked} cases`);
  assert.ok(rows.some(([v]) => Object.is(v, -0)) && rows.some(([v]) => v === "nan") && rows.some(([v]) => v === "-inf"));
});

test("the format fixture holds every spec the views write numbers with", () => {
  const { specs } = readFixture("format");
  const widgets = new URL("../../gradkit/widgets/", import.meta.url);
  const used = new Set();
  for (const file of readdirSync(widgets, { recursive: true }).filter((f) => f.endsWith(".js"))) {
    for (const [, spec] of readFileSync(new URL(file, widgets), "utf8").matchAll(/"(\.\d+[efg])"/g)) used.add(spec);
  }
  assert.ok(used.has(".3g") && used.size >= 10, [...used].join(" "));
  assert.deepEqual([...used].filter((spec) => !specs.includes(spec)), []);
});

// ------------------------------------------------------------------ a page with no kernel
// A builder-like widget: n needs a new scene (spec scene=True: `for`), a new n starts at step 1.
function savedBuilder() {
  const layout = { x: { offset: 0, shape: [2], dtype: "float64" } };
  const buffer = (a, b) => new DataView(new Float64Array([a, b]).buffer);
  const spec = { state: ["n", "step", "eps", "eps_exact"], controls: [{ name: "n", label: "n", kind: "slider", lo: 1, hi: 8,
    values: [1, 2, 3, 4, 5, 6, 7, 8] }] };
  const scene = (n) => ({ n, key: `n${n}`, for: { n }, tables: layout });
  return { state: { spec, n: 3, step: 2, eps: 18, eps_exact: null, error: "", scene: scene(3), tables: buffer(3, 3),
    answers: [{ state: { step: 1, spec: { state: [] } }, scene: scene(4), tables: buffer(4, 4) }] } };
}
const builderView = { ready: (ctx) => ctx.scene.n === ctx.state.n && ctx.tables.x.data[0] === ctx.state.n };
// anywidget's model over a saved state, as the site's loader plays it
function playedModel(record) {
  const attrs = { ...record.state };
  const listeners = {};
  const model = {
    get: (name) => attrs[name],
    set(name, value) {
      const changes = typeof name === "object" ? name : { [name]: value };
      const changed = Object.keys(changes).filter((k) => attrs[k] !== changes[k]);
      Object.assign(attrs, changes);
      for (const k of changed) for (const fn of listeners[`change:${k}`] || []) fn(model, attrs[k]);
    },
    on(events, fn) { for (const e of events.split(" ")) (listeners[e] = listeners[e] || []).push(fn); },
  };
  return model;
}
const standInModel = (record, view, refused) => standIn(playedModel(record), view, refused);

test("a page with no kernel: its model answers a change from the answers saved with it, as the kernel would", () => {
  const refused = [];
  const model = standInModel(savedBuilder(), builderView, () => refused.push(1));
  const events = [];
  model.on("change:scene change:step change:error", (m, v) => events.push(v));
  model.set("eps", 19); // the scene shown holds it: nothing to answer
  model.save_changes();
  assert.equal(model.get("scene").n, 3);
  model.set("n", 4); // an answer holds it: its scene, its tables, and the step Python resets
  model.save_changes();
  assert.equal(model.get("scene").n, 4);
  assert.equal(new Float64Array(model.get("tables").buffer)[0], 4);
  assert.equal(model.get("step"), 1);
  assert.equal(model.get("spec").state.length, 4); // an answer sets the scene and values, never the layout
  model.set("n", 3); // the saved scene answers too: back where the page started
  model.save_changes();
  assert.equal(model.get("scene").n, 3);
  assert.equal(events.filter((v) => v && v.n !== undefined).length, 2);
  assert.equal(refused.length, 0);
});

test("a page with no kernel: a change no answer holds goes back, the error area saying why", () => {
  const model = standInModel(savedBuilder(), builderView);
  assert.equal(model.cannotShow({ ...{ n: 3, step: 2, eps: 18, eps_exact: null }, n: 4 }), "");
  const why = model.cannotShow({ n: 6, step: 2, eps: 18, eps_exact: null });
  assert.equal(why, `n = 6 is not saved with this page: it ${NEEDS_KERNEL}.`);
  model.set("n", 6);
  model.save_changes();
  assert.equal(model.get("n"), 3); // refused as Python refuses: its own value back
  assert.match(model.get("error"), /n = 6 is not saved with this page/);
  model.set("n", 4);
  model.save_changes();
  assert.equal(model.get("error"), ""); // an answered change clears it, as the kernel's does
  // a view with find(ctx) (its record, null until it comes) and no ready() is asked the same way
  const finder = standInModel(savedBuilder(), { find: (ctx) => (ctx.state.step <= 4 ? ctx.scene : null) });
  assert.equal(finder.cannotShow({ n: 3, step: 4, eps: 18, eps_exact: null }), "");
  assert.match(finder.cannotShow({ n: 3, step: 6, eps: 18, eps_exact: null }), /^step = 6 is not saved/);
});

test("a page with no kernel: a typed eps and the kernel's buttons have no answer, and say why", async () => {
  const refused = [];
  const model = standInModel(savedBuilder(), builderView, () => refused.push(1));
  assert.match(model.cannotShow({ n: 3, step: 2, eps: 18, eps_exact: 3e-4 }),
    /^eps = 0\.0003 lies between the eps steps this page holds \(0\.0002 and 0\.0005\)/);
  assert.match(offGridWords(1e-12 * 1.5), /\(1e-12 and 2e-12\)/);
  const [answer, buffers] = await model.ask("numbers_at", { key: "n3", eps: 3e-4 });
  assert.match(answer.error, /0\.0003/);
  assert.deepEqual(buffers, []);
  assert.equal(refused.length, 0);
  assert.equal(model.cannotAsk("n"), `n ${NEEDS_KERNEL}.`);
  await model.ask("press_button", { name: "n" });
  assert.equal(refused.length, 1); // the site shows its line
});

test("what the page could not show is said in one line, naming the setting", () => {
  assert.equal(settingWords("x", "x", 2.35), "x = 2.35");
  assert.equal(settingWords("eps", "eps", 18), "eps = 1e-06");
  assert.equal(settingWords("fast_mode", "fast_mode", true), "fast_mode on");
  assert.match(NEEDS_KERNEL, /running notebook/);
});

test("askNumbers asks a request once per model, decodes its answer, drops a stale one and tells every view", async () => {
  const asked = [];
  const replies = { fresh: [{ tables: { v: { offset: 0, shape: [1], dtype: "float64" } }, note: "x" }, [new DataView(new Float64Array([7]).buffer)]],
    stale: [{ stale: true }, []], failed: [{ error: "could not" }, []] };
  let told = 0;
  const part = { answers: new Map(), ask: async (name, msg) => { asked.push([name, msg.key]); return replies[msg.key]; }, tell: () => { told += 1; } };
  for (const key of ["fresh", "stale", "failed"]) {
    const token = JSON.stringify({ key, eps: 3e-7 });
    assert.equal(askNumbers(part, token), null); // asked: nothing yet
    assert.equal(askNumbers(part, token), null); // and not asked twice
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(asked, [["numbers_at", "fresh"], ["numbers_at", "stale"], ["numbers_at", "failed"]]);
  const fresh = askNumbers(part, JSON.stringify({ key: "fresh", eps: 3e-7 }));
  assert.equal(fresh.note, "x");
  assert.equal(fresh.tables.v.data[0], 7); // the buffer, decoded as a scene's tables
  assert.equal(askNumbers(part, JSON.stringify({ key: "failed", eps: 3e-7 })), FAILED);
  assert.equal(told, 2); // the stale answer told no view: the new scene asks again
  assert.equal(askNumbers(part, JSON.stringify({ key: "stale", eps: 3e-7 })), null); // asked again
  assert.equal(asked.length, 4);
});

// ------------------------------------------------------------- controls the page presses itself
// A few DOM nodes, enough for buildControl: tags, classes, attributes, listeners, children.
class FakeNode {
  constructor(tag) {
    Object.assign(this, { tagName: tag.toUpperCase(), children: [], attrs: {}, dataset: {}, listeners: {},
      classes: new Set(), hidden: false, disabled: false, title: "", textContent: "", value: "" });
    this.classList = { toggle: (c, on) => (on ? this.classes.add(c) : this.classes.delete(c)), add: (c) => this.classes.add(c) };
  }
  set className(v) { for (const c of String(v).split(/\s+/).filter(Boolean)) this.classes.add(c); }
  setAttribute(k, v) { this.attrs[k] = String(v); if (k === "title") this.title = String(v); }
  getAttribute(k) { return this.attrs[k] ?? null; }
  addEventListener(kind, fn) { (this.listeners[kind] ||= []).push(fn); }
  fire(kind) { for (const fn of this.listeners[kind] || []) fn({}); }
  append(...nodes) { this.children.push(...nodes); }
  all() { return this.children.flatMap((c) => (c instanceof FakeNode ? [c, ...c.all()] : [])); }
  querySelectorAll(selector) {
    const tags = selector.split(",").map((t) => t.trim().toUpperCase());
    return this.all().filter((n) => tags.includes(n.tagName));
  }
}
globalThis.document ??= { createElement: (tag) => new FakeNode(tag), createTextNode: (text) => ({ text }) };

// A page for one control: its state, what it set, and (offline) a page with no kernel.
function controlPage(state, offline = false) {
  const ctx = { state: { ...state }, sets: [], clicks: [], controlState: () => ({}),
    whyNot: () => "", whyNotAsk: (name) => (offline ? `${name} needs a running notebook` : "") };
  ctx.set = (name, value, opts = {}) => {
    ctx.sets.push([name, value, opts.also || {}]);
    Object.assign(ctx.state, { [name]: value, ...(opts.also || {}) });
  };
  ctx.click = (name) => ctx.clicks.push(name);
  return ctx;
}
const buttonOf = (made) => made.row.all().find((n) => n.tagName === "BUTTON");

const HINT = { kind: "button", name: "hint", text: "Hint", css: "gk-h", kernel: false,
  count: ["hints_shown", 2], texts: { 2: "No more hints" } };
const SOLUTION = { kind: "button", name: "solution", text: "Show solution", css: "gk-s", kernel: false,
  count: ["solution_step", 2], texts: { 1: "Sure? Click again", 2: "Solution shown" } };

// EpsilonLab's half-precision toggle and GradcheckLab's retry, as Python sends them (w.spec["controls"])
const REVEAL = { kind: "button", name: "reveal", text: "show float16 and bfloat16", css: "gradkit-reveal",
  tooltip: "show or hide the half-precision dtypes", kernel: false,
  set: ["shown", ["float64", "float32", "float16", "bfloat16"]], unset: [["float64", "float32"], { dtype: "float32" }],
  pressed_text: "hide float16 and bfloat16" };
const RETRY = { kind: "button", name: "retry", text: "retry in float64", css: "gradkit-retry",
  tooltip: "gradcheck's own advice: run the check with float64 inputs", kernel: false, set: ["dtype", "float64"] };

test("a toggle sets its value, pressed again its unset list, moving each `also` key not among it", () => {
  const all = REVEAL.set[1];
  const press = (spec, state) => {
    const { key, value, also } = buttonPress(spec, state);
    return { ...state, ...also, [key]: value };
  };
  const first = { shown: ["float64", "float32"], dtype: "float64" };
  assert.deepEqual(press(REVEAL, first), { shown: all, dtype: "float64" });
  assert.deepEqual(press(REVEAL, { shown: ["float64"], dtype: "float64" }), { shown: all, dtype: "float64" });
  for (const [dtype, back] of [["float16", "float32"], ["bfloat16", "float32"], ["float64", "float64"], ["float32", "float32"]]) {
    assert.deepEqual(press(REVEAL, { shown: all, dtype }), { shown: ["float64", "float32"], dtype: back }, dtype);
  }
  assert.deepEqual(press(REVEAL, press(REVEAL, first)), first); // pressed twice: as it was
  // a set-button with no unset sets its value however often it is pressed
  for (const dtype of ["float32", "float16", "float64"]) {
    assert.deepEqual(buttonPress(RETRY, { dtype }), { key: "dtype", value: "float64", also: {} });
  }
});

test("a counter button counts to its last in the page, its label the text for the count", () => {
  assert.deepEqual(buttonPress(HINT, {}), { key: "hints_shown", value: 1, also: {} });
  assert.deepEqual(buttonPress(HINT, { hints_shown: 1 }).value, 2);
  assert.deepEqual(buttonPress(HINT, { hints_shown: 2 }).value, 2); // the last stays
  assert.equal(buttonText(HINT, { hints_shown: 1 }), "Hint");
  assert.equal(buttonText(HINT, { hints_shown: 2 }), "No more hints");
  assert.deepEqual([0, 1, 2].map((k) => buttonText(SOLUTION, { solution_step: k })),
    ["Show solution", "Sure? Click again", "Solution shown"]);
  assert.equal(buttonText(SOLUTION, { solution_step: 1 }, { text: "from Python" }), "from Python");
  assert.deepEqual([0, 1, 2].map((k) => buttonSpent(SOLUTION, { solution_step: k })), [false, false, true]);
  assert.equal(buttonSpent({ kind: "button", name: "check" }, {}), false);
  const ctx = controlPage({ solution_step: 0 });
  const made = buildControl(SOLUTION, ctx);
  const b = buttonOf(made);
  for (const [k, text, disabled] of [[1, "Sure? Click again", false], [2, "Solution shown", true]]) {
    b.fire("click");
    made.sync();
    assert.deepEqual([ctx.state.solution_step, b.textContent, b.disabled], [k, text, disabled]);
  }
  assert.deepEqual(ctx.clicks, []); // no kernel message
});

test("with no kernel only the buttons that go to the kernel are greyed out", () => {
  const run = { kind: "button", name: "run", text: "Run", css: "gk-run", kernel: false, by_page: true };
  const check = { kind: "button", name: "check", text: "Check", css: "gk-check", kernel: true };
  const ctx = controlPage({ hints_shown: 0 }, true);
  const states = {};
  for (const spec of [HINT, SOLUTION, run, check]) {
    const made = buildControl(spec, ctx);
    made.sync();
    states[spec.name] = [buttonOf(made).disabled, made.row.classes.has("gk-needs-kernel")];
    buttonOf(made).fire("click");
  }
  assert.deepEqual(states, { hint: [false, false], solution: [false, false], run: [false, false], check: [true, true] });
  assert.deepEqual(ctx.clicks, ["run", "check"]); // the view presses run (host.js: spec.by_page)
  assert.deepEqual(ctx.state.hints_shown, 1);
});

test("a drop-down or toggle with `also` sets those values with each change (a new specimen clears the guess)", () => {
  const menu = { kind: "dropdown", name: "entry", options: ["a", "b"], also: { prediction: null } };
  const ctx = controlPage({ entry: "a", prediction: "bug" });
  const made = buildControl(menu, ctx);
  const select = made.row.all().find((n) => n.tagName === "SELECT");
  select.value = "b";
  select.fire("change");
  assert.deepEqual(ctx.sets, [["entry", "b", { prediction: null }]]);
  assert.deepEqual(ctx.state, { entry: "b", prediction: null });
  const causes = { kind: "toggle", name: "dtype", options: ["float64", "float32"], also: { shown: ["float64"] } };
  const buttons = buildControl(causes, ctx).row.all().filter((n) => n.tagName === "BUTTON");
  buttons[1].fire("click");
  assert.deepEqual(ctx.sets.at(-1), ["dtype", "float32", { shown: ["float64"] }]);
  buildControl({ ...menu, also: undefined }, ctx).row.all().find((n) => n.tagName === "SELECT").fire("change");
  assert.deepEqual(ctx.sets.at(-1)[2], {}); // without `also`: its own value only
});

test("a drop-down offers only what the model answers, greyed out saying why where it answers no other", () => {
  const menu = { kind: "dropdown", name: "entry", options: ["a", "b", "c"], tooltip: "pick one" };
  const ctx = controlPage({ entry: "a" });
  const saved = new Set(["a", "c"]);
  ctx.whyNot = (changes) => (saved.has(changes.entry) ? "" : `${changes.entry} is not saved`);
  const made = buildControl(menu, ctx);
  const select = made.row.all().find((n) => n.tagName === "SELECT");
  const options = made.row.all().filter((n) => n.tagName === "OPTION");
  for (const o of options) o.value = o.attrs.value; // as the DOM reflects them
  made.sync();
  assert.deepEqual([options.map((o) => o.disabled), select.title, select.disabled], [[false, true, false], "pick one", false]);
  saved.delete("c");
  made.sync();
  assert.deepEqual([options.map((o) => o.disabled), select.title, select.disabled], [[false, true, true], "b is not saved", true]);
});

test("the eps grid and a slider: step buttons move one step, say so at their end, and grey out", () => {
  const eps = { kind: "grid", name: "eps", label: "eps", aria: "eps", css: "gradkit-eps",
    down: { css: "gradkit-eps-down", label: "÷10", tooltip: "smaller" }, up: { css: "gradkit-eps-up", label: "×10", tooltip: "larger" } };
  const ctx = controlPage({ eps: 0, eps_exact: 3e-7 });
  const grid = buildControl(eps, ctx);
  const [down, up] = grid.row.all().filter((n) => n.tagName === "BUTTON");
  grid.sync();
  assert.equal(grid.row.all().find((n) => n.tagName === "INPUT").attrs["aria-valuetext"], "eps 3e-07");
  assert.deepEqual([down.disabled, down.title], [false, "smaller"]); // a typed eps steps back onto the grid
  down.fire("click");
  assert.deepEqual([ctx.sets.at(-1)[0], ctx.state], ["eps", { eps: 13, eps_exact: null }]);
  ctx.state.eps = 0;
  grid.sync();
  assert.deepEqual([down.disabled, down.title, down.attrs["aria-label"]],
    [true, "eps is already the smallest here (1e-12)", "eps is already the smallest here (1e-12)"]);
  ctx.state.eps = 36;
  grid.sync();
  assert.deepEqual([down.disabled, down.title, up.disabled, up.title], [false, "smaller", true, "eps is already the largest here (1)"]);
  const key = (node, name) => node.listeners.keydown[0]({ key: name, preventDefault() {}, stopPropagation() {} });
  const epsInput = grid.row.all().find((n) => n.tagName === "INPUT");
  Object.assign(epsInput, { min: epsInput.attrs.min, max: epsInput.attrs.max, value: "30" }); // as the DOM reflects them
  key(epsInput, "PageUp"); // ÷10 / ×10 for Page Up/Down: one decade, three grid positions
  assert.deepEqual(ctx.state, { eps: 33, eps_exact: null });

  const x = { kind: "slider", name: "x", label: "x =", tooltip: "where", lo: -2, hi: 2, values: [1.5, 1.75, 2, 2.25, 2.5],
    format: ".6g", down: { css: "d", label: "−", tooltip: "left" }, up: { css: "u", label: "+", tooltip: "right" } };
  const page = controlPage({ x: 2 });
  page.whyNot = (changes) => (changes.x === -2 ? "x = 1.5 is not saved" : "");
  const slider = buildControl(x, page);
  const [left, right] = slider.row.all().filter((n) => n.tagName === "BUTTON");
  const input = slider.row.all().find((n) => n.tagName === "INPUT");
  slider.sync();
  assert.deepEqual([right.disabled, right.title], [true, "x = is already at the highest here (2.5)"]);
  assert.equal(input.attrs["aria-valuetext"], "x = 2.5");
  assert.deepEqual([input.min, input.max, input.title], ["-1", "2", "where (this page holds x = from 1.75 to 2.5; x = 1.5 is not saved)"]);
  left.fire("click");
  assert.deepEqual([page.sets.at(-1)[0], page.state], ["x", { x: 1 }]);
  input.value = "1";
  key(input, "PageDown"); // ten positions down, within the positions this page holds
  assert.deepEqual(page.state, { x: -1 });
  page.state.x = -1;
  slider.sync();
  assert.deepEqual([left.disabled, left.title, left.classes.has("gk-needs-kernel")], [true, "x = 1.5 is not saved", true]);
  page.whyNot = () => "";
  slider.sync();
  assert.deepEqual([left.disabled, left.title, left.classes.has("gk-needs-kernel")], [false, "left", false]);
});

test("a greyed-out control gets its own tooltip back once the model answers it", () => {
  const fast = { kind: "checkbox", name: "fast_mode", tooltip: "gradcheck's fast mode", text: "fast_mode" };
  const ctx = controlPage({ fast_mode: false });
  ctx.whyNot = (changes) => (changes.fast_mode ? "fast_mode on is not saved" : "");
  const made = buildControl(fast, ctx);
  const box = made.row.all().find((n) => n.tagName === "INPUT");
  made.sync();
  assert.deepEqual([box.title, box.disabled, box.classes.has("gk-needs-kernel")], ["fast_mode on is not saved", true, true]);
  ctx.whyNot = () => "";
  made.sync();
  assert.deepEqual([box.title, box.disabled, box.classes.has("gk-needs-kernel")], ["gradcheck's fast mode", false, false]);
});
