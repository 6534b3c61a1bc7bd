// Tables computed ahead by torch (base/tables.py packs them): one buffer of arrays laid out by
// scene.tables = {name: {offset, shape, dtype}}, decoded as name -> {data, shape} (views).
import { EPS_GRID } from "./eps.js";

export function decodeTables(buffer, layout) {
  const out = {};
  if (!buffer || !layout) return out;
  const bytes = buffer instanceof ArrayBuffer ? buffer
    : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  for (const [name, spec] of Object.entries(layout)) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const Kind = spec.dtype === "float32" ? Float32Array : Float64Array;
    // a layout for another buffer (one trait arrived before the other): not this array
    if (spec.offset + size * Kind.BYTES_PER_ELEMENT > bytes.byteLength) continue;
    out[name] = { data: new Kind(bytes, spec.offset, size), shape: spec.shape };
  }
  return out;
}

// The flat offset of index (i, j, ...) in a C-ordered array of this shape.
export function flatIndex(shape, index) {
  let k = 0;
  for (let d = 0; d < shape.length; d++) {
    const i = index[d];
    if (!(i >= 0 && i < shape[d])) return -1;
    k = k * shape[d] + i;
  }
  return k;
}

// The last axis of `array` at the leading index `index` (e.g. one table row), or null.
export function rowOf(array, index) {
  if (!array) return null;
  const width = array.shape[array.shape.length - 1];
  const lead = array.shape.slice(0, -1);
  const k = flatIndex(lead, index);
  return k < 0 ? null : array.data.subarray(k * width, (k + 1) * width);
}

// A row as {field: number}, NaN for JSON's null (the kernel sends NaN as null in JSON).
export function record(fields, row) {
  return Object.fromEntries(fields.map((f, i) => [f, row[i] ?? NaN]));
}

// Where a point widget's tables hold the state's x and eps: x's slot `w`, and the table `from` at
// [at, ..., g] (the scene's at [w, eps]; a typed eps's answer at [0, 0], null until it comes).
export function pointSlot(scene, tables, exact, state) {
  const w = state.x - scene.window[0];
  if (!(w >= 0 && w < scene.window[1])) return null;
  if (state.eps_exact == null) return { w, from: tables, at: w, g: state.eps, eps: EPS_GRID[state.eps] };
  return { w, from: exact ? exact.tables : null, at: 0, g: 0, eps: state.eps_exact };
}

// The record a point widget draws, by `lookup(scene, tables, exact, state, x's value)`; null until
// the scene of the state's function (its field `ready`) and the record have come.
export function pointRecord(ctx, ready, lookup) {
  const { scene, state } = ctx;
  if (!scene[ready] || state.function !== scene.function) return null;
  return lookup(scene, ctx.tables, ctx.exact, state, ctx.value("x")) ?? null;
}
