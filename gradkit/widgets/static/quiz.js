// Quiz (gradkit/widgets/quiz.py): one button per option, in the learner's order; the feedback
// for a picked option comes from the table in `scene` (sent with the widget), so it shows at
// once, even while the kernel is busy. Python grades the same click for .correct.
VIEWS.quiz = {
  init(ctx) {
    const row = ctx.el.querySelector(".gk-control.gk-choices");
    const spec = ctx.model.get("controls").find((c) => c.name === "choice");
    const group = ctx.h("div", { class: "gk-options gradkit-choices", role: "radiogroup",
      "aria-label": ctx.model.get("title") });
    ctx.optionButtons = (spec.options || []).map((option) => {
      const b = ctx.h("button", { class: "gk-option", role: "radio", "aria-checked": "false",
        title: spec.tooltip, "data-option": option, text: option,
        onclick: () => ctx.set("choice", option) });
      group.append(b);
      return b;
    });
    row.append(group);
  },
  paint(ctx) {
    const scene = ctx.model.get("scene") || {};
    const right = scene.right || {};
    const choice = ctx.values.choice;
    for (const b of ctx.optionButtons) {
      const option = b.dataset.option;
      const picked = option === choice;
      b.setAttribute("aria-checked", String(picked));
      b.classList.toggle("gk-right", picked && !!right[option]);
      b.classList.toggle("gk-wrong", picked && !right[option]);
    }
    ctx.drawn = { choice: choice ?? null, correct: choice == null ? null : !!right[choice] };
    const feedback = choice == null ? "" : (scene.feedback || {})[choice] || "";
    return { ...(ctx.model.get("readout_html") || {}), feedback };
  },
};
