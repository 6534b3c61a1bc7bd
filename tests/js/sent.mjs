// What Python sent the page, as a fixture holds it (tools/js_fixtures.py): a scene's tables and the
// kernel's answer to a numbers_at request, each a buffer in base64, decoded as the page decodes them.
import { decodeTables } from "../../gradkit/widgets/base/tables.js";

const view = (b64) => {
  const bytes = Buffer.from(b64 || "", "base64");
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

// A scene's tables: {name: {data, shape}}.
export function tablesOf(sent) {
  return decodeTables(view(sent.tables), sent.scene.tables);
}

// The answer for a typed eps as host.js hands it to a view ({...json, tables}), or null.
export function answerOf(sent) {
  if (!sent.exact) return null;
  const { tables: layout, ...meta } = sent.exact.answer;
  return { ...meta, tables: decodeTables(view(sent.exact.buffer), layout) };
}
