// The pictures follow the page's theme (base/theme.js): the palette read from the computed
// --gk-* properties, a repaint when the theme changes, and, painted from scenes Python sent
// (tools/js_fixtures.py) in the light and the dark theme, every line and marker at 3:1 or more
// against the picture's paper and every text at 4.5:1 or more.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { makePainter, inkOn } from "../../gradkit/widgets/base/plot.js";
import {
  COLORS, LIGHT, contrast, cssColor, luminance, readTheme, themed, useTheme, watchTheme,
} from "../../gradkit/widgets/base/theme.js";
import { epsilonView } from "../../gradkit/widgets/epsilon/epsilon.js";
import { rulerView } from "../../gradkit/widgets/ruler/ruler.js";
import { slopeView } from "../../gradkit/widgets/slope/slope.js";
import { paintAsHost, readFixture, stateOf, tablesOf } from "./fixture.mjs";

// The dark half of the palette, as theme.css sets it (gradkit/_palette.py PALETTE_DARK).
const css = readFileSync(new URL("../../gradkit/widgets/base/theme.css", import.meta.url), "utf8");
function paletteOf(rule) {
  return Object.fromEntries([...rule.matchAll(/--gk-([\w-]+): (#[0-9A-F]{6});/g)].map((m) => [m[1], m[2]]));
}
const DARK = paletteOf(css.split("\n").find((line) => line.startsWith('body[data-jp-theme-light="false"]')));
const styleOf = (palette) => ({ getPropertyValue: (name) => ` ${palette[name.replace(/^--gk-/, "")] ?? ""}` });

test("the fallback is the light palette of theme.css, and the dark one names the same colours", () => {
  const light = paletteOf(css.split("\n").find((line) => line.startsWith(".gradkit-widget { --gk-blue")));
  assert.deepEqual(light, { ...LIGHT });
  assert.deepEqual(Object.keys(DARK), Object.keys(LIGHT));
  assert.notEqual(DARK.paper, LIGHT.paper);
});

test("readTheme reads the computed --gk-* values, and keeps the light one for a missing or odd value", () => {
  assert.deepEqual(readTheme(styleOf(DARK)), DARK);
  assert.deepEqual(readTheme(null), { ...LIGHT });
  const odd = readTheme(styleOf({ ...DARK, ink: "var(--x)", paper: "" }));
  assert.equal(odd.ink, LIGHT.ink);
  assert.equal(odd.paper, LIGHT.paper);
  assert.equal(odd.blue, DARK.blue);
});

test("useTheme switches the colours in use; themed maps a light palette value to the theme's", () => {
  useTheme({ ...LIGHT });
  assert.equal(themed(LIGHT.blue), LIGHT.blue);
  useTheme(DARK);
  assert.equal(COLORS.ink, DARK.ink);
  assert.equal(themed(LIGHT.blue.toLowerCase()), DARK.blue);
  assert.equal(themed("#123456"), "#123456");
  assert.equal(cssColor("purple"), `var(--gk-purple, ${LIGHT.purple})`);
  assert.throws(() => cssColor("teal"), /no palette colour named "teal"/);
  useTheme({ ...LIGHT });
});

test("contrast is WCAG's, and cell labels read on every fill in every theme", () => {
  assert.equal(contrast("#000000", "#FFFFFF").toFixed(2), "21.00");
  assert.equal(contrast("rgb(255,255,255)", "#FFF"), 1);
  assert.ok(Math.abs(luminance("#777777") - 0.1845) < 1e-3);
  assert.throws(() => luminance("teal"), /not a colour/);
  for (const fill of [...Object.values(LIGHT), ...Object.values(DARK), "rgb(128,128,128)", "#2166AC", "#F7F7F7"]) {
    assert.ok(contrast(inkOn(fill), fill) >= 4.5, `${inkOn(fill)} on ${fill}`);
  }
});

test("watchTheme calls back on body / html attribute changes and on prefers-color-scheme, until stopped", () => {
  const observed = [];
  const listeners = new Set();
  let calls = 0;
  class FakeObserver {
    constructor(fn) { this.fn = fn; this.on = true; observed.push(this); }
    observe(node, options) { this.node = node; this.options = options; }
    disconnect() { this.on = false; }
  }
  const win = {
    document: { body: { name: "body" }, documentElement: { name: "html" } },
    MutationObserver: FakeObserver,
    matchMedia: (q) => ({ media: q, addEventListener: (_, f) => listeners.add(f), removeEventListener: (_, f) => listeners.delete(f) }),
  };
  const stop = watchTheme(() => { calls += 1; }, win);
  const [observer] = observed;
  assert.ok(observer.options.attributeFilter.includes("data-jp-theme-light"));
  observer.fn([]);
  for (const f of listeners) f();
  assert.equal(calls, 2);
  stop();
  assert.equal(observer.on, false);
  assert.equal(listeners.size, 0);
  assert.doesNotThrow(() => watchTheme(() => {}, undefined)()); // node: no window, nothing to watch
});

// --------------------------------------------------------------------- painted colours
// A 2D context that records the colour, alpha and width of every stroke, fill and text.
function recordingContext() {
  const marks = [];
  let st = { strokeStyle: "#000000", fillStyle: "#000000", globalAlpha: 1, lineWidth: 1 };
  const stack = [];
  const g = {
    save() { stack.push({ ...st }); },
    restore() { st = stack.pop() || st; },
    stroke() { marks.push({ kind: "line", color: st.strokeStyle, alpha: st.globalAlpha, lw: st.lineWidth }); },
    fill() { marks.push({ kind: "fill", color: st.fillStyle, alpha: st.globalAlpha }); },
    fillRect(x, y, w, h) { marks.push({ kind: "rect", color: st.fillStyle, alpha: st.globalAlpha, w, h }); },
    strokeRect() { marks.push({ kind: "line", color: st.strokeStyle, alpha: st.globalAlpha, lw: st.lineWidth }); },
    fillText(s) { marks.push({ kind: "text", color: st.fillStyle, alpha: st.globalAlpha, text: s }); },
    measureText(s) { return { width: 6 * String(s).length }; },
  };
  const proxy = new Proxy(g, {
    get: (t, k) => (k in t ? t[k] : k in st ? st[k] : () => {}),
    set: (t, k, v) => { st[k] = v; return true; },
  });
  return { g: proxy, marks };
}

const sceneOf = (sent) => ({ scene: sent.scene, tables: tablesOf(sent), x: sent.x_value });

globalThis.document ??= { createTextNode: (text) => ({ text }) };
function paintMarks(view, { scene, tables, x }, state, palette) {
  useTheme(palette);
  const { g, marks } = recordingContext();
  const el = () => ({ style: {}, dataset: {}, append() {} });
  const ctx = {
    scene, tables, exact: null, state, value: () => x, painter: makePainter(g), h: el, legend: { ...el(), innerHTML: "" }, showLegend() {},
    panels: () => state.panels || scene.panels || [], set() {}, drawn: {},
  };
  const shown = paintAsHost(view, ctx);
  assert.ok(shown, `painted ${JSON.stringify(state)}`);
  useTheme({ ...LIGHT });
  return marks;
}

// A colour at an opacity over the paper, as the canvas blends it.
function over(color, alpha, paper) {
  const rgb = (c) => { const n = parseInt(c.slice(1), 16); return [(n >> 16) & 255, (n >> 8) & 255, n & 255]; };
  const [a, b] = [rgb(color), rgb(paper)];
  return `rgb(${a.map((v, i) => Math.round(b[i] + (v - b[i]) * alpha)).join(",")})`;
}

// Each mark, blended over the paper at its opacity: text 4.5:1, lines and markers 3:1. Filled
// rectangles are backgrounds (the panel's face, bands, cells), and a stroke in the paper's own
// colour is a halo around a marker, not a mark.
function unreadable(marks, palette) {
  const bad = [];
  for (const m of marks) {
    if (m.kind === "rect" || m.color === palette.paper || m.color === palette.grid) continue; // grid: decoration
    const least = m.kind === "text" ? 4.5 : 3;
    const ratio = contrast(over(m.color, m.alpha, palette.paper), palette.paper);
    if (ratio < least) bad.push({ ...m, ratio: +ratio.toFixed(2) });
  }
  return bad;
}

const THEMES = { light: { ...LIGHT }, dark: DARK };
for (const [theme, palette] of Object.entries(THEMES)) {
  test(`SlopeExplorer in the ${theme} theme: every line, marker and text reads on its paper`, () => {
    const fx = readFixture("slope");
    const sc = sceneOf(fx);
    for (const dtype of ["float64", "float32"]) {
      const state = fx.states.map((row) => stateOf(fx, row)).find((s) => s.dtype === dtype && s.eps_exact == null);
      const marks = paintMarks(slopeView, sc, state, palette);
      assert.deepEqual(unreadable(marks, palette), [], `${dtype}`);
      // the zoom window: its own colour, dotted edges and bracket ends, at full opacity
      const window = marks.filter((m) => m.color === palette.purple && m.kind === "line" && m.alpha === 1);
      assert.ok(window.length >= 8, `zoom window marks: ${window.length}`);
      assert.notEqual(palette.purple, palette.vermillion);
      assert.ok(marks.some((m) => m.kind === "rect" && m.color === palette.paper), "the panel's face is the paper");
    }
  });

  test(`EpsilonLab in the ${theme} theme: every curve at full colour, every text readable`, () => {
    const fx = readFixture("epsilon");
    const sc = sceneOf(fx.main);
    const state = { ...fx.main.state, shown: fx.main.scene.dtypes, theory: true };
    const marks = paintMarks(epsilonView, sc, state, palette);
    assert.deepEqual(unreadable(marks, palette), []);
    // the float64 curve is drawn in the theme's blue, not the light value Python sent
    assert.ok(marks.some((m) => m.kind === "line" && m.color === palette.blue && m.lw >= 1.4));
  });

  test(`FloatRuler in the ${theme} theme: every line, marker and text reads on its paper`, () => {
    const fx = readFixture("ruler").half;
    const sc = sceneOf(fx);
    const state = fx.state;
    const marks = paintMarks(rulerView, sc, state, palette);
    assert.deepEqual(unreadable(marks, palette), []);
  });
}

test("text wraps at spaces: the widget and its pre undo a page's word-break: break-all", () => {
  const rule = (selector) => {
    const at = css.indexOf(`${selector} {`);
    assert.ok(at >= 0, `no rule ${selector}`);
    return css.slice(at, css.indexOf("}", at));
  };
  assert.doesNotMatch(css.replace(/\/\*[\s\S]*?\*\//g, ""), /break-all|overflow-wrap:\s*anywhere/);
  const roots = [...css.matchAll(/^\.gradkit-widget \{[^}]*\}/gm)].map((m) => m[0]).join("\n");
  assert.match(roots, /word-break: normal;/);
  assert.match(roots, /overflow-wrap: break-word;/);
  // JupyterLab's .jp-OutputArea-output pre { word-break: break-all } is (0,1,1): ours is more specific
  const pre = rule(".gradkit-widget .gradkit-error pre, .gradkit-widget .gradkit-readouts pre");
  assert.match(pre, /word-break: normal;\s*overflow-wrap: break-word;/);
});
