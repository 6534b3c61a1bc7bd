// The static site's page loader, written by `gradkit export` as assets/loader.js. A classic
// script (so it runs from file:// as from any static host), loaded after the page and after the
// widget modules (assets/widget-*.js, which register {esm, css} in globalThis.gradkitSiteModules).
//
// It plays the anywidget model for each widget slot ([data-gk-model]) over the state the executed
// notebook saved (JSON in #gk-site-widgets; binary buffers as base64, handed over as DataView as
// ipywidgets 8 does), and the widget's own module makes it a stand-in for the kernel (its
// standIn, gradkit/widgets/base/standin.js): it answers the page from the answers saved with the
// state and greys out what needs a kernel, with its reason. Each module is imported from a blob: URL and its
// initialize (once per model) and render called as anywidget calls them. No widget manager, no
// require.js, no network. A page that sends what no saved answer holds shows the page's "needs a
// running notebook" line. When every slot is done, <body data-gk-site="ready">.
(function () {
  "use strict";
  const body = document.body;
  const NOTE = body.dataset.gkOfflineNote || "This needs a running notebook.";

  function dataView(base64) {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new DataView(bytes.buffer);
  }

  // state[path[0]][path[1]]... = value (a buffer's place in the state)
  function putAt(state, path, value) {
    let node = state;
    for (const key of path.slice(0, -1)) {
      if (node[key] === undefined || node[key] === null) node[key] = {};
      node = node[key];
    }
    node[path[path.length - 1]] = value;
  }

  // anywidget's model over the saved state: get, set (change events fire as in Backbone), on,
  // off, save_changes (nothing to save to) and send (no kernel: the page's line)
  function makeModel(record, needsKernel) {
    const attrs = JSON.parse(JSON.stringify(record.state || {}));
    for (const [path, data] of record.buffers || []) putAt(attrs, path, dataView(data));
    const listeners = {};
    const names = (events) => String(events || "").split(/\s+/).filter(Boolean);
    const emit = (event, ...args) => {
      for (const fn of [...(listeners[event] || [])]) fn(...args);
    };
    const model = {
      get: (name) => attrs[name],
      set(name, value) {
        const changes = name !== null && typeof name === "object" ? name : { [name]: value };
        const changed = Object.keys(changes).filter((k) => attrs[k] !== changes[k]);
        Object.assign(attrs, changes);
        for (const k of changed) emit(`change:${k}`, model, attrs[k]);
        if (changed.length) emit("change", model);
      },
      on(events, fn) {
        for (const e of names(events)) (listeners[e] = listeners[e] || []).push(fn);
      },
      off(events, fn) {
        const which = events ? names(events) : Object.keys(listeners);
        for (const e of which) listeners[e] = fn ? (listeners[e] || []).filter((f) => f !== fn) : [];
      },
      save_changes() {},
      send() { needsKernel(); },
    };
    return model;
  }

  const styles = new Set();
  function addStyle(css) {
    if (!css || styles.has(css)) return;
    styles.add(css);
    const node = document.createElement("style");
    node.textContent = css;
    document.head.append(node);
  }

  const imported = new Map();
  function widgetModule(key) {
    if (!imported.has(key)) {
      const source = (globalThis.gradkitSiteModules || {})[key];
      if (!source) return Promise.reject(new Error(`widget module ${key} is missing from assets/`));
      addStyle(source.css);
      const url = URL.createObjectURL(new Blob([source.esm], { type: "text/javascript" }));
      imported.set(key, import(url).then(async (mod) => {
        let widget = mod.default || mod;
        if (typeof widget === "function") widget = await widget();
        return widget;
      }));
    }
    return imported.get(key);
  }

  function kernelLine(slots) {
    return () => {
      for (const slot of slots) {
        const line = slot.querySelector(":scope > .gk-site-kernel-line");
        if (line) { line.textContent = NOTE; line.hidden = false; }
      }
    };
  }

  // the model of one saved widget, made once (every view of it shares it)
  function liveModel(live) {
    if (!live.made) {
      live.made = widgetModule(live.record.module).then(async (widget) => {
        const model = makeModel(live.record, live.needsKernel);
        // the widget's own stand-in answers from the answers saved with its state
        if (widget.standIn) widget.standIn(model, live.needsKernel);
        model.greyedNote = NOTE;
        const experimental = {
          invoke: model.ask || (async () => { live.needsKernel(); throw new Error(NOTE); }),
        };
        if (widget.initialize) await widget.initialize({ model, experimental });
        return { widget, model, experimental };
      });
    }
    return live.made;
  }

  async function mount(slot, live) {
    const { widget, model, experimental } = await liveModel(live);
    const el = document.createElement("div");
    for (const name of (live.record.state || {})._dom_classes || []) el.classList.add(name);
    const line = document.createElement("p");
    line.className = "gk-site-kernel-line";
    line.hidden = true;
    slot.replaceChildren(el, line);
    await widget.render({ model, el, experimental });
  }

  async function main() {
    const node = document.getElementById("gk-site-widgets");
    const data = node ? JSON.parse(node.textContent) : { models: {} };
    const slots = [...document.querySelectorAll("[data-gk-model]")];
    const lives = new Map();
    for (const [id, record] of Object.entries(data.models || {})) {
      const mine = slots.filter((s) => s.dataset.gkModel === id);
      lives.set(id, { record, needsKernel: kernelLine(mine), made: null });
    }
    const results = await Promise.allSettled(slots.map((slot) => {
      const live = lives.get(slot.dataset.gkModel);
      return live ? mount(slot, live) : Promise.reject(new Error("its state is not in the page"));
    }));
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      const name = slots[i].dataset.gkName || "This widget";
      console.error(`gradkit: ${name} could not start:`, result.reason);
      const note = document.createElement("div");
      note.className = "gk-site-note";
      note.setAttribute("role", "note");
      note.textContent = `${name} could not start on this page (${result.reason}). ${NOTE}`;
      slots[i].replaceChildren(note);
    });
    body.dataset.gkSite = "ready";
  }

  main();
})();
