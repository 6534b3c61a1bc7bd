// JacobianBuilder's picture and readouts: every call of gradcheck's slow mode, made ahead by torch
// (steps.py); step / run all / reset move along them here, with no kernel message.
import { marked, pyFormat, readoutHtml } from "../base/format.js";
import { inkOn, ramp } from "../base/plot.js";
import { COLORS } from "../base/theme.js";
import { pictureWidth } from "../base/fit.js";
import { cellLabels, cellText, matrixAxes, matrixCells, matrixFrame, matrixLines, outline } from "../base/matrix.js";

// each matrix's palette colour (the theme's, read at each paint)
const HUE = { numeric: "blue", analytic: "green" };

// What step k shows: numeric columns 0 … columns-1, analytic rows 0 … rows-1, the current one.
export function stepParts(scene, k) {
  const { n, m } = scene;
  const step = Math.max(0, Math.min(n + m, k));
  return {
    step, columns: Math.min(step, n), rows: Math.max(0, step - n),
    current: step === 0 ? null : step <= n ? { column: step - 1 } : { row: step - n - 1 },
  };
}

const sub = (k) => `<sub>${k}</sub>`;

// What step k does, in words and the formula.
export function statusHtml(scene, x, k) {
  const { n, m } = scene;
  const head = `<span class="gk-r-label">step ${k} of ${n + m}</span>&nbsp; `;
  if (k === 0) {
    return `${head}one plain run of f at x: ${m} output entr${m === 1 ? "y" : "ies"}, so the Jacobians are ` +
      `${m} × ${n}. Press <b>step</b> or <b>run all</b>.`;
  }
  if (k <= n) {
    const j = k - 1;
    return `${head}nudge input entry ${j} (x${sub(j)} = ${pyFormat(x[j], ".4g")}) by ±${pyFormat(scene.eps, ".3g")}: ` +
      `(f(x + eps·e${sub(j)}) − f(x − eps·e${sub(j)})) / (2·eps) fills <b>column ${j}</b> of the numeric Jacobian`;
  }
  const i = k - n - 1;
  return `${head}backward with grad_output = e${sub(i)} (1 at output entry ${i}, 0 elsewhere) returns ` +
    `e${sub(i)}ᵀJ: <b>row ${i}</b> of the analytic Jacobian`;
}

// The build's calls up to step k, and gradcheck's own count beside them (one count, measured).
export function callsHtml(scene, tables, k) {
  const f = tables.forward.data[k];
  const b = tables.backward.data[k];
  const ms = tables.seconds.data[k] * 1e3;
  const columns = Math.min(k, scene.n);
  const build = readoutHtml("this build so far", `${f} forward, ${b} backward`,
    `(forward: 1 plain run + 2 × ${columns} nudged; backward: one per output entry built) · ${pyFormat(ms, ".3g")} ms`);
  const g = scene.gradcheck;
  const whole = g
    ? readoutHtml("torch.autograd.gradcheck, counted", `${g.forward} forward, ${g.backward} backward`,
      "(the whole check on this x: these two Jacobians plus checks of its own)")
    : readoutHtml("torch.autograd.gradcheck, counted", "—", "(gradcheck raised on this f)");
  return `${build}<br>${whole}`;
}

// gradcheck's comparison of the finished Jacobians, and torch's own verdict.
export function verdictHtml(scene, tables) {
  const { n, m } = scene;
  const total = n * m;
  const out = tables.outside.data;
  const allowed = `${pyFormat(scene.atol, ".6g")} + ${pyFormat(scene.rtol, ".6g")}·|numeric|`;
  const q = out.findIndex((v) => v !== 0);
  const torchSays = scene.gradcheck ? (scene.gradcheck.passed ? "gradcheck passes" : "gradcheck fails") : "";
  if (q < 0) {
    return `${marked("good", `✔ all ${total} entries agree`)} <span class="gk-r-detail">(|analytic − numeric| ≤ ` +
      `${allowed} everywhere)${torchSays ? `: ${torchSays}` : ""}</span>`;
  }
  const bad = out.reduce((s, v) => s + (v !== 0 ? 1 : 0), 0);
  const [i, j] = [Math.floor(q / n), q % n];
  return `${marked("bad", `✘ ${bad} of ${total} entries differ by more than ${allowed}`)}` +
    `${torchSays ? marked("bad", `: ${torchSays}`) : ""} <span class="gk-r-detail">e.g. output entry ${i}, input entry ` +
    `${j}: analytic ${pyFormat(tables.analytic.data[q], ".6g")}, numeric ${pyFormat(tables.numeric.data[q], ".6g")}</span>`;
}

// Every n built so far: the build's calls, gradcheck's count and the time.
export function historyHtml(history) {
  const pair = (f, b) => (f === null || f === undefined ? "—" : `${f}, ${b}`);
  const body = history.map((h) => `<tr><td>${h.n}</td><td>${pair(h.forward, h.backward)}</td>` +
    `<td>${pair(h.gradcheck_forward, h.gradcheck_backward)}</td><td>${pyFormat(h.seconds * 1e3, ".3g")} ms</td></tr>`);
  return '<span class="gk-r-label">every n built (forward, backward calls)</span><table class="gk-history">' +
    `<tr><th>n</th><th>this build</th><th>gradcheck</th><th>time</th></tr>${body.join("")}</table>`;
}

// The panels' boxes and the picture's size: square cells up to 48 px within the width and 260 px of
// height; side by side while cells can be MIN_CELL px, else stacked (`room` null: 860 or 500 px).
export const MIN_CELL = 40;
export function jbLayout(panels, n, m, room = null) {
  const shown = ["numeric", "analytic"].filter((p) => panels.includes(p));
  if (shown.length === 0) return { size: [pictureWidth(860, room), 0] };
  const width = pictureWidth(shown.length === 2 ? 860 : 500, room);
  const across = width === 860 || (width - 40) / shown.length - 90 >= MIN_CELL * Math.min(n, 5) ? shown.length : 1;
  const slot = (width - 40) / across;
  const cell = Math.min(48, (slot - 90) / n, 260 / m);
  const height = Math.ceil(66 + cell * m + 58);
  const out = { size: [width, height * Math.ceil(shown.length / across)] };
  shown.forEach((name, k) => {
    const [col, row] = [k % across, Math.floor(k / across)];
    out[name] = [40 + col * slot + (slot - cell * n) / 2 + 20, 66 + row * height, cell * n, cell * m];
  });
  return out;
}

function drawMatrix(ctx, lay, name, parts) {
  const { scene, tables, painter: dr } = ctx;
  const { n, m } = scene;
  const ax = matrixAxes(name, lay[name], m, n);
  const title = name === "numeric" ? ["numeric Jacobian", "column j ← nudge input entry j"]
    : ["analytic Jacobian", "row i ← backward of a 1 at output entry i"];
  matrixFrame(dr, ax, title, { right: lay.size[0] });
  const values = tables[name].data;
  const bad = tables.outside.data;
  const filled = name === "numeric" ? (i, j) => j < parts.columns : (i) => i < parts.rows;
  let biggest = 0;
  for (const v of values) if (Number.isFinite(v)) biggest = Math.max(biggest, Math.abs(v));
  // a cell's fill: the palette colour over the paper, stronger for a larger entry
  const fill = (i, j) => {
    if (!filled(i, j)) return COLORS.paper;
    if (name === "analytic" && bad[i * n + j] !== 0) return ramp([COLORS.paper, COLORS.vermillion], 0.85);
    const alpha = 0.12 + (biggest > 0 ? (0.45 * Math.abs(values[i * n + j])) / biggest : 0);
    return ramp([COLORS.paper, COLORS[HUE[name]]], alpha);
  };
  matrixCells(dr, ax, fill);
  matrixLines(dr, ax, { grid: COLORS.grid });
  cellLabels(dr, ax, (i, j) => (filled(i, j) ? cellText(values[i * n + j]) : ""), (i, j) => inkOn(fill(i, j)));
  const c = parts.current;
  if (c && name === "numeric" && c.column !== undefined) outline(dr, ax, [0, c.column, m - 1, c.column], COLORS.purple, 2.5);
  if (c && name === "analytic" && c.row !== undefined) outline(dr, ax, [c.row, 0, c.row, n - 1], COLORS.purple, 2.5);
  return ax;
}

// Where step / run all / reset move from step s of `last`; a button that would stay is disabled.
export const MOVES = { step_button: (s, last) => Math.min(s + 1, last), run_button: (s, last) => last, reset_button: () => 0 };

export const jacobianView = {
  // step / run all / reset beside the n control: the page moves by itself (no kernel)
  init(ctx) {
    const move = (name) => MOVES[name](ctx.state.step || 0, ctx.scene.n + ctx.scene.m);
    ctx.jbButtons = Object.fromEntries(ctx.spec.steps.map((spec) => [spec.name, ctx.h("button", {
      class: spec.css, title: spec.tooltip, text: spec.text,
      onclick: () => { if (ctx.scene.n && !ctx.scene.failed) ctx.set("step", move(spec.name)); } })]));
    ctx.controls.append(ctx.h("div", { class: "gk-control gk-jb-buttons" }, ctx.h("span", { class: "gk-label gk-short" }),
      ...Object.values(ctx.jbButtons)));
  },
  // a new n is a new scene: until it comes the old picture stays, dimmed by the busy mark
  drawsFrom: ["n", "step"],
  // n's position is n itself (its slider's grid is 0 + k·1): the scene of the n shown, null while
  // the kernel builds a new n (a build that failed shows why)
  find: (ctx) => (ctx.scene.n === ctx.state.n ? ctx.scene : null),
  layout(ctx) {
    const sc = ctx.scene;
    return sc.failed ? { size: [pictureWidth(860, ctx.room), 0] } : jbLayout(ctx.panels(), sc.n, sc.m, ctx.room);
  },
  paint(ctx, scene, lay) {
    const { tables, state } = ctx;
    if (scene.failed) {
      for (const button of Object.values(ctx.jbButtons)) button.disabled = true;
      const status = marked("bad", `nothing to show: f raised an error at n = ${scene.n} (the message is below)`);
      return { readouts: { status }, drawn: { failed: true } };
    }
    const parts = stepParts(scene, state.step);
    const axes = ["numeric", "analytic"].filter((name) => lay[name]).map((name) => drawMatrix(ctx, lay, name, parts));
    const T = scene.n + scene.m;
    for (const [name, button] of Object.entries(ctx.jbButtons)) button.disabled = MOVES[name](parts.step, T) === parts.step;
    const counts = ctx.panels().includes("counts");
    const readouts = {
      status: statusHtml(scene, tables.x.data, parts.step),
      calls: counts ? callsHtml(scene, tables, parts.step) : "",
      verdict: parts.step === T ? verdictHtml(scene, tables) : "",
      history: counts ? historyHtml(scene.history) : "",
    };
    const drawn = { step: parts.step, steps: T, n: scene.n, m: scene.m, columns: parts.columns, rows: parts.rows,
      current: parts.current };
    return { readouts, drawn, axes };
  },
};
