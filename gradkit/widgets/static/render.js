// gradkit: render(), the anywidget entry point: the layout, the sync with Python (the __seq /
// ack handshake) and the paint loop. Part of the base concatenated before every view file.

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
