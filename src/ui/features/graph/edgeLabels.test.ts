import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, makeGraph, makeNode, makeValueInfo } from '../../../core/onnx/index.ts';
import { layeredLayout } from '../../../core/graph/layeredLayout.ts';
import { EDGE_LABEL_HEIGHT, edgeSegment, placeEdgeLabels } from './edgeLabels.ts';
import { buildGraphView, layoutInputOf } from './viewModel.ts';

/** YOLOX's head in small: one input read by four Slices, their four outputs concatenated, every shape known. */
function fanOutAndIn() {
  const slices = [0, 1, 2, 3].map((i) => makeNode('Slice', ['x'], [`s${i}`]));
  const view = buildGraphView(
    buildGraphIndex(
      makeGraph({
        node: [...slices, makeNode('Concat', ['s0', 's1', 's2', 's3'], ['y'])],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 3, 416, 416])],
        output: [makeValueInfo('y', DataType.FLOAT, [1, 12, 208, 208])],
        value_info: [0, 1, 2, 3].map((i) => makeValueInfo(`s${i}`, DataType.FLOAT, [1, 3, 208, 208])),
      }),
    ),
  );
  return { view, layout: layeredLayout(layoutInputOf(view)) };
}

const measure = (text: string) => text.length * 5.5;

describe('edge labels', () => {
  it('a tensor read by several nodes is labelled once; no two labels overlap, none sits on a box', () => {
    const { view, layout } = fanOutAndIn();
    const labels = placeEdgeLabels(view, layout, measure);
    const shown = view.edges.map((e, k) => ({ e, k })).filter(({ k }) => labels.text[k]);
    expect(shown.filter(({ e }) => e.tensor === 'x')).toHaveLength(1);
    expect(new Set(shown.map(({ e }) => e.tensor)).size).toBe(shown.length);
    const rects = shown.map(({ k }) => {
      const [sx, sy, tx, ty] = edgeSegment(view, layout.x, layout.y, k);
      const cx = (sx + tx) / 2 + labels.dx[k],
        cy = (sy + ty) / 2 + labels.dy[k],
        hw = measure(labels.text[k]) / 2 + 1;
      return [cx - hw, cy - EDGE_LABEL_HEIGHT / 2, cx + hw, cy + EDGE_LABEL_HEIGHT / 2];
    });
    const overlap = (a: number[], b: number[]) => a[0] < b[2] && a[2] > b[0] && a[1] < b[3] && a[3] > b[1];
    rects.forEach((a, i) =>
      rects.forEach(
        (b, j) => i < j && expect(overlap(a, b), `${labels.text[shown[i].k]} / ${labels.text[shown[j].k]}`).toBe(false),
      ),
    );
    view.boxes.forEach((b, i) => {
      const box = [
        layout.x[i] - b.width / 2,
        layout.y[i] - b.height / 2,
        layout.x[i] + b.width / 2,
        layout.y[i] + b.height / 2,
      ];
      rects.forEach((r) => expect(overlap(r, box)).toBe(false));
    });
    // Each label lies on its own edge's segment.
    for (const { k } of shown) {
      const [sx, sy, tx, ty] = edgeSegment(view, layout.x, layout.y, k);
      const cx = (sx + tx) / 2 + labels.dx[k],
        cy = (sy + ty) / 2 + labels.dy[k];
      expect(Math.abs((tx - sx) * (cy - sy) - (ty - sy) * (cx - sx))).toBeLessThan(
        1e-3 * Math.hypot(tx - sx, ty - sy) ** 2 + 1e-6,
      );
    }
    // Most shapes still show: at least the input's, the output's and two of the four slices'.
    expect(shown.length).toBeGreaterThanOrEqual(4);
  });
});
