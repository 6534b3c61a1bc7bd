// GradcheckLab's picture and readouts: the page looks Python's states (states.py) up, colours and words them.
import { epsLabel } from "../base/eps.js";
import { escapeHtml, marked } from "../base/format.js";
import { CELL_INKS, diverging, inkOn, linearTicks, powerLabel, ramp } from "../base/plot.js";
import { COLORS } from "../base/theme.js";
import { LEAST_FONT, clampLeft, pictureWidth } from "../base/fit.js";
import {
  cellLabels, cellText, fitTitle, matrixAxes, matrixCells, matrixFrame, matrixLines, outline, panelNote,
} from "../base/matrix.js";

// the verdict colours are the theme's (read at each paint); a missing entry's cell a light grey
export const LAB_COLORS = { get pass() { return COLORS.pass; }, get fail() { return COLORS.error; }, missing: "#E6E6E6" };
// The difference scale: blues below 1 (darker is safer), reds above (2x over already hot), to 1e±3.
export const RATIO_DECADES = 3;
const PASSING = ["#083C7D", "#1562A9", "#3989C1", "#66ABD4", "#A0CBE2", "#CBDEF1", "#E7F1FA"];
const FAILING = ["#FB7A5A", "#F75B40", "#EC382B", "#D21F20", "#B61319", "#940B13", "#67000D"];

// The colour of a cell whose difference is `ratio` times the allowed one.
export function ratioColour(ratio) {
  if (Number.isNaN(ratio)) return LAB_COLORS.missing;
  const l = Math.min(RATIO_DECADES, Math.max(-RATIO_DECADES, ratio > 0 ? Math.log10(ratio) : -Infinity));
  return ratio <= 1 ? ramp(PASSING, (l + RATIO_DECADES) / RATIO_DECADES) : ramp(FAILING, l / RATIO_DECADES);
}

// The colour-bar ticks of the ratio scale, a decade each: [log10 value, label].
export function ratioTicks() {
  const out = [];
  for (let k = -RATIO_DECADES; k <= RATIO_DECADES; k++) out.push([k, k === 0 ? "1 = limit" : powerLabel(k)]);
  return out;
}

// Half the width of the Jacobians' colour scale: the largest |entry| of both (1 when none).
export function jacobianScale(...matrices) {
  let v = 0;
  for (const m of matrices) if (m) for (const x of m) if (Number.isFinite(x)) v = Math.max(v, Math.abs(x));
  return v || 1;
}

// The state shown: {rec, numeric, analytic, ratio} (row-major arrays or null), or null until it comes.
export function labState(scene, tables, exact, state) {
  if (!scene.states || state.function !== scene.function) return null;
  const typed = state.eps_exact != null; // off the grid: the kernel's answer, packed as a scene
  if (typed && !exact) return null;
  const key = `${+!!state.fast_mode}|${state.dtype}`;
  const rec = typed ? (exact.states || {})[key] : scene.states[`${key}|${state.eps}`];
  if (!rec) return null;
  const source = typed ? exact.tables : tables;
  const rc = scene.shape[0] * scene.shape[1];
  const matrix = (name, k) => (k >= 0 && source[name] ? source[name].data.subarray(k * rc, (k + 1) * rc) : null);
  return { rec, numeric: matrix("matrices", rec.numeric), analytic: matrix("matrices", rec.analytic),
    ratio: matrix("ratios", rec.ratio) };
}

// What fast_mode changes in the words: gradcheck compares one random projection, not each entry.
export const FAST_MODE_WORDS = "fast_mode: one random projection of each Jacobian compared, not every entry";

function verdictHtml(scene, rec) {
  if (rec.unavailable) return `${marked("bad", "<b>✘ not checked</b>")} — ${escapeHtml(rec.unavailable)}`;
  const inputs = `${rec.dtypes.join(", ")} inputs${rec.fast_mode ? `; ${FAST_MODE_WORDS}` : ""}`;
  if (rec.passed) {
    return `${marked("good", "<b>✔ pass</b>")} — gradcheck returned True (${escapeHtml(inputs)}): ` +
      escapeHtml(scene.causes.pass);
  }
  return `${marked("bad", `<b>✘ ${escapeHtml(rec.verdict)}</b>`)} — cause: <b>${escapeHtml(rec.cause)}</b> ` +
    `(${escapeHtml(scene.causes[rec.cause] || "")}; ${escapeHtml(inputs)})`;
}

function aboutHtml(about) {
  if (about.yours) return `<b>${escapeHtml(about.name)}</b>: your Function, checked on your inputs.`;
  const bug = about.bug ? `<details><summary>reveal the bug</summary>${escapeHtml(about.bug)}</details>` : "";
  return `<b>${escapeHtml(about.name)}</b> (${about.correct ? "a correct rule" : "a buggy twin"}): ` +
    `${escapeHtml(about.description)}${bug}`;
}

// The worst entry: its numbers as Python wrote them (`shown`), failing or not (`outside`).
function worstHtml(w) {
  if (!w) return "<b>worst entry:</b> no Jacobians to compare";
  const code = (name) => `<code>${escapeHtml(w.shown[name])}</code>`;
  return `<b>worst entry</b> (boxed): ${escapeHtml(w.position)}: numeric ${code("numeric")}, ` +
    `analytic ${code("analytic")}, |diff| ${code("error")} ${w.outside ? "&gt;" : "≤"} allowed ` +
    code("tolerance");
}

function messageHtml(rec) {
  const parts = [];
  if (rec.message) {
    parts.push("<details><summary>torch's message</summary><pre style='white-space:pre-wrap;font-size:11px'>" +
      `${escapeHtml(rec.message)}</pre></details>`);
  }
  for (const w of rec.warnings || []) parts.push(`<div class="gk-warn">torch warned: ${escapeHtml(w)}</div>`);
  for (const n of rec.notes || []) parts.push(`<div class="gk-r-detail">note: ${escapeHtml(n)}</div>`);
  return parts.join("");
}

// The readouts of a state: the verdict always; the rest with the "verdict" panel.
export function labReadouts(scene, rec, panels) {
  const words = panels.includes("verdict") && !rec.unavailable;
  return {
    verdict: verdictHtml(scene, rec),
    description: words ? aboutHtml(scene.about) : "",
    explanation: words ? `<b>why:</b> ${escapeHtml(rec.explanation)}` : "",
    suggestion: words && rec.suggestion ? `<b>try:</b> ${escapeHtml(rec.suggestion)}` : "",
    worst: words ? worstHtml(rec.worst) : "",
    message: words ? messageHtml(rec) : "",
  };
}

// The picture's title: the Function, the inputs' dtype and the verdict.
export function labTitle(scene, rec) {
  if (rec.unavailable) return `${scene.function}, ${rec.dtype} inputs: not checked`;
  return `${scene.function}, ${rec.dtypes.join(", ")} inputs: ${rec.passed ? "✔ pass" : `✘ ${rec.verdict} (${rec.cause})`}`;
}

// The picture's title within 8 px each side: one line at y 18, or two at 9 and 24 (12 px at most).
export function titleLines(text, width, measure) {
  const fit = fitTitle(text, width - 16, measure, 14, LEAST_FONT);
  if (fit.lines.length === 1) return { ...fit, y: [18] };
  return { ...fit, size: Math.min(fit.size, 12), y: [9, 24] };
}

// Boxes in CSS pixels: the heatmaps, the colour bars (labels below them) and the picture's size. A
// row W wide keeps the 52-px margin, the gaps and the bar (NARROW_BAR px for its ticks) and shares
// the rest; narrower than designed, Jacobians and difference go one row each (ROW px high).
const TOP = 66;
const HEIGHT = 216;
export const NARROW_BAR = { jbar: 44, rbar: 64 };
export const ROW = 330;

function rowLayout(kind, W, top) {
  const [T, H] = [top + TOP, HEIGHT];
  if (kind === "difference") {
    const w = Math.min(300, W - 52 - 24 - NARROW_BAR.rbar);
    return { size: [W, top + ROW], difference: [52, T, w, H], rbar: [52 + w + 12, T, 12, H] };
  }
  const w = Math.min(190, (W - 52 - 28 - 24 - NARROW_BAR.jbar) / 2);
  return { size: [W, top + ROW], numeric: [52, T, w, H], analytic: [52 + w + 28, T, w, H], jbar: [52 + 2 * w + 40, T, 12, H] };
}

export const LAB_LAYOUT = {
  all: { ...rowLayout("jacobians", 580, 0), size: [860, ROW],
    difference: [572, TOP, 190, HEIGHT], rbar: [774, TOP, 12, HEIGHT] },
  jacobians: rowLayout("jacobians", 580, 0),
  difference: rowLayout("difference", 540, 0),
};
export const BAR_LABELS = { jbar: ["Jacobian", "entry"], rbar: ["ratio to", "allowed"] };

// The layout for the panels shown, at the width the page gives (`room`; null: the design width).
export function layoutFor(panels, room) {
  const j = panels.includes("jacobians");
  const d = panels.includes("difference");
  if (!j && !d) return { size: [pictureWidth(860, room), 0] };
  const design = LAB_LAYOUT[j && d ? "all" : j ? "jacobians" : "difference"];
  const W = pictureWidth(design.size[0], room);
  if (W === design.size[0]) return design;
  if (!(j && d)) return rowLayout(j ? "jacobians" : "difference", W, 0);
  return { ...rowLayout("jacobians", W, 0), ...rowLayout("difference", W, ROW), size: [W, 2 * ROW] };
}

// The pixels a heatmap's title may take: to the next heatmap in its row or the picture's edge, less 8.
export function titleRoom(lay, name) {
  const [left, top] = lay[name];
  const next = ["numeric", "analytic", "difference"].filter((n) => lay[n] && lay[n][1] === top)
    .map((n) => lay[n][0]).filter((x) => x > left);
  return Math.min(...next, lay.size[0]) - left - 8;
}

// Where a colour bar's label lines go: below the bar, from its left edge ({x, y, size}).
export function barLabelAt(box, k) {
  return { x: box[0], y: box[1] + box[3] + 9 + 12 * k, size: LEAST_FONT };
}

function missingNote(name, rec) {
  if (rec.unavailable) return ["not checked"];
  if (name === "difference") return ["no difference:", "a Jacobian is missing"];
  return [`no ${name} Jacobian:`, rec.passed ? "none to show" : `torch raised ${rec.verdict}`];
}

function drawBar(ctx, lay, name, cmap, lo, hi, ticks) {
  const box = lay[name];
  const ax = matrixAxes(name, box, 1, 1);
  ctx.painter.colorbar(ax, cmap, lo, hi, ticks);
  BAR_LABELS[name].forEach((line, k) => {
    const at = barLabelAt(box, k);
    const x = clampLeft(at.x, ctx.painter.measure(line, at.size), lay.size[0] - 2);
    ctx.painter.text(x, at.y, line, { size: at.size, baseline: "top" });
  });
}

function drawHeatmap(ctx, lay, name, found, colour) {
  const { scene, painter: dr } = ctx;
  const [rows, cols] = scene.shape;
  const ax = matrixAxes(name, lay[name], rows, cols);
  const titles = { numeric: ["numeric Jacobian", "(nudges)"], analytic: ["analytic Jacobian", "(backward)"],
    difference: ["|analytic − numeric| ÷ allowed", "(above 1 fails)"] };
  const first = name === "numeric" || !lay.numeric;
  const xlabel = `input entry j${scene.col_splits.length ? " (lines separate inputs)" : ""}`;
  matrixFrame(dr, ax, titles[name], { xlabel, xlabels: ["input entry j"], xlabelRoom: titleRoom(lay, name) + 16,
    ylabel: first ? "output entry i" : "", titleWidth: titleRoom(lay, name) });
  const data = found[name === "difference" ? "ratio" : name];
  if (!data) { panelNote(dr, ax, missingNote(name, found.rec)); return { ax, box: null }; }
  const fill = (i, j) => colour(data[i * cols + j]);
  matrixCells(dr, ax, fill);
  if (rows * cols <= 36) cellLabels(dr, ax, (i, j) => cellText(data[i * cols + j]), (i, j) => inkOn(fill(i, j)));
  matrixLines(dr, ax, { rows: scene.row_splits, cols: scene.col_splits });
  const cell = found.rec.worst && found.rec.worst.cell;
  if (!cell) return { ax, box: null };
  outline(dr, ax, [cell[0], cell[1], cell[0], cell[1]], CELL_INKS[1], 3.4); // dark with a white core:
  outline(dr, ax, [cell[0], cell[1], cell[0], cell[1]], CELL_INKS[0], 1.2); // seen on any cell colour
  return { ax, box: [+ax.px(cell[1] + 0.5).toFixed(2), +ax.py(cell[0] + 0.5).toFixed(2)] };
}

function failingCells(found, cols) {
  const out = [];
  if (found.ratio) found.ratio.forEach((r, q) => { if (!(r <= 1)) out.push([Math.floor(q / cols), q % cols]); });
  return out;
}

export const labView = {
  // a new Function or tolerance is a new scene: until it comes the old picture stays, dimmed
  drawsFrom: ["dtype", "eps", "eps_exact", "fast_mode"],
  find: (ctx) => labState(ctx.scene, ctx.tables, ctx.exact, ctx.state),
  layout: (ctx) => layoutFor(ctx.panels(), ctx.room),
  paint(ctx, found, lay) {
    const { scene, state, painter: dr } = ctx;
    const rec = found.rec;
    const vmax = jacobianScale(found.numeric, found.analytic);
    const jacobian = (v) => (Number.isFinite(v) ? diverging(v / vmax) : LAB_COLORS.missing);
    const shown = ["numeric", "analytic", "difference"].filter((name) => lay[name]);
    const outs = shown.map((name) => drawHeatmap(ctx, lay, name, found, name === "difference" ? ratioColour : jacobian));
    const axes = outs.map((out) => out.ax);
    const worstPx = Object.fromEntries(outs.map((out, k) => [shown[k], out.box]).filter(([, box]) => box));
    if (lay.jbar) drawBar(ctx, lay, "jbar", jacobian, -vmax, vmax, linearTicks(-vmax, vmax, 4));
    if (lay.rbar) drawBar(ctx, lay, "rbar", (l) => ratioColour(10 ** l), -RATIO_DECADES, RATIO_DECADES, ratioTicks());
    const title = lay.size[1] > 0 ? titleLines(labTitle(scene, rec), lay.size[0], (t, s) => dr.measure(t, s, "bold")) : null;
    if (title) {
      const color = rec.passed ? LAB_COLORS.pass : LAB_COLORS.fail;
      title.lines.forEach((line, k) => dr.text(lay.size[0] / 2, title.y[k], line,
        { align: "center", size: title.size, weight: "bold", color }));
    }
    const drawn = {
      function: scene.function, dtype: state.dtype, eps: rec.eps, eps_label: epsLabel(rec.eps),
      fast_mode: !!state.fast_mode, passed: rec.passed, cause: rec.cause, verdict: rec.verdict,
      shape: scene.shape, worst_cell: rec.worst ? rec.worst.cell : null, worst_px: worstPx, vmax,
      failing_cells: failingCells(found, scene.shape[1]), title: labTitle(scene, rec),
      title_lines: title ? title.lines : [], title_size: title ? title.size : null,
    };
    return { readouts: labReadouts(scene, rec, ctx.panels()), drawn, axes };
  },
};
