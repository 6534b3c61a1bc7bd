// Predict (gradkit/widgets/predict.py): the answer box and "Lock in my guess" are the base's
// controls; this view greys the box out once the guess is locked in (Python keeps it locked).
VIEWS.predict = {
  paint(ctx) {
    const state = (ctx.model.get("control_state") || {}).guess || {};
    for (const input of ctx.el.querySelectorAll(".gk-control.gk-text input")) {
      input.disabled = !!state.disabled;
    }
    ctx.drawn = { guess: ctx.values.guess ?? null, locked: !!state.disabled };
    return null;
  },
};
