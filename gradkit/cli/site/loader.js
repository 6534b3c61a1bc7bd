// The static site's page loader, written by `gradkit export` as assets/loader.js. A classic
// script (so it runs from file:// as from any static host), loaded after the page and after the
// widget modules (assets/widget-*.js, which register {esm, css} in globalThis.gradkitSiteModules).
//
// It plays the anywidget model for each widget slot ([data-gk-model]) from the state the executed
// notebook saved (JSON in #gk-site-widgets; binary buffers as base64, handed over as DataView as
// ipywidgets 8 does): get, set (change events fire as in Backbone), on, off, save_changes (nothing
// to save to: the page is the whole model) and send (no kernel: the widget shows the page's
// "needs a running notebook" line). Each module is imported from a blob: URL and its render (and
// initialize, once per model) called as anywidget calls them. No widget manager, no require.js,
// no network. Widgets read globalThis.__gradkitRenderOptions ({offline, offlineNote}) to grey out
// what needs the kernel, and play what their `offline` trait holds (saved with the state for such
// a page: scenes of other menu choices, hints, verdicts; gradkit/widgets/base/offline.py). When
// every slot is done, <body data-gk-site="ready">.
(function () {
  "use strict";
  const body = document.body;
  const NOTE = body.dataset.gkOfflineNote || "This needs a running notebook.";
  globalThis.__gradkitRenderOptions = { offline: true, offlineNote: NOTE };

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

  async function mount(slot, live) {
    const { model, record, initialized, experimental } = live;
    const widget = await widgetModule(record.module);
    if (widget.initialize && !initialized.done) {
      initialized.done = widget.initialize({ model, experimental }) || true;
    }
    await initialized.done;
    const el = document.createElement("div");
    for (const name of (record.state || {})._dom_classes || []) el.classList.add(name);
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
      const needsKernel = kernelLine(mine);
      const experimental = {
        invoke: async () => { needsKernel(); throw new Error(NOTE); },
      };
      const model = makeModel(record, needsKernel);
      lives.set(id, { model, record, experimental, initialized: { done: null } });
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
