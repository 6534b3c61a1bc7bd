// ExercisePanel (exercise.py) and ZooHunt (zoo_hunt.py): the kernel checks the learner's code or
// runs gradcheck and writes the readouts into the scene; the page shows them. ZooHunt's page
// switches specimens itself (every specimen's code is in the scene).

// What ZooHunt shows for a state: the specimen's code, its latest result (or the invitation to
// run it) and the score.
export function huntReadouts(scene, state) {
  return {
    code: (scene.specimens || {})[state.entry] ?? "",
    result: (scene.results || {})[state.entry] ?? scene.prompt ?? "",
    score: scene.score ?? "",
  };
}

export const exerciseView = {
  drawsFrom: [], // the scene's own key changes with every new readout
  size() { return [0, 0]; },
  paint(ctx) { return { readouts: { ...(ctx.scene.readouts || {}) }, drawn: {} }; },
};

export const huntView = {
  drawsFrom: ["entry"],
  size() { return [0, 0]; },
  paint(ctx) {
    // a specimen whose code has not arrived yet (sent after the first picture): wait, busy
    if (!(ctx.state.entry in (ctx.scene.specimens || {}))) return null;
    return { readouts: huntReadouts(ctx.scene, ctx.state), drawn: { entry: ctx.state.entry } };
  },
};
