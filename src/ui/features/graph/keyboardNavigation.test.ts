import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, makeGraph, makeNode, makeValueInfo } from '../../../core/onnx/index.ts';
import { layeredLayout } from '../../../core/graph/layeredLayout.ts';
import { graphNavigator, type ArrowKey } from './keyboardNavigation.ts';
import { buildGraphView, layoutInputOf } from './viewModel.ts';

/** x → Conv → Relu → {Mul, Exp, Sigmoid} → three outputs; Mul also reads the input (a producer two rows up). */
function view() {
  const v = buildGraphView(
    buildGraphIndex(
      makeGraph({
        node: [
          makeNode('Relu', ['x'], ['c']),
          makeNode('Relu', ['c'], ['r']),
          makeNode('Mul', ['r', 'x'], ['m']),
          makeNode('Exp', ['r'], ['e']),
          makeNode('Sigmoid', ['r'], ['s']),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 4])],
        output: [
          makeValueInfo('m', DataType.FLOAT, [1, 4]),
          makeValueInfo('e', DataType.FLOAT, [1, 4]),
          makeValueInfo('s', DataType.FLOAT, [1, 4]),
        ],
      }),
    ),
  );
  return { v, layout: layeredLayout(layoutInputOf(v)) };
}

describe('arrow keys on the graph', () => {
  it('up to producers, down to consumers, left and right among siblings, nothing past the ends', () => {
    const { v, layout } = view();
    const nav = graphNavigator(v, layout);
    const box = (id: string) => v.boxById.get(id)!;
    const go = (from: string, ...keys: ArrowKey[]) => {
      let b = box(from);
      for (const k of keys) b = nav.step(b, k);
      return b < 0 ? null : v.boxes[b].id;
    };
    expect(go('input:x', 'ArrowUp')).toBeNull();
    expect(go('input:x', 'ArrowDown', 'ArrowDown')).toBe('Relu_1');
    expect(go('Relu_1', 'ArrowUp')).toBe('Relu_0');
    const row = ['Mul_2', 'Exp_3', 'Sigmoid_4'].sort((a, b) => layout.x[box(a)] - layout.x[box(b)]);
    expect(go(row[0], 'ArrowRight')).toBe(row[1]);
    expect(go(row[0], 'ArrowRight', 'ArrowRight')).toBe(row[2]);
    expect(go(row[2], 'ArrowLeft')).toBe(row[1]);
    expect(go(row[0], 'ArrowLeft')).toBeNull();
    expect(go('Exp_3', 'ArrowDown')).toBe('output:e');
    expect(go('Exp_3', 'ArrowUp')).toBe('Relu_1');
    expect(go('output:e', 'ArrowDown')).toBeNull();
    expect(nav.step(-1, 'ArrowDown')).toBe(-1);
  });
});
