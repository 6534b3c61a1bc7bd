// gradkit: the controls Python specified (toggles, sliders, the eps grid, text, buttons).
// Part of the base concatenated before every view file (see base.js).

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
