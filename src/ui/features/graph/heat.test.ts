import { describe, expect, it } from 'vitest';
import { makeNode } from '../../../core/onnx/index.ts';
import { fewNodeIndex } from '../../../../tests/helpers/graphIndex.ts';
import { heatColour, heatScale, scopedHeat } from './heat.ts';
import { buildGraphView } from './viewModel.ts';

function chain() {
  return buildGraphView(
    fewNodeIndex({
      nodes: [
        makeNode('Conv', ['x'], ['a'], 'conv'),
        makeNode('Relu', ['a'], ['b'], 'relu'),
        makeNode('Sigmoid', ['b'], ['y'], 'sig'),
      ],
      inputs: ['x'],
      outputs: ['y'],
    }),
  );
}

describe('heat map colours', () => {
  it('runs from red (worst) to green (best)', () => {
    expect(heatColour(0)).toBe('#c62828');
    expect(heatColour(1)).toBe('#2e8b3e');
    expect(heatColour(0.5)).toBe('#e09a1a');
  });

  it('colours boxes by their value in the direction that is better; boxes without one keep their family colour', () => {
    const view = chain();
    const sqnr = heatScale(view, {
      label: 'SQNR (dB)',
      higherIsBetter: true,
      values: { conv: 10, relu: 30, nope: 99 },
    });
    const colourOf = (id: string) => sqnr.colours[view.boxById.get(id)!];
    expect([sqnr.min, sqnr.max, sqnr.count]).toEqual([10, 99, 2]);
    expect(colourOf('sig')).toBeNull();
    const error = heatScale(view, { label: 'error', higherIsBetter: false, values: { conv: 1, relu: 5 } });
    expect(error.colours[view.boxById.get('conv')!]).toBe(heatColour(1));
    expect(error.colours[view.boxById.get('relu')!]).toBe(heatColour(0));
  });
});

describe('scopedHeat', () => {
  it("gives a body's view its nodes' values under their ids there, and the main graph the heat as it is", () => {
    const heat = {
      label: 'SQNR (dB)',
      higherIsBetter: true,
      values: { gemm: 30, 'if/then_branch/then_gemm': 12, 'if/else_branch/x': 3 },
    };
    expect(scopedHeat(heat, '')).toBe(heat);
    expect(scopedHeat(heat, 'if/then_branch/')!.values).toEqual({ then_gemm: 12 });
    expect(scopedHeat(null, 'if/then_branch/')).toBeNull();
  });
});
