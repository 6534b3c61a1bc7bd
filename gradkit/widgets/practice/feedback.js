// What Quiz and Predict share in the page: quiz text with `code`, the verdict box, option
// buttons (toggles with aria-pressed, each reached by Tab) and the learner's own option order.
import { escapeHtml } from "../base/format.js";

export const VERDICT = { right: "Right.", wrong: "Not quite.", retry: "Try another answer." };

// Quiz text as HTML: escaped, with `backticks` shown as code.
export function richText(text) {
  return escapeHtml(text ?? "").replace(/`([^`]+)`/g, "<code>$1</code>");
}

// A verdict box: ✔ or ✘, the verdict's word, then `rest` (HTML).
export function verdictBox(right, word, rest) {
  const [mark, css] = right ? ["✔", "gk-right"] : ["✘", "gk-wrong"];
  return `<div class="gk-feedback ${css}"><span class="gk-mark" aria-hidden="true">${mark}</span> `
    + `<b class="gk-verdict-word">${word}</b>${rest}</div>`;
}

// The verdict box: ✔ Right. / ✘ Not quite. [Try another answer.], then the explanation.
export function feedbackHtml(right, explanation, retry = false) {
  const again = !right && retry ? ` ${VERDICT.retry}` : "";
  const why = explanation ? ` ${richText(explanation)}` : "";
  return verdictBox(right, right ? VERDICT.right : VERDICT.wrong, again + why);
}

// The order a learner sees n options in: a permutation of 0 … n-1, the same for the same seed on
// every run (Fisher–Yates driven by mulberry32); no seed: the order as given.
export function seededOrder(n, seed) {
  const order = Array.from({ length: n }, (_, i) => i);
  if (seed === null || seed === undefined) return order;
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// One button per option, in `order`: a toggle (aria-pressed) in the Tab order, calling
// pick(option) when pressed. sync(picked, mark, disabled) shows which is picked and, with mark
// true or false, whether it is right.
export function optionButtons(h, options, order, { label, css, pick }) {
  const group = h("div", { class: `gk-options ${css}`, role: "group", "aria-label": label });
  const buttons = order.map((i) => {
    const b = h("button", { class: "gk-option", "data-option": options[i], "aria-pressed": "false",
      onclick: () => pick(options[i]) });
    b.innerHTML = richText(options[i]);
    group.append(b);
    return b;
  });
  const sync = (picked, mark = null, disabled = false) => {
    for (const b of buttons) {
      const on = b.dataset.option === picked;
      b.setAttribute("aria-pressed", String(on));
      b.classList.toggle("gk-right", on && mark === true);
      b.classList.toggle("gk-wrong", on && mark === false);
      b.disabled = disabled;
    }
  };
  return { group, buttons, sync };
}
