// Pictures at the width they are shown (base/fit.js): the width a picture is drawn at, labels
// thinned to fit, texts that fit, and every family's layout at a phone's and a desktop's width:
// the design's at its width, inside the picture and with no two panels overlapping below it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { LEAST_FONT, clampLeft, fitText, labelStride, pictureWidth } from "../../gradkit/widgets/base/fit.js";
import { panelBox } from "../../gradkit/widgets/base/plot.js";
import { LAB_LAYOUT as EPS_LAYOUT, epsilonLayout } from "../../gradkit/widgets/epsilon/epsilon.js";
import { jbLayout } from "../../gradkit/widgets/jacobian/jacobian.js";
import { LAB_LAYOUT, layoutFor, titleRoom } from "../../gradkit/widgets/lab/lab.js";
import { RULER_LAYOUT, rulerLayout } from "../../gradkit/widgets/ruler/ruler.js";
import { SLOPE_LAYOUT, slopeLayout } from "../../gradkit/widgets/slope/slope.js";

// widths: a phone's widget (390 px less the page's margins), a small phone, a narrow column
const ROOMS = [358, 320, 600, 700, 800];
const measure = (s, size) => String(s).length * 0.6 * size;

test("a picture is drawn at its design width, or the room's when that is narrower", () => {
  assert.equal(LEAST_FONT, 11);
  assert.equal(pictureWidth(860, null), 860); // not laid out yet
  assert.equal(pictureWidth(860, 0), 860);
  assert.equal(pictureWidth(860, 1200), 860); // never wider than designed
  assert.equal(pictureWidth(860, 358.7), 358); // whole pixels, never past the room
  assert.equal(pictureWidth(560, 700), 560);
});

test("tick labels are thinned to every k-th until neighbours keep their gap", () => {
  assert.equal(labelStride([0, 50, 100, 150], [20, 20, 20, 20]), 1);
  assert.equal(labelStride([0, 20, 40, 60, 80], [30, 30, 30, 30, 30]), 2); // 20 apart < 30 + 4
  assert.equal(labelStride([0, 10, 20, 30, 40, 50, 60], [30, 30, 30, 30, 30, 30, 30]), 4);
  assert.equal(labelStride([], []), 1);
  assert.equal(labelStride([5], [100]), 1);
});

test("a text fits its width: a smaller size down to 11 px, a shorter form, else cut with …", () => {
  assert.deepEqual(fitText("abc", 100, measure, 13), { text: "abc", size: 13 });
  assert.deepEqual(fitText("a".repeat(10), 70, measure, 13), { text: "a".repeat(10), size: 11 }); // 66 px at 11
  assert.deepEqual(fitText(["a".repeat(20), "short"], 70, measure, 13), { text: "short", size: 13 });
  const cut = fitText(["a".repeat(20), "b".repeat(20)], 70, measure, 13);
  assert.equal(cut.size, 11);
  assert.ok(cut.text.endsWith("…") && measure(cut.text, 11) <= 70 && cut.text.startsWith("bbb"), cut.text);
  assert.equal(clampLeft(10, 50, 100), 10);
  assert.equal(clampLeft(80, 50, 100), 50);
  assert.equal(clampLeft(80, 500, 100), 2);
});

// boxes [l, t, w, h] inside the picture `size`, none overlapping another
function assertFits(name, size, boxes) {
  const [W, H] = size;
  for (const [l, t, w, h] of boxes) {
    assert.ok(l >= 0 && t >= 0 && w > 0 && h > 0 && l + w <= W + 1e-9 && t + h <= H + 1e-9, `${name}: ${[l, t, w, h]} in ${size}`);
  }
  for (let a = 0; a < boxes.length; a++) {
    for (let b = a + 1; b < boxes.length; b++) {
      const [p, q] = [boxes[a], boxes[b]];
      const apart = p[0] + p[2] <= q[0] || q[0] + q[2] <= p[0] || p[1] + p[3] <= q[1] || q[1] + q[3] <= p[1];
      assert.ok(apart, `${name}: ${p} overlaps ${q}`);
    }
  }
}

test("SlopeExplorer: the design at its width, side by side to 760 px, stacked below", () => {
  const choices = [["curve", "zoom"], ["curve"], ["zoom"]];
  for (const panels of choices) {
    const design = slopeLayout(panels, null);
    const key = panels.length === 2 ? "both" : panels[0];
    assert.deepEqual(design.size, SLOPE_LAYOUT[key].size);
    for (const p of panels) assert.deepEqual(design[p], panelBox(SLOPE_LAYOUT[key].size, SLOPE_LAYOUT[key][p]));
    assert.deepEqual(slopeLayout(panels, 2000), design);
    for (const room of ROOMS) {
      const lay = slopeLayout(panels, room);
      assert.equal(lay.size[0], Math.min(room, SLOPE_LAYOUT[key].size[0]));
      assertFits(`slope ${panels} at ${room}`, lay.size, panels.map((p) => lay[p]));
      for (const p of panels) assert.ok(lay[p][0] >= 60 && lay[p][1] >= 30, `${p} keeps room for its labels`);
    }
  }
  assert.equal(slopeLayout(["curve", "zoom"], 800).stacked, undefined);
  assert.ok(slopeLayout(["curve", "zoom"], 358).stacked);
  assert.ok(slopeLayout(["curve", "zoom"], 358).zoom[1] > slopeLayout(["curve", "zoom"], 358).curve[1] + 236 + 58);
});

test("FloatRuler: the rulers span the width, heights as designed", () => {
  for (const [panels, key] of [[["landing", "spacing"], "both"], [["landing"], "landing"], [["spacing"], "spacing"]]) {
    const design = rulerLayout(panels, null);
    for (const p of panels) assert.deepEqual(design[p], RULER_LAYOUT[key][p]);
    assert.deepEqual(design.size, RULER_LAYOUT[key].size);
    for (const room of ROOMS) {
      const lay = rulerLayout(panels, room);
      assert.deepEqual(lay.size, [room, RULER_LAYOUT[key].size[1]]);
      assert.ok(lay.narrow);
      assertFits(`ruler ${panels} at ${room}`, lay.size, panels.map((p) => lay[p]));
    }
  }
});

test("EpsilonLab: narrower than 700 px the legend goes below the plot and the strip below the legend", () => {
  assert.deepEqual(epsilonLayout(null, 6, true).size, EPS_LAYOUT.sizes.strip);
  assert.deepEqual(epsilonLayout(860, 3, false).size, EPS_LAYOUT.sizes.plain);
  assert.deepEqual(epsilonLayout(null, 6, false).main, EPS_LAYOUT.main);
  for (const room of ROOMS) {
    for (const rows of [3, 6]) {
      const lay = epsilonLayout(room, rows, true);
      assert.equal(lay.size[0], room);
      const legend = [lay.legend[0], lay.legend[1] - 10, 200, 20 * rows];
      // the plot with its x ticks and label (40 px), the legend, the strip with its key (16 px)
      const [l, t, w, h] = lay.main;
      const [sl, st, sw, sh] = lay.strip;
      assertFits(`epsilon at ${room}`, lay.size, [[l, t, w, h + 40], legend, [sl, st - 16, sw, sh + 10]]);
      assert.ok(epsilonLayout(room, rows, false).size[1] < lay.size[1]);
      if (room >= 700) {
        assert.equal(lay.legend[0], l + w + 20, "the legend beside the plot");
        assert.deepEqual(lay.size, [room, EPS_LAYOUT.sizes.strip[1]]);
        continue;
      }
      // no slope to measure: no legend, the picture ends below the plot's x label
      assert.equal(epsilonLayout(room, 0, false).size[1], t + h + 40 + 16);
    }
  }
});

test("GradcheckLab: the heatmaps share the width, one row for the Jacobians, one for the difference", () => {
  const all = ["verdict", "jacobians", "difference"];
  assert.equal(layoutFor(all, null), LAB_LAYOUT.all);
  assert.equal(layoutFor(all, 900), LAB_LAYOUT.all);
  assert.equal(layoutFor(["difference"], 600), LAB_LAYOUT.difference);
  assert.deepEqual(layoutFor(["verdict"], 358).size, [358, 0]);
  const rows = layoutFor(all, 358);
  assert.ok(rows.difference[1] >= rows.numeric[1] + rows.numeric[3] + 100, "the difference goes below");
  assert.equal(titleRoom(rows, "difference"), 358 - 52 - 8); // its row has no other heatmap
  assert.equal(titleRoom(rows, "numeric"), rows.analytic[0] - 52 - 8);
  for (const room of ROOMS) {
    for (const panels of [all, ["jacobians"], ["difference"]]) {
      const lay = layoutFor(panels, room);
      assert.ok(lay.size[0] <= room);
      const names = ["numeric", "analytic", "jbar", "difference", "rbar"].filter((n) => lay[n]);
      assertFits(`lab ${panels} at ${room}`, lay.size, names.map((n) => lay[n]));
      for (const n of ["numeric", "analytic", "difference"].filter((k) => lay[k])) {
        assert.ok(titleRoom(lay, n) >= 100, `${n} at ${room}: ${titleRoom(lay, n)} px for its title`);
      }
      for (const [bar, need] of [["jbar", 44], ["rbar", 64]]) {
        if (lay[bar]) assert.ok(lay[bar][0] + lay[bar][2] + need <= lay.size[0], `${bar}'s tick labels at ${room}`);
      }
    }
  }
});

test("JacobianBuilder: both side by side while cells can be 40 px, else one above the other", () => {
  const both = ["numeric", "analytic"];
  assert.deepEqual(jbLayout(both, 4, 4, 2000), jbLayout(both, 4, 4));
  for (const room of ROOMS) {
    for (const [n, m] of [[1, 1], [4, 4], [8, 3], [64, 64]]) {
      const lay = jbLayout(both, n, m, room);
      assert.equal(lay.size[0], room);
      assertFits(`jacobian ${n}x${m} at ${room}`, lay.size, both.map((p) => [lay[p][0] - 30, lay[p][1] - 36, lay[p][2] + 30, lay[p][3] + 76]));
    }
  }
  const phone = jbLayout(both, 4, 4, 358);
  assert.ok(phone.analytic[1] > phone.numeric[1] + phone.numeric[3], "stacked on a phone");
  assert.equal(phone.numeric[2] / 4, 48, "with cells as large as on a desktop");
});
