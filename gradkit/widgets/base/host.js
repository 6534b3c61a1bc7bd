// The browser half of every widget (README.md, "The browser side, in short"): the page sets only what
// it changed and paints once per action, never again for the kernel's echo of a state it shows.
import { buildControl, h, shownValue } from "./controls.js";
import { FAILED, askNumbers, modelPart, valuesOf } from "./page.js";
import { makePainter } from "./plot.js";
import { readTheme, useTheme, watchTheme } from "./theme.js";

export function viewKey(view, ctx) {
  return JSON.stringify([...(view.drawsFrom || []).map((k) => ctx.state[k] ?? null), ctx.panels()]);
}

// A typed eps's request for numbers (null on the grid), as the one text its answer is kept under.
export function offGridRequest(spec, scene, state) {
  if (state.eps_exact == null || scene.key == null) return null;
  const msg = { key: scene.key, eps: state.eps_exact };
  for (const k of spec.off_grid_of || []) msg[k] = state[k] ?? null;
  return JSON.stringify(msg);
}

// Whether the scene was made for the values shown (scene.for); until one is, the picture waits.
export function sceneFits(scene, state) {
  return Object.entries(scene.for || {}).every(([k, v]) => JSON.stringify(state[k] ?? null) === JSON.stringify(v));
}

export function initialize({ model, experimental }) {
  modelPart(model, experimental);
}

export function render({ model, el, experimental }, view) {
  const spec = model.get("spec") || {};
  const part = modelPart(model, experimental); // made by initialize (or here, where none ran)
  el.classList.add("gradkit-widget");
  if (spec.css) el.classList.add(spec.css); // the root hooks, in every front end (marimo too)
  const root = h("div", { class: "gk-inner" });
  el.append(root);
  const busy = h("span", { class: "gk-busy", role: "status", text: "computing…" });
  const title = h("span", { class: "gk-title", text: spec.title || "" });
  const header = h("div", { class: "gk-header" }, title,
    h("span", { class: "gk-hint", text: spec.hint ? `— ${spec.hint}` : "" }), busy);
  const controls = h("div", { class: "gradkit-controls" });
  const readouts = h("div", { class: "gradkit-readouts", "aria-live": "polite" });
  const errorArea = h("div", { class: "gradkit-error", role: "alert" });
  const canvas = h("canvas", { role: "img", "aria-label": spec.alt || "" });
  const figure = h("div", { class: "gradkit-figure" }, canvas);
  const legend = h("div", { class: "gk-legend" });
  const note = h("div", { class: "gk-greyed-note", text: model.greyedNote || "", hidden: true });
  // the legend above the picture: read before the marks it names, and never below the fold
  root.append(header, h("div", { class: "gk-row" }, controls, readouts), errorArea, legend, figure);
  if (model.greyedNote) root.append(note); // shown while some control is greyed out (no kernel)

  const names = spec.state || []; // the values the page shows: each a trait of that name
  let asking = 0; // kernel buttons in flight: the busy mark waits for them
  let setting = false; // the page is writing its own change into the model
  let gone = false; // the view was taken down: nothing more to ask
  let lastKey = null;
  let paints = 0;
  let localError = "";
  let waiting = false;

  const ctx = {
    model, el, legend, controls, title, h, spec,
    state: valuesOf(model, names),
    scene: {},
    tables: {},
    exact: null, // the kernel's answer for a typed eps off the grid (askExact), null until it comes
    room: null, // the width the picture may take, CSS px (null: not laid out yet)
    controlState(name) { return (model.get("control_state") || {})[name] || {}; },
    // why the model cannot answer these changes, or control `name` asking ("" with a kernel)
    whyNot(changes) { return model.cannotShow ? model.cannotShow({ ...ctx.state, ...changes }) : ""; },
    whyNotAsk(name) { return model.cannotAsk ? model.cannotAsk(name) : ""; },
    panels() { return ctx.state.panels || spec.panels || []; },
    value(name) { return shownValue(spec.controls, name, ctx.state[name]); },
    showError(message) { localError = message; showErrors(); },
    // the legend's entries {swatch (CSS), mark (text), glyph [text, colour], label, attrs}
    showLegend(items) {
      const key = JSON.stringify(items);
      if (legend.dataset.key === key) return;
      legend.dataset.key = key;
      legend.replaceChildren(...items.map(({ swatch, mark, glyph, label, attrs = {} }) => {
        const sw = h("span", { class: "gk-swatch", text: mark });
        Object.assign(sw.style, swatch);
        const glyphNode = glyph && h("span", { "aria-hidden": "true", text: `${glyph[0]} ` });
        if (glyphNode) glyphNode.style.color = glyph[1];
        return h("span", { class: "gk-legend-item", ...attrs }, sw, glyphNode, document.createTextNode(label));
      }));
    },
    set(name, value, opts = {}) {
      const changes = { [name]: value, ...(opts.also || {}) };
      Object.assign(ctx.state, changes);
      ctx.showError("");
      askExact();
      paint();
      setting = true; // only the values changed travel, each in its own trait
      try {
        for (const [k, v] of Object.entries(changes)) if (names.includes(k)) model.set(k, v);
      } finally { setting = false; }
      model.save_changes();
    },
    click(name) {
      ctx.showError("");
      if ((spec.controls || []).find((s) => s.name === name)?.by_page && view.press) {
        view.press(ctx, name); // the view sets the state the press makes
        paint();
        return;
      }
      // the busy mark waits for the kernel; what it changed comes back as traits
      asking += 1;
      markBusy();
      part.ask("press_button", { name }).finally(() => { asking -= 1; markBusy(); });
    },
  };

  const built = (spec.controls || []).map((s) => buildControl(s, ctx));
  controls.append(...built.map((b) => b.row));
  const readoutNodes = Object.fromEntries((spec.readouts || []).map((r) =>
    [r.name, h("div", { class: `gradkit-readout ${r.css}` })]));
  readouts.append(...Object.values(readoutNodes));
  const g = canvas.getContext("2d");
  // the last picture stays until the view draws the next (paint null: dimmed by the busy mark)
  let cleared = false;
  const clearOnce = () => {
    if (cleared) return;
    cleared = true;
    g.clearRect(0, 0, canvas.width, canvas.height);
  };
  const painter = makePainter(g);
  ctx.painter = Object.fromEntries(Object.entries(painter).map(([k, v]) =>
    [k, typeof v === "function" ? (...args) => { clearOnce(); return v.apply(painter, args); } : v]));

  // The error HTML rebuilt as plain tags (class kept) and text: a tampered trait never runs or loads.
  function showErrors() {
    const fromPython = model.get("error") || "";
    const mine = localError ? `<div class="gk-alert"><b>Could not use that:</b> ${localError}</div>` : "";
    const parsed = new DOMParser().parseFromString(mine + fromPython, "text/html").body;
    const PLAIN = ["DIV", "SPAN", "P", "B", "I", "EM", "STRONG", "CODE", "PRE", "BR", "DETAILS", "SUMMARY"];
    const copy = (from, to) => {
      for (const node of from.childNodes) {
        if (node.nodeType === Node.TEXT_NODE) to.append(node.data);
        else if (node.nodeType !== Node.ELEMENT_NODE || ["SCRIPT", "STYLE", "TEMPLATE"].includes(node.tagName)) continue;
        else if (!PLAIN.includes(node.tagName)) copy(node, to);
        else to.append(copy(node, h(node.tagName.toLowerCase(), { class: node.getAttribute("class") || undefined })));
      }
      return to;
    };
    errorArea.replaceChildren(copy(parsed, document.createDocumentFragment()));
  }

  function loadScene() {
    Object.assign(ctx, { scene: part.scene, tables: part.tables });
    figure.dataset.scene = String(ctx.scene.id ?? "");
  }

  const markBusy = () => el.classList.toggle("gk-is-busy", waiting || asking > 0 || !!model.get("busy"));

  function askExact() { // a typed eps off the grid: asked once per model, told to every view
    const token = offGridRequest(spec, ctx.scene, ctx.state);
    ctx.exact = token ? askNumbers(part, token) : null;
  }

  // the palette as the page computes it on the root (the light fallback before it is attached)
  const themeNow = () => readTheme(el.isConnected && typeof getComputedStyle === "function" ? getComputedStyle(el) : null);
  let paintedWith = "";

  function measure() {
    const room = el.isConnected ? Math.floor(root.clientWidth) : 0;
    ctx.room = room > 0 ? room : null;
  }
  const dpr = () => (typeof window !== "undefined" && window.devicePixelRatio) || 1;

  // the view's record drawn: the canvas sized to its layout (laid out once), then painted
  function draw(found) {
    const lay = view.layout ? view.layout(ctx, found) : { size: [0, 0] };
    const [w, hgt] = lay.size;
    const scale = dpr();
    if (canvas.width !== Math.round(w * scale) || canvas.height !== Math.round(hgt * scale)) {
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(hgt * scale);
      // drawn at this CSS size; an output area narrower than its last measure shrinks it whole
      canvas.style.width = `${w}px`;
      canvas.style.maxWidth = "100%";
      canvas.style.height = "auto";
    }
    figure.hidden = !(hgt > 0);
    g.setTransform(scale, 0, 0, scale, 0, 0);
    cleared = false;
    const colors = themeNow();
    useTheme(colors);
    paintedWith = JSON.stringify(colors);
    figure.dataset.theme = colors.paper;
    return view.paint ? view.paint(ctx, found, lay) : { readouts: {} };
  }

  // quiet: a repaint for the theme or the width, not an action of the learner's (not counted)
  function paint(force = false, quiet = false) {
    for (const b of built) b.sync();
    note.hidden = !root.querySelector(".gk-needs-kernel");
    // a new scene pending: the old picture waits, dimmed; a typed eps not measured: the error says why
    const key = `${ctx.scene.key ?? ""}|${viewKey(view, ctx)}`;
    waiting = !sceneFits(ctx.scene, ctx.state);
    if (waiting || ctx.exact === FAILED || (key === lastKey && !force)) { markBusy(); return; }
    measure();
    let shown = null;
    try {
      const found = view.find ? view.find(ctx) : true; // the view's record: null until it comes
      if (found) shown = draw(found);
    } catch (err) {
      ctx.showError(`could not draw: ${err}`);
      console.error(err);
    }
    waiting = shown === null;
    if (!waiting) {
      lastKey = key;
      if (!quiet) paints += 1; // one per action: a theme or width change is none
      for (const [name, node] of Object.entries(readoutNodes)) {
        const v = (shown.readouts || {})[name] ?? "";
        if (node.innerHTML !== v) node.innerHTML = v;
      }
      const drawn = shown.drawn || {};
      figure.dataset.drawn = JSON.stringify(drawn);
      figure.dataset.state = JSON.stringify(ctx.state);
      figure.dataset.axes = JSON.stringify((shown.axes || []).map((a) => a.spec()));
      figure.dataset.paints = String(paints);
    }
    markBusy();
  }

  // values the kernel changed (Python set them, or refused the page's and sent its own back)
  function fromPython() {
    if (setting) return;
    Object.assign(ctx.state, valuesOf(model, names));
    askExact();
  }

  for (const name of names) model.on(`change:${name}`, () => { fromPython(); paint(); });
  model.on("change:busy", markBusy);
  model.on("change:control_state", () => paint());
  model.on("change:error", showErrors);
  // a scene or a typed eps's answer came (page.js modelPart tells every view of the model)
  const shared = () => { if (!gone) { loadScene(); fromPython(); paint(); } };
  part.views.add(shared);
  showErrors();
  loadScene();
  askExact();
  if (view.init) view.init(ctx);
  paint(true);
  const repaintForTheme = () => { if (lastKey !== null && JSON.stringify(themeNow()) !== paintedWith) paint(true, true); };
  const stopWatching = watchTheme(repaintForTheme);
  // the picture is drawn at the width the page gives it: a change of its size redraws it once
  const repaintForWidth = () => {
    measure();
    if (lastKey === null || !view.layout) return;
    const found = view.find ? view.find(ctx) : true;
    if (found && canvas.width !== Math.round(view.layout(ctx, found).size[0] * dpr())) paint(true, true);
  };
  // drawn at the next frame: drawing inside the observer would resize what it observes (a loop)
  let widthQueued = false;
  const widthChanged = () => {
    if (widthQueued || gone) return;
    widthQueued = true;
    requestAnimationFrame(() => { widthQueued = false; if (!gone) repaintForWidth(); });
  };
  const watcher = typeof ResizeObserver === "function" ? new ResizeObserver(widthChanged) : null;
  if (watcher) watcher.observe(root);
  // the first paint may come before `el` is attached: look again then, and tell view.attached
  let tries = 0;
  const untilAttached = () => {
    if (el.isConnected) {
      repaintForTheme();
      repaintForWidth();
      if (view.attached) view.attached(ctx);
    } else if (++tries < 400) setTimeout(untilAttached, 25);
  };
  if (typeof setTimeout === "function") setTimeout(untilAttached, 0);
  return () => {
    gone = true; stopWatching(); tries = Infinity; part.views.delete(shared);
    if (watcher) watcher.disconnect();
    if (view.detached) view.detached(ctx);
  };
}
