// How the page talks to the kernel (base/page.py is the kernel's side), and what every view of
// one model shares (modelPart).
import { decodeTables } from "./tables.js";

export function valuesOf(model, names) {
  return Object.fromEntries((names || []).map((name) => [name, model.get(name)]));
}

// A request to a Python method marked @anywidget.experimental.command, answered as [answer,
// buffers]: anywidget's experimental.invoke, with no time limit (a kernel busy with a long cell
// answers late, never not at all); where invoke refuses (marimo's), the same command message by
// model.send, its answer a custom message, as anywidget's own invoke sends and reads them.
export function askKernel(model, experimental) {
  let viaInvoke = !!(experimental && typeof experimental.invoke === "function");
  let count = 0;
  const bySend = (name, msg) => new Promise((resolve) => {
    count += 1;
    const id = `gradkit-${count}-${Math.random().toString(36).slice(2)}`;
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

// What every view of one model shares, made once (anywidget's initialize): the scene with its
// tables decoded, the way to ask the kernel, and the answers to numbers_at kept by request (asked
// once, whichever view asked). `views`: each view's callback, called when a scene or answer came.
const PARTS = new WeakMap();
export function modelPart(model, experimental) {
  if (PARTS.has(model)) return PARTS.get(model);
  const part = { scene: {}, tables: {}, answers: new Map(), ask: askKernel(model, experimental), views: new Set() };
  const load = () => {
    part.scene = model.get("scene") || {};
    part.tables = decodeTables(model.get("tables"), part.scene.tables);
  };
  part.tell = () => { for (const fn of [...part.views]) fn(); };
  // a scene arrives as two traits (JSON and buffer); some front ends (marimo) apply them one at a
  // time, in any order: decode once both are in, in one task
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

// A typed eps's numbers (`token`: offGridRequest's text), asked once per model: its answer as a
// view reads it ({...json, tables} decoded; FAILED where the kernel could not answer), null while
// asked; every view is told when it comes. An answer for a scene the kernel has replaced
// ({stale}) is dropped: the new scene's request asks again.
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
