// The generic view: controls, readouts and the picture the kernel renders (one PNG per change).
// The readouts and the drawn data are taken when a new picture arrives, so a picture and its
// numbers always change together; a widget without a picture shows Python's readouts at once.
VIEWS.generic = {
  scene(ctx) {
    ctx.snapshot = { ...(ctx.model.get("readout_html") || {}) };
  },
  paint(ctx) {
    const hasPicture = ctx.model.get("size")[0] > 0;
    ctx.drawn = { ...((ctx.scene && ctx.scene.drawn) || {}), values: ctx.values };
    return hasPicture ? ctx.snapshot : null;
  },
};
