// Quiz (quiz.py): the options in the learner's own order, the chosen one marked right or wrong
// with its explanation, all decided in the page from the scene Python sent, so a page with no
// kernel (a static export) answers as the notebook does. Python reads the choice from the state.
import { feedbackHtml, optionButtons, richText, seededOrder } from "./feedback.js";

// The option a choice is ({text, right, explanation}), or null for none.
export function quizOption(scene, choice) {
  return (scene.options || []).find((o) => o.text === choice) || null;
}

// The feedback for a choice: the verdict and the option's own explanation ("" for none).
export function quizFeedback(scene, choice) {
  const o = quizOption(scene, choice);
  return o ? feedbackHtml(o.right, o.explanation, true) : "";
}

export const quizView = {
  init(ctx) {
    const { scene } = ctx;
    const texts = (scene.options || []).map((o) => o.text);
    ctx.quiz = optionButtons(ctx.h, texts, seededOrder(texts.length, scene.seed), {
      label: scene.question, css: "gradkit-choices", pick: (text) => ctx.set("choice", text),
    });
    ctx.controls.append(ctx.quiz.group);
    ctx.title.innerHTML = richText(scene.question);
  },
  drawsFrom: ["choice"],
  paint(ctx) {
    const o = quizOption(ctx.scene, ctx.state.choice);
    ctx.quiz.sync(ctx.state.choice, o ? o.right : null);
    const order = ctx.quiz.buttons.map((b) => b.dataset.option);
    return {
      readouts: { feedback: quizFeedback(ctx.scene, ctx.state.choice) },
      drawn: { choice: o ? o.text : null, correct: o ? o.right : null, order },
    };
  },
};
