// How the page talks to the kernel (base/page.py is its side), and what the views of a model share.
import { decodeTables } from "./tables.js";

export function valuesOf(model, names) {
  return Object.fromEntries((names || []).map((name) => [name, model.get(name)]));
}

// Asks an @anywidget.experimental.command for [answer, buffers]: by experimental.invoke, with no
// time limit (a busy kernel answers late); where invoke refuses (marimo), by invoke's own messages.
export function askKernel(model, experimental) {
  let viaInvoke = !!(experimental && typeof experimental.invoke === "function");
  const bySend = (name, msg) => new Promise((resolve) => {
    const id = `gradkit-${Math.random().toString(36).slice(2)}`;
    const answered = (content, buffers) => {
      if (!content || content.id !== id || content.kind !== "anywidget-command-response") return;
      model.off("msg:custom", answered);
      resolve([content.response, buffers || []]);
    };
    model.on("msg:custom", answered);
    model.send({ id, kind: "anywidget-command", name, msg });
  });
  return async (name, msg = {}) => {
    if (viaInvoke) {
      try {
        const [response, buffers] = await experimental.invoke(name, msg, { signal: new AbortController().signal });
        return [response, buffers || []];
      } catch (err) {
        viaInvoke = false; // it never aborts: a refusal means this front end has no invoke
      }
    }
    return bySend(name, msg);
  };
}

// What the views of one model share, made once: the scene and its tables decoded, ask, the
// numbers_at answers by request, and `views`: callbacks told when a scene or answer came.
const PARTS = new WeakMap();
export function modelPart(model, experimental) {
  if (PARTS.has(model)) return PARTS.get(model);
  const part = { scene: {}, tables: {}, answers: new Map(), ask: askKernel(model, experimental), views: new Set() };
  const load = () => {
    part.scene = model.get("scene") || {};
    part.tables = decodeTables(model.get("tables"), part.scene.tables);
  };
  part.tell = () => { for (const fn of [...part.views]) fn(); };
  // a scene's two traits may come one at a time, in any order (marimo): decode once both are in
  let queued = false;
  const changed = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; load(); part.tell(); });
  };
  model.on("change:scene", changed);
  model.on("change:tables", changed);
  load();
  PARTS.set(model, part);
  return part;
}

// A typed eps's numbers (`token`: offGridRequest's), asked once per model: null while asked, then
// {...json, tables} (FAILED: no answer), told to every view; an answer {stale} is dropped.
export const FAILED = Object.freeze({ failed: true });
export function askNumbers(part, token) {
  if (part.answers.has(token)) return part.answers.get(token);
  part.answers.set(token, null);
  part.ask("numbers_at", JSON.parse(token)).then(([answer, buffers]) => {
    if (!answer || answer.stale) { part.answers.delete(token); return; }
    const { tables: layout, ...meta } = answer;
    part.answers.set(token, answer.error ? FAILED : { ...meta, tables: decodeTables(buffers[0], layout) });
    if (part.answers.size > 64) part.answers.delete(part.answers.keys().next().value);
    part.tell();
  });
  return null;
}
