// gradkit widget base (plain ES module, no build step).
//
// Python (gradkit/widgets/_base.py) concatenates this file with one view file (slope_explorer.js,
// ...) and appends `export default { render };`. A view registers itself in VIEWS under the name
// in the `view` trait and may define:
//   init(ctx)            once, after the controls and the figure exist
//   paint(ctx)           after every state change: draw the moving layer, return readouts
//                        ({name: html}) or null to show Python's `readout_html`
// ctx holds: model, el, values (the local control state), table (Float64Array of the scene's
// precomputed table), axes(name) -> Axes (data -> CSS pixel maps), draw (canvas helpers),
// set(name, value, {scene}) (change a control locally, paint at once, sync to Python),
// drawn (an object the view fills with what it drew; published as data-drawn on the figure).

const VIEWS = {};

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

// ------------------------------------------------------------------------------ number format
// Python's format() for the specs the widgets use (".3f", ".2e", ".3g", ...), digit for digit.
function pyFormat(value, spec) {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  const m = /^\.(\d+)([efg])$/.exec(spec);
  if (!m) return String(value);
  const p = Number(m[1]);
  const kind = m[2];
  const exp = (s) => s.replace(/e([+-])(\d)$/, "e$10$2");
  if (kind === "f") return value.toFixed(p);
  if (kind === "e") return exp(value.toExponential(p));
  const q = Math.max(p, 1);
  if (value === 0) return "0";
  const e = Number(value.toExponential(q - 1).split("e")[1]);
  if (e < -4 || e >= q) {
    let [mant, ex] = value.toExponential(q - 1).split("e");
    if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
    return exp(`${mant}e${ex}`);
  }
  let s = value.toFixed(Math.max(q - 1 - e, 0));
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}

// ------------------------------------------------------------------------------------ axes
// One matplotlib Axes as Python described it: box [left, top, width, height] in CSS pixels of
// the image, data limits, "linear" or "log" scales.
class Axes {
  constructor(spec) {
    Object.assign(this, spec);
    [this.left, this.top, this.width, this.height] = spec.box;
  }
  _t(v, lim, scale) {
    if (scale === "log") {
      if (!(v > 0)) return NaN;
      return (Math.log10(v) - Math.log10(lim[0])) / (Math.log10(lim[1]) - Math.log10(lim[0]));
    }
    return (v - lim[0]) / (lim[1] - lim[0]);
  }
  px(x) { return this.left + this._t(x, this.xlim, this.xscale) * this.width; }
  py(y, ylim = this.ylim) { return this.top + (1 - this._t(y, ylim, this.yscale)) * this.height; }
}

// --------------------------------------------------------------------------------- drawing
function makeDraw(g) {
  const dash = { "-": [], "--": [6, 4], ":": [1.5, 3], "-.": [6, 3, 1.5, 3] };
  const stroke = (st) => {
    g.strokeStyle = st.color || "#222";
    g.lineWidth = st.lw || 1.5;
    g.globalAlpha = st.alpha ?? 1;
    g.setLineDash(dash[st.ls || "-"] || []);
  };
  const clip = (ax, fn) => {
    g.save();
    if (ax) {
      g.beginPath();
      g.rect(ax.left, ax.top, ax.width, ax.height);
      g.clip();
    }
    fn();
    g.restore();
  };
  return {
    clip,
    // a polyline in data coordinates; NaN breaks it
    line(ax, xs, ys, st = {}, ylim) {
      clip(st.noclip ? null : ax, () => {
        stroke(st);
        g.beginPath();
        let pen = false;
        for (let i = 0; i < xs.length; i++) {
          const X = ax.px(xs[i]);
          const Y = ax.py(ys[i], ylim);
          if (!Number.isFinite(X) || !Number.isFinite(Y)) { pen = false; continue; }
          if (pen) g.lineTo(X, Y); else g.moveTo(X, Y);
          pen = true;
        }
        g.stroke();
      });
    },
    // markers: "o" circle, "s" square, "^" triangle up, "v" down, "D" diamond, "x", "*"
    markers(ax, xs, ys, st = {}, ylim) {
      clip(st.noclip ? null : ax, () => {
        const r = (st.ms || 6) / 2;
        g.globalAlpha = st.alpha ?? 1;
        g.setLineDash([]);
        for (let i = 0; i < xs.length; i++) {
          const X = ax.px(xs[i]);
          const Y = ax.py(ys[i], ylim);
          if (!Number.isFinite(X) || !Number.isFinite(Y)) continue;
          g.beginPath();
          const m = st.marker || "o";
          if (m === "o") g.arc(X, Y, r, 0, 2 * Math.PI);
          else if (m === "s") g.rect(X - r, Y - r, 2 * r, 2 * r);
          else if (m === "^") { g.moveTo(X, Y - r); g.lineTo(X + r, Y + r); g.lineTo(X - r, Y + r); g.closePath(); }
          else if (m === "v") { g.moveTo(X, Y + r); g.lineTo(X + r, Y - r); g.lineTo(X - r, Y - r); g.closePath(); }
          else if (m === "D") { g.moveTo(X, Y - r); g.lineTo(X + r, Y); g.lineTo(X, Y + r); g.lineTo(X - r, Y); g.closePath(); }
          else if (m === "x") { g.moveTo(X - r, Y - r); g.lineTo(X + r, Y + r); g.moveTo(X + r, Y - r); g.lineTo(X - r, Y + r); }
          else if (m === "|") { g.moveTo(X, Y - r); g.lineTo(X, Y + r); }
          else if (m === "*") {
            for (let k = 0; k < 10; k++) {
              const a = -Math.PI / 2 + (k * Math.PI) / 5;
              const rr = k % 2 ? r * 0.45 : r;
              const f = k ? g.lineTo.bind(g) : g.moveTo.bind(g);
              f(X + rr * Math.cos(a), Y + rr * Math.sin(a));
            }
            g.closePath();
          }
          if (m === "x" || m === "|") {
            g.strokeStyle = st.color || "#222";
            g.lineWidth = st.mew || 1.5;
            g.stroke();
            continue;
          }
          if (st.fill !== "none") { g.fillStyle = st.color || "#222"; g.fill(); }
          if (st.mec) { g.strokeStyle = st.mec; g.lineWidth = st.mew || 1; g.stroke(); }
        }
      });
    },
    // a band x0..x1 over the axes' full height
    xspan(ax, x0, x1, st = {}) {
      clip(ax, () => {
        g.globalAlpha = st.alpha ?? 0.35;
        g.fillStyle = st.color || "#E69F00";
        const a = ax.px(x0);
        const b = ax.px(x1);
        g.fillRect(Math.min(a, b), ax.top, Math.max(Math.abs(b - a), 1), ax.height);
      });
    },
    vline(ax, x, st = {}) {
      clip(ax, () => {
        stroke(st);
        const X = ax.px(x);
        g.beginPath(); g.moveTo(X, ax.top); g.lineTo(X, ax.top + ax.height); g.stroke();
      });
    },
    text(x, y, s, st = {}) {
      g.save();
      g.globalAlpha = 1;
      g.fillStyle = st.color || "#222";
      g.font = st.font || "11px system-ui, sans-serif";
      g.textAlign = st.align || "left";
      g.textBaseline = st.baseline || "middle";
      g.fillText(s, x, y);
      g.restore();
    },
    // y tick labels and grid lines that change with the state (matplotlib drew the frame)
    yticks(ax, ticks, ylim) {
      for (const [v, label] of ticks) {
        const Y = ax.py(v, ylim);
        if (!(Y >= ax.top - 0.5 && Y <= ax.top + ax.height + 0.5)) continue;
        g.save();
        g.strokeStyle = "rgba(0,0,0,0.12)";
        g.lineWidth = 0.8;
        g.beginPath(); g.moveTo(ax.left, Y); g.lineTo(ax.left + ax.width, Y); g.stroke();
        g.strokeStyle = "#000"; g.lineWidth = 0.8;
        g.beginPath(); g.moveTo(ax.left - 3.5, Y); g.lineTo(ax.left, Y); g.stroke();
        g.restore();
        this.text(ax.left - 6, Y, label, { align: "right", font: "13px \"DejaVu Sans\", Verdana, sans-serif" });
      }
    },
  };
}

// -------------------------------------------------------------------------------- controls
function buildControl(spec, ctx) {
  const row = h("div", { class: `gk-control gk-${spec.kind}` });
  const label = spec.label
    ? h("span", { class: `gk-label${spec.short ? " gk-short" : ""}`, text: spec.label })
    : null;
  if (label) row.append(label);
  const tip = spec.tooltip || undefined;
  const name = spec.name;
  let sync = () => {};
  if (spec.kind === "grid" || spec.kind === "slider") {
    const grid = spec.kind === "grid";
    const input = h("input", {
      type: "range", class: spec.css, title: tip, "aria-label": spec.aria || spec.label,
      min: grid ? 0 : spec.min, max: grid ? spec.labels.length - 1 : spec.max,
      step: grid ? 1 : spec.step,
    });
    const shown = h("span", { class: "gk-value" });
    const value = () => ctx.values[name];
    const show = () => {
      const v = value();
      input.value = String(v);
      shown.textContent = grid
        ? (ctx.values[`${name}_exact`] != null ? spec.exact_label(ctx) : spec.labels[v])
        : pyFormat(Number(v), spec.format || ".3g");
      input.setAttribute("aria-valuetext", shown.textContent);
    };
    const clampSet = (v) => {
      const lo = grid ? 0 : spec.min;
      const hi = grid ? spec.labels.length - 1 : spec.max;
      v = Math.min(hi, Math.max(lo, v));
      if (!grid) v = Math.round(v * 1e10) / 1e10;
      // a grid move also shows its label in the text box at once (Python agrees later)
      const also = grid
        ? { [`${name}_exact`]: null, [`${name}_label`]: spec.labels[v], [`${name}_text`]: spec.labels[v] }
        : {};
      ctx.set(name, v, { scene: spec.scene, also });
    };
    const step = (sign) => () => {
      if (grid) clampSet(value() + sign * spec.steps);
      else clampSet(Number(value()) + sign * spec.step);
    };
    const down = spec.down ? h("button", { class: `gk-step ${spec.down.css}`, title: spec.down.tooltip,
      text: spec.down.label, onclick: step(-1) }) : null;
    const up = spec.up ? h("button", { class: `gk-step ${spec.up.css}`, title: spec.up.tooltip,
      text: spec.up.label, onclick: step(1) }) : null;
    input.addEventListener(spec.continuous === false ? "change" : "input", () =>
      clampSet(Number(input.value)));
    if (spec.continuous === false) input.addEventListener("input", () => {
      shown.textContent = grid ? spec.labels[Number(input.value)] : input.value; });
    row.append(...[down, input, up, shown].filter(Boolean));
    sync = show;
  } else if (spec.kind === "toggle") {
    const group = h("span", { class: `gk-toggle ${spec.css}`, role: "group", "aria-label": spec.label });
    const visible = () => (spec.shown_key ? ctx.values[spec.shown_key] || spec.options : spec.options);
    const buttons = spec.options.map((opt, i) => {
      const b = h("button", { title: (spec.tooltips || [])[i], text: opt, "data-value": opt,
        onclick: () => ctx.set(name, opt, { scene: spec.scene }) });
      group.append(b);
      return b;
    });
    row.append(group);
    sync = () => {
      const st = ctx.controlState(name);
      const shownOptions = st.options || visible();
      buttons.forEach((b) => {
        b.hidden = !shownOptions.includes(b.dataset.value);
        b.setAttribute("aria-pressed", String(b.dataset.value === ctx.values[name]));
        b.disabled = !!st.disabled;
      });
    };
  } else if (spec.kind === "dropdown") {
    const select = h("select", { class: spec.css, title: tip, "aria-label": spec.label,
      onchange: () => ctx.set(name, select.value, { scene: spec.scene }) });
    for (const opt of spec.options) select.append(h("option", { value: opt, text: opt }));
    row.append(select);
    sync = () => { select.value = ctx.values[name]; select.disabled = !!ctx.controlState(name).disabled; };
  } else if (spec.kind === "text") {
    const input = h("input", { type: "text", class: spec.css, title: tip, placeholder: spec.placeholder,
      "aria-label": spec.label });
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") input.blur(); });
    input.addEventListener("change", () => ctx.set(name, input.value, { scene: true }));
    row.append(input);
    sync = () => { if (document.activeElement !== input) input.value = ctx.values[name] ?? ""; };
  } else if (spec.kind === "checkbox") {
    const input = h("input", { type: "checkbox", class: spec.css, title: tip,
      onchange: () => ctx.set(name, input.checked, { scene: spec.scene }) });
    const lab = h("label", { class: "gk-check" }, input, document.createTextNode(` ${spec.text || ""}`));
    row.append(lab);
    sync = () => { input.checked = !!ctx.values[name]; };
  } else if (spec.kind === "button") {
    // a button with spec.set = [key, value] changes state in the browser (no kernel message)
    const b = h("button", { class: spec.css, title: tip, text: spec.text,
      onclick: () => (spec.set ? ctx.set(spec.set[0], spec.set[1], {}) : ctx.click(name, spec)) });
    row.append(b);
    sync = () => {
      const st = ctx.controlState(name);
      b.disabled = !!st.disabled;
      if (st.text) b.textContent = st.text;
      if (spec.set) b.hidden = JSON.stringify(ctx.values[spec.set[0]]) === JSON.stringify(spec.set[1]);
    };
  }
  const outer = () => { sync(); row.hidden = !!ctx.controlState(name).hidden; };
  return { row, sync: outer };
}

// ---------------------------------------------------------------------------------- render
function bytesOf(dv) {
  if (!dv) return null;
  if (dv instanceof ArrayBuffer) return dv;
  return dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength);
}

function render({ model, el }) {
  const view = VIEWS[model.get("view_name")] || {};
  const root = h("div", { class: "gk-inner" });
  el.classList.add("gradkit-widget");
  el.append(root);
  const busy = h("span", { class: "gk-busy", role: "status", text: "computing…" });
  const header = h("div", { class: "gk-header" },
    h("span", { class: "gk-title", text: model.get("title") }),
    h("span", { class: "gk-hint", text: model.get("hint") ? `— ${model.get("hint")}` : "" }), busy);
  const controls = h("div", { class: "gradkit-controls" });
  const readouts = h("div", { class: "gradkit-readouts" });
  const errorArea = h("div", { class: "gradkit-error", role: "alert" });
  const img = h("img", { alt: model.get("alt") || "" });
  const canvas = h("canvas");
  const figure = h("div", { class: "gradkit-figure" }, img, canvas);
  const legend = h("div", { class: "gk-legend" });
  root.append(header, h("div", { class: "gk-row" }, controls, readouts), errorArea);
  if (model.get("size")[0] > 0) root.append(figure, legend);

  // seq numbers the browser's changes; a re-rendered view (page reload, second view) starts
  // after the last one Python has seen, so its changes never look older than Python's state.
  let seq = Math.max(model.get("ack") || 0, (model.get("values") || {}).__seq || 0);
  const pending = {};
  // the latest browser change Python has handled: its ack, or the __seq its values carry
  const seen = (incoming) => Math.max(model.get("ack") || 0, (incoming && incoming.__seq) || 0);
  const ctx = {
    model, el, figure, legend, canvas, pyFormat, h,
    values: { ...model.get("values") },
    drawn: {},
    table: null,
    axesByName: {},
    axes(name) { return this.axesByName[name]; },
    controlState(name) { return (model.get("control_state") || {})[name] || {}; },
    set(name, value, opts = {}) {
      seq += 1;
      const changes = { [name]: value, ...(opts.also || {}) };
      for (const k of Object.keys(changes)) pending[k] = seq;
      Object.assign(ctx.values, changes);
      if (opts.scene) ctx.sceneSeq = seq;
      paint();
      // Send the browser's own state, never model.get("values"): a kernel update that arrived
      // since (an older echo) may hold older values there. __changed lists every key this
      // browser changed that Python has not handled yet; Python applies only those keys, so a
      // stale copy of another key can never undo a newer change (the lost-click race).
      const handled = seen(model.get("values"));
      const changed = Object.keys(pending).filter((k) => pending[k] > handled);
      model.set("values", { ...ctx.values, __seq: seq, __changed: changed });
      model.save_changes();
    },
    click(name) {
      seq += 1;
      ctx.sceneSeq = seq;
      paint();
      model.send({ type: "click", name, seq });
    },
    sceneSeq: 0,
  };

  const specs = model.get("controls");
  const built = specs.map((spec) => {
    if (spec.kind === "grid") spec.exact_label = (c) => c.values[`${spec.name}_label`] || "";
    return buildControl(spec, ctx);
  });
  for (const b of built) controls.append(b.row);
  const readoutNodes = {};
  for (const r of model.get("readouts")) {
    const node = h("div", { class: `gradkit-readout ${r.css}` });
    readoutNodes[r.name] = node;
    readouts.append(node);
  }

  const g = canvas.getContext("2d");
  ctx.draw = makeDraw(g);

  function loadScene() {
    const [w, hgt] = model.get("size");
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(hgt * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hgt}px`;
    img.style.width = `${w}px`;
    img.style.height = `${hgt}px`;
    const png = bytesOf(model.get("png"));
    if (png && png.byteLength) {
      if (img.src) URL.revokeObjectURL(img.src);
      img.src = URL.createObjectURL(new Blob([png], { type: "image/png" }));
    }
    ctx.axesByName = {};
    for (const spec of model.get("axes")) ctx.axesByName[spec.name] = new Axes(spec);
    // the axes' pixel boxes [left, top, width, height] (CSS pixels of the image), limits, scales
    figure.dataset.axes = JSON.stringify(model.get("axes"));
    const t = bytesOf(model.get("table"));
    ctx.table = t && t.byteLength ? new Float64Array(t) : new Float64Array(0);
    ctx.scene = model.get("scene");
    figure.dataset.scene = String(model.get("scene_id"));
    figure.dataset.renders = String(model.get("render_count"));
    if (view.scene) view.scene(ctx);
  }

  function paint() {
    const dpr = window.devicePixelRatio || 1;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, canvas.width, canvas.height);
    ctx.drawn = {};
    let shown = null;
    try {
      if (view.paint) shown = view.paint(ctx);
    } catch (err) {
      errorArea.innerHTML = "";
      errorArea.append(h("div", { class: "gk-alert", text: `Could not draw: ${err}` }));
      console.error(err);
    }
    const html = shown || model.get("readout_html") || {};
    for (const [name, node] of Object.entries(readoutNodes)) {
      const v = html[name] ?? "";
      if (node.innerHTML !== v) node.innerHTML = v;
    }
    for (const b of built) b.sync();
    // one eps convention on every widget: eps_value (the number) and eps_label (as the
    // controls print it), whether the view published eps as the number or as its label
    const d = ctx.drawn;
    if (d && d.eps != null) {
      if (d.eps_value == null) d.eps_value = Number(d.eps);
      if (d.eps_label == null) d.eps_label = typeof d.eps === "string" ? d.eps : pyFormat(Number(d.eps), ".3g");
    }
    figure.dataset.drawn = JSON.stringify(ctx.drawn);
    figure.dataset.values = JSON.stringify(ctx.values);
    el.classList.toggle("gk-is-busy", ctx.sceneSeq > model.get("ack") || model.get("busy"));
  }

  function fromPython() {
    // values from Python; keys this browser changed and Python has not handled yet stay local
    const incoming = model.get("values") || {};
    const handled = seen(incoming);
    for (const [k, v] of Object.entries(incoming)) {
      if (k === "__seq" || k === "__changed") continue;
      if ((pending[k] || 0) > handled) continue;
      ctx.values[k] = v;
    }
  }

  model.on("change:values", () => { fromPython(); paint(); });
  model.on("change:ack", () => { fromPython(); paint(); });
  model.on("change:busy", paint);
  model.on("change:control_state", paint);
  model.on("change:readout_html", paint);
  model.on("change:exact", paint);
  model.on("change:error", () => { errorArea.innerHTML = model.get("error"); });
  model.on("change:scene_id", () => { loadScene(); fromPython(); paint(); });
  errorArea.innerHTML = model.get("error");
  loadScene();
  if (view.init) view.init(ctx);
  paint();
  return () => { if (img.src) URL.revokeObjectURL(img.src); };
}
