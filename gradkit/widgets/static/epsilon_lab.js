// EpsilonLab's moving layer: one error curve per shown dtype (the chosen one emphasised), the
// theory lines, the stars at theory's best eps, the strip of "eps rounds to 0" / "error exactly 0"
// marks below the plot, and the cursor at the chosen eps. Everything from the scene's table.
const LAB = { grey: "#777777", ink: "#222222" };

function labCell(ctx, s, d, g, field) {
  const sc = ctx.scene;
  return ctx.table[sceneRow(sc, s, d, g) * sc.NF + sc.fields.indexOf(field)];
}

// Row (scheme s, dtype d, grid eps g) of the scene's strings, as scene_cell in _epsilon_table.py.
function labExtra(sc, s, d, g) {
  const { cells, head, ...r } = unpackStrings(sc, sc.cell_index, sceneRow(sc, s, d, g));
  return { r, cells, head };
}

VIEWS.epsilon_lab = {
  paint(ctx) {
    const sc = ctx.scene;
    const v = ctx.values;
    ctx.legend.innerHTML = "";
    if (!sc || sc.empty || !sc.fields) {
      ctx.drawn = { empty: true };
      return {};
    }
    const s = sc.schemes.indexOf(v.scheme);
    const shown = v.shown || sc.dtypes;
    const chosen = v.dtype;
    const main = ctx.axes("main");
    const strip = ctx.axes("strip");
    const dr = ctx.draw;
    const grid = sc.eps;
    const drawn = { eps: null, dtype: chosen, scheme: v.scheme, shown, curves: {}, strip: {}, strip_rows: [] };
    const shownNames = sc.dtypes.filter((name) => shown.includes(name));
    // theory lines for the chosen dtype
    const dc = sc.dtypes.indexOf(chosen);
    if (v.theory) {
      const trunc = grid.map((_, g) => labCell(ctx, s, dc, g, "truncation"));
      const round = grid.map((_, g) => labCell(ctx, s, dc, g, "rounding"));
      dr.line(main, grid, trunc.map((q) => (q > 0 ? q : NaN)), { color: LAB.grey, ls: "--", lw: 1.2 });
      dr.line(main, grid, round.map((q) => (q > 0 ? q : NaN)), { color: sc.colors[chosen], ls: ":", lw: 1.6 });
    }
    for (const name of sc.dtypes) {
      if (!shown.includes(name)) continue;
      const d = sc.dtypes.indexOf(name);
      const mine = name === chosen;
      const err = grid.map((_, g) => labCell(ctx, s, d, g, "error"));
      const pos = err.map((q) => (q > 0 ? q : NaN));
      const style = { color: sc.colors[name], lw: mine ? 2.6 : 1.0, alpha: mine ? 1 : 0.35, ls: sc.styles[name] };
      dr.line(main, grid, pos, style);
      dr.markers(main, grid, pos, { color: sc.colors[name], marker: sc.markers[name], ms: mine ? 4.5 : 2.5, alpha: style.alpha });
      const opt = sc.per_dtype[s][d];
      if (opt.optimal_eps > 0 && opt.optimal_error > 0)
        dr.markers(main, [opt.optimal_eps], [opt.optimal_error], { color: sc.colors[name], marker: "*", ms: 13, mec: LAB.ink, mew: 0.6, alpha: mine ? 1 : 0.45 });
      // the strip below the plot: one row per shown dtype, labelled here (not in the image)
      const row = shownNames.indexOf(name);
      const under = grid.filter((_, g) => labCell(ctx, s, d, g, "underflow") > 0);
      const zero = grid.filter((_, g) => err[g] === 0 && !(labCell(ctx, s, d, g, "underflow") > 0));
      dr.markers(strip, under, under.map(() => row), { color: sc.colors[name], marker: "x", ms: 6, mew: 1.5 });
      dr.markers(strip, zero, zero.map(() => row), { color: sc.colors[name], marker: "v", ms: 5 });
      dr.text(strip.left - 5, strip.py(row), name, { align: "right", font: "10px \"DejaVu Sans\", Verdana, sans-serif" });
      drawn.strip_rows.push(name);
      drawn.curves[name] = pos.map((q, g) => [grid[g], Number.isFinite(q) ? q : null]);
      drawn.strip[name] = { rounds_to_0: under, exactly_0: zero };
      const item = ctx.h("span", { class: "gk-legend-item", "data-dtype": name });
      const sw = ctx.h("span", { class: "gk-swatch" });
      sw.style.background = sc.colors[name];
      if (mine) sw.style.height = "4px";
      item.append(sw, document.createTextNode(name + (mine ? " (highlighted)" : "")));
      ctx.legend.append(item);
    }
    // the cursor: the chosen eps, and the chosen dtype's error there
    let eps;
    let err;
    let extra;
    let g = 0;
    if (v.eps_exact != null) {
      const ex = exactFor(ctx);
      if (!ex) return null;
      eps = ex.eps;
      const r = ex.rows[s][dc];
      err = r[sc.fields.indexOf("error")];
      err = err === null ? NaN : err;
      extra = ex.extra[s].map((cells) => cells);
    } else {
      g = v.eps;
      eps = grid[g];
      err = labCell(ctx, s, dc, g, "error");
      // every dtype's strings at this grid eps (the scene sends each distinct string once)
      extra = sc.dtypes.map((_, d) => ({ [g]: labExtra(sc, s, d, g) }));
    }
    dr.vline(main, eps, { color: LAB.ink, lw: 1.2 });
    dr.vline(strip, eps, { color: LAB.ink, lw: 1.2 });
    if (err > 0) dr.markers(main, [eps], [err], { fill: "none", mec: sc.colors[chosen], mew: 2, ms: 10 });
    // eps exactly as the controls show it ("1e-07"), and its value
    drawn.eps = v.eps_exact != null ? v.eps_label : ctx.model.get("controls").find((c) => c.name === "eps").labels[g];
    drawn.eps_value = eps;
    drawn.error = Number.isFinite(err) ? err : null;
    drawn.cursor_px = [+main.px(eps).toFixed(2), err > 0 ? +main.py(err).toFixed(2) : null];
    ctx.drawn = drawn;
    const texts = { ...extra[dc][g].r };
    // the table: shown dtypes only, the chosen one bold (as table_html in _epsilon_table.py)
    const bold = " style='font-weight:bold'";
    const rows = sc.dtypes
      .filter((name) => shown.includes(name))
      .map((name) => `<tr${name === chosen ? bold : ""}>${extra[sc.dtypes.indexOf(name)][g].cells}</tr>`)
      .join("");
    texts.table = `${extra[0][g].head}<table>${rows}</table>`;
    return texts;
  },
};
