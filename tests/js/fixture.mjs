// Reading the fixtures Python writes (tools/js_fixtures.py), the one way every test reads them.
// To keep the files small a scene's table buffer is zlib-compressed (`tables_zlib`), and a
// fixture's states are written as their changes from the first (`state`, then `changes`).
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";

import { decodeTables } from "../../gradkit/widgets/base/tables.js";

// tests/js/fixtures/<name>.json, parsed.
export function readFixture(name) {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8"));
}

const inflated = (text) => {
  const bytes = inflateSync(Buffer.from(text, "base64"));
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

// The tables of what Python sent (`sent.scene`, `sent.tables_zlib`): inflated, they are the bytes
// the kernel sends the page, read by the page's own decodeTables.
export function tablesOf(sent) {
  return decodeTables(inflated(sent.tables_zlib), sent.scene.tables);
}

// The kernel's answer to the page's numbers_at request (`sent.exact`: its JSON and its buffer) as
// host.js hands it to a view: {...json, tables}; null where there is none (on the grid).
export function answerOf(sent) {
  if (!sent.exact) return null;
  const { tables: layout, ...meta } = sent.exact.answer;
  return { ...meta, tables: decodeTables(inflated(sent.exact.buffer_zlib), layout) };
}

// A state of a fixture's `states`: the first state with this one's changes.
export function stateOf(sent, row) {
  return { ...sent.state, ...row.changes };
}

// A row of numbers as {field: value}, with the names Python listed once (`fields`).
export function named(fields, values) {
  return Object.fromEntries(fields.map((f, i) => [f, values[i]]));
}

// A view painted as host.js paints it: its record found, laid out once, then painted (null: the
// record has not come).
export function paintAsHost(view, ctx) {
  const found = view.find ? view.find(ctx) : true;
  if (!found) return null;
  return view.paint(ctx, found, view.layout ? view.layout(ctx, found) : { size: [0, 0] });
}
