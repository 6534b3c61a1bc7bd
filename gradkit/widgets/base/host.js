// The browser half of every gradkit widget. initialize({model}) runs once per model: what its
// views share (page.js modelPart: the scene decoded as it comes, the way to ask the kernel, the
// answers to numbers_at by request). render({model, el, experimental}) runs per view: it builds
// the layout from the spec Python sent, keeps the values the page shows (ctx.state: each one a
// trait of its own under its name, spec.state lists them; the page sets only what it changed,
// ipywidgets' echo handling keeps an older answer from undoing a newer click) and paints the
// view: once per action, never again for the kernel's echo of a state the page already shows. The
// view (one per widget family) supplies:
//   init(ctx)   optional: once, before the first paint (e.g. a legend)
//   drawsFrom   the state keys its picture and readouts are drawn from (with the panels shown,
//               they make the paint key: the same key, nothing to repaint)
//   size(ctx)   [width, height] of the picture in CSS pixels (0 height: no picture), at most
//               ctx.room wide: the width the page gives the picture (null before it is laid
//               out); a narrower room redraws it narrower (base/fit.js pictureWidth), never shrunk
//   paint(ctx)  draw on ctx.painter; return {readouts: {name: html}, drawn: {...}}, or null when
//               the data for this state has not arrived yet (the busy mark shows until it does)
//   attached(ctx), detached(ctx)  optional: `el` is in the page / the view is gone
//   ready(ctx)  optional: whether ctx.scene holds what it draws for ctx.state (a model with no
//               kernel behind it asks, base/standin.js)
//   press(ctx, name)  optional: presses a button whose spec has by_page (the view sets the
//               state the press makes: a hunt's run)
// The model is the kernel's, or where there is none (the static site) a stand-in that answers
// from a table (base/standin.js): it says why it cannot answer a value or a command
// (model.cannotShow(state), model.cannotAsk(name)), and the page greys those controls out with
// that reason (ctx.whyNot, ctx.whyNotAsk); a kernel's model answers everything.
import { buildControl, h, shownValue } from "./controls.js";
import { FAILED, askNumbers, modelPart, valuesOf } from "./page.js";
import { makePainter } from "./plot.js";
import { readTheme, useTheme, watchTheme } from "./theme.js";

// The paint key of a view for the page's state: the values of its `drawsFrom` keys and the
// panels shown.
export function viewKey(view, ctx) {
  return JSON.stringify([...(view.drawsFrom || []).map((k) => ctx.state[k] ?? null), ctx.panels()]);
}

// The request for a typed eps's numbers the page makes in `state` (null on the grid): what they are
// for, the scene's key, the eps and the values spec.off_grid_of names, as one text (its answer is
// kept under it).
export function offGridRequest(spec, scene, state) {
  if (state.eps_exact == null || scene.key == null) return null;
  const msg = { key: scene.key, eps: state.eps_exact };
  for (const k of spec.off_grid_of || []) msg[k] = state[k] ?? null;
  return JSON.stringify(msg);
}

// Whether a scene was made for the values the page shows: it names the values of the controls
// that need a new scene (`for`: the function, a typed atol, n); until one for the page's values
// comes, the page keeps its picture under the busy mark.
export function sceneFits(scene, state) {
  return Object.entries(scene.for || {}).every(([k, v]) => JSON.stringify(state[k] ?? null) === JSON.stringify(v));
}

// anywidget's initialize, once per model: what its views share (page.js modelPart).
export function initialize({ model, experimental }) {
  modelPart(model, experimental);
}

export function render({ model, el, experimental }, view) {
  const spec = model.get("spec") || {};
  const part = modelPart(model, experimental); // made by initialize (here too where none ran)
  el.classList.add("gradkit-widget");
  if (spec.css) el.classList.add(spec.css); // the root hooks, in every front end (marimo too)
  const root = h("div", { class: "gk-inner" });
  el.append(root);
  const busy = h("span", { class: "gk-busy", role: "status", text: "computing…" });
  const header = h("div", { class: "gk-header" },
    h("span", { class: "gk-title", text: spec.title || "" }),
    h("span", { class: "gk-hint", text: spec.hint ? `— ${spec.hint}` : "" }), busy);
  const controls = h("div", { class: "gradkit-controls" });
  const readouts = h("div", { class: "gradkit-readouts", "aria-live": "polite" });
  const errorArea = h("div", { class: "gradkit-error", role: "alert" });
  const canvas = h("canvas", { role: "img", "aria-label": spec.alt || "" });
  const figure = h("div", { class: "gradkit-figure" }, canvas);
  const legend = h("div", { class: "gk-legend" });
  const note = h("div", { class: "gk-greyed-note", text: model.greyedNote || "" });
  // the legend above the picture: read before the marks it names, and never below the fold
  root.append(header, h("div", { class: "gk-row" }, controls, readouts), errorArea, legend, figure);
  // the model's line, shown while some control is greyed out (a model with no kernel behind it)
  note.hidden = true;
  if (model.greyedNote) root.append(note);

  const names = spec.state || []; // the values the page shows: each a trait of that name
  let asking = 0; // kernel buttons in flight: the busy mark waits for them
  let setting = false; // the page is writing its own change into the model
  let gone = false; // the view was taken down: nothing more to ask
  let lastKey = null;
  let paints = 0;
  let localError = "";
  let waiting = false;

  const ctx = {
    model, el, legend, h,
    spec,
    state: valuesOf(model, names),
    scene: {},
    tables: {},
    exact: null, // the kernel's answer for a typed eps off the grid (askExact), null until it comes
    drawn: {},
    room: null, // the width the picture may take, CSS px (null: not laid out yet)
    controlState(name) { return (model.get("control_state") || {})[name] || {}; },
    // why the model cannot answer the values `changes` lead to, or control `name` asking the
    // kernel ("" where it can: always, with a kernel)
    whyNot(changes) { return model.cannotShow ? model.cannotShow({ ...ctx.state, ...changes }) : ""; },
    whyNotAsk(name) { return model.cannotAsk ? model.cannotAsk(name) : ""; },
    panels() { return ctx.state.panels || spec.panels || []; },
    // a value as the learner reads it: a slider's position as its value (its spec's values)
    value(name) { return shownValue(spec.controls, name, ctx.state[name]); },
    showError(message) { localError = message; showErrors(); },
    set(name, value, opts = {}) {
      const changes = { [name]: value, ...(opts.also || {}) };
      Object.assign(ctx.state, changes);
      localError = "";
      showErrors();
      askExact();
      paint();
      // only the values changed travel, each in its own trait
      setting = true;
      try {
        for (const [k, v] of Object.entries(changes)) if (names.includes(k)) model.set(k, v);
      } finally { setting = false; }
      model.save_changes();
    },
    click(name) {
      // a button the view presses itself (spec.by_page): it sets the state the press makes
      const pressed = (spec.controls || []).find((s) => s.name === name) || {};
      if (pressed.by_page && view.press) {
        localError = "";
        showErrors();
        view.press(ctx, name);
        paint();
        return;
      }
      localError = "";
      showErrors();
      request("press_button", { name });
    },
  };

  const built = (spec.controls || []).map((s) => buildControl(s, ctx));
  for (const b of built) controls.append(b.row);
  const readoutNodes = {};
  for (const r of spec.readouts || []) {
    readoutNodes[r.name] = h("div", { class: `gradkit-readout ${r.css}` });
    readouts.append(readoutNodes[r.name]);
  }
  const g = canvas.getContext("2d");
  // The canvas keeps its last picture until the view draws the next one: a view whose data has
  // not arrived (paint returns null) leaves the old picture on screen, dimmed by the busy mark.
  let cleared = false;
  const clearOnce = () => {
    if (cleared) return;
    cleared = true;
    g.clearRect(0, 0, canvas.width, canvas.height);
  };
  const painter = makePainter(g);
  ctx.painter = Object.fromEntries(Object.entries(painter).map(([k, v]) =>
    [k, typeof v === "function" ? (...args) => { clearOnce(); return v.apply(painter, args); } : v]));

  // The error area, painted from its HTML as new nodes of a few plain tags (their class kept,
  // every other attribute dropped) and text: a saved or tampered trait never runs or loads.
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
    ctx.scene = part.scene;
    ctx.tables = part.tables;
    figure.dataset.scene = String(ctx.scene.id ?? "");
  }

  function markBusy() {
    el.classList.toggle("gk-is-busy", (waiting || asking > 0 || !!model.get("busy")));
  }

  // a request the busy mark waits for; what it changed comes back as traits (scene, values)
  function request(name, msg = {}) {
    asking += 1;
    markBusy();
    part.ask(name, msg).finally(() => { asking -= 1; markBusy(); });
  }

  // A typed eps off the grid: its numbers are asked with what they are for (the scene's key, the
  // eps, and the values spec.off_grid_of names), once per model (askNumbers); the answer, its
  // tables laid out as one x position and one eps of the scene's, comes to every view.
  function askExact() {
    const token = offGridRequest(spec, ctx.scene, ctx.state);
    ctx.exact = token ? askNumbers(part, token) : null;
  }

  // The theme: the palette as the page computes it on the root (none before the page attaches
  // it: the light fallback), read before each paint; a change repaints with the same data.
  const themeNow = () => readTheme(el.isConnected && typeof getComputedStyle === "function" ? getComputedStyle(el) : null);
  let paintedWith = "";

  // quiet: a repaint for the theme or the width, not an action of the learner's (not counted)
  // The width the page gives the picture: its container's (null until `el` is laid out).
  function measure() {
    const room = el.isConnected ? Math.floor(root.clientWidth) : 0;
    ctx.room = room > 0 ? room : null;
  }


  function paint(force = false, quiet = false) {
    for (const b of built) b.sync();
    note.hidden = !root.querySelector(".gk-needs-kernel");
    // a change that needs a new scene (another function, a typed atol): the old picture waits
    if (!sceneFits(ctx.scene, ctx.state)) { waiting = true; markBusy(); return; }
    // a typed eps the kernel could not measure: the error area says why, the picture stays
    if (ctx.exact === FAILED) { waiting = false; markBusy(); return; }
    const key = `${ctx.scene.key ?? ""}|${viewKey(view, ctx)}`;
    if (key === lastKey && !force) { waiting = false; markBusy(); return; }
    measure();
    const [w, hgt] = view.size ? view.size(ctx) : [0, 0];
    const dpr = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(hgt * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(hgt * dpr);
      // drawn in CSS pixels of this size, at most the room's width (shown as drawn); an output
      // area narrower than its last measure shrinks it whole until the redraw (aspect kept)
      canvas.style.width = `${w}px`;
      canvas.style.maxWidth = "100%";
      canvas.style.height = "auto";
    }
    figure.hidden = !(hgt > 0);
    let shown = null;
    try {
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      cleared = false;
      ctx.drawn = {};
      const colors = themeNow();
      useTheme(colors);
      paintedWith = JSON.stringify(colors);
      figure.dataset.theme = colors.paper;
      shown = view.paint ? view.paint(ctx) : { readouts: {} };
    } catch (err) {
      localError = `could not draw: ${err}`;
      showErrors();
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
      if (drawn.eps_label != null && drawn.eps == null) drawn.eps = drawn.eps_label;
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
  // The width: the picture is drawn at the width the page gives it (its container's), measured
  // once the page lays `el` out and again whenever it changes; a change that changes the
  // picture's size redraws it once, with the same data.
  const repaintForWidth = () => {
    measure();
    if (lastKey === null || !view.size) return;
    const [w] = view.size(ctx);
    const dpr = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    if (canvas.width !== Math.round(w * dpr)) paint(true, true);
  };
  // a change seen by the observer is drawn at the next frame (drawing inside its callback would
  // resize what it observes, a loop the browser reports as an error)
  let widthQueued = false;
  const widthChanged = () => {
    if (widthQueued || gone) return;
    widthQueued = true;
    requestAnimationFrame(() => { widthQueued = false; if (!gone) repaintForWidth(); });
  };
  const watcher = typeof ResizeObserver === "function" ? new ResizeObserver(widthChanged) : null;
  if (watcher) watcher.observe(root);
  // the first paint may come before the page attaches `el`: look again once it is there (and
  // tell the view, whose `attached(ctx)` may look at the page around it)
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
