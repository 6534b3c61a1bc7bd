// How the page talks to the kernel (base/page.py is the kernel's side): the values it shows, each
// a synced trait of its own under the value's name (spec.state: the names), and requests,
// anywidget commands.

// The values the model holds, by name (`names`: spec.state).
export function valuesOf(model, names) {
  return Object.fromEntries((names || []).map((name) => [name, model.get(name)]));
}

// A request to the kernel, answered by a Python method marked @anywidget.experimental.command,
// as [answer, buffers]: anywidget's experimental.invoke, with no time limit (a kernel busy with a long cell answers
// late, never not at all). A front end whose invoke refuses (marimo's says "not supported") gets
// the same anywidget command message by model.send, its answer a custom message, as
// anywidget's own invoke sends and reads them.
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
