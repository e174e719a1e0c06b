import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  makeGraph,
  makeNode,
  makeTensor,
  makeValueInfo,
  tensorAttribute,
} from '../../../core/onnx/index.ts';
import { nodeId } from '../../../core/onnx/model.ts';
import { buildGraphView, layoutInputOf, searchGraph, shortName, boxOfId } from './viewModel.ts';
import { excludedNodes, previewSubgraph } from './resolution.ts';
import { visualFlags } from './visualState.ts';
import { FLAG } from './flags.ts';

/**
 * input → Conv(w) → Relu → Mul(Constant 0.5) → output, and Relu → Exp → output2; no node has a name
 * (as in UltraFace), so ids are OpType_position.
 */
function unnamedModel() {
  return buildGraphIndex(
    makeGraph({
      node: [
        makeNode('Conv', ['x', 'w'], ['c']),
        makeNode('Relu', ['c'], ['r']),
        makeNode('Constant', [], ['half'], '', [
          tensorAttribute('value', makeTensor('', DataType.FLOAT, [], Float32Array.of(0.5))),
        ]),
        makeNode('Mul', ['r', 'half'], ['y']),
        makeNode('Exp', ['r'], ['e']),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 3, 8, 8])],
      output: [
        makeValueInfo('y', DataType.FLOAT, [1, 4, 8, 8]),
        makeValueInfo('e', DataType.FLOAT, ['batch', 4, 8, 8]),
      ],
      value_info: [makeValueInfo('c', DataType.FLOAT, [1, 4, 8, 8])],
      initializer: [makeTensor('w', DataType.FLOAT, [4, 3, 1, 1], new Float32Array(12))],
    }),
  );
}

describe('graph view model', () => {
  it('a box per node and per graph input/output; weights and constants folded away', () => {
    const view = buildGraphView(unnamedModel());
    expect(view.boxes.map((b) => `${b.kind}:${b.title}`)).toEqual([
      'input:x',
      'node:Conv',
      'node:Relu',
      'node:Mul',
      'node:Exp',
      'output:y',
      'output:e',
    ]);
    expect(view.boxes.map((b) => b.id)).toEqual([
      'input:x',
      'Conv_0',
      'Relu_1',
      'Mul_3',
      'Exp_4',
      'output:y',
      'output:e',
    ]);
    expect(view.boxes.find((b) => b.id === 'Conv_0')?.family).toBe('convolution');
    // The folded Constant is found through its consumer.
    expect(view.boxes[boxOfId(view, 'Constant_2')!].id).toBe('Mul_3');
  });

  it('edges carry tensor shapes where the model gives them', () => {
    const view = buildGraphView(unnamedModel());
    const edge = (t: string) =>
      view.edges
        .filter((e) => e.tensor === t)
        .map((e) => `${view.boxes[e.source].id}→${view.boxes[e.target].id} ${e.label}`);
    expect(edge('x')).toEqual(['input:x→Conv_0 1×3×8×8']);
    expect(edge('c')).toEqual(['Conv_0→Relu_1 1×4×8×8']);
    expect(edge('r')).toEqual(['Relu_1→Mul_3 ', 'Relu_1→Exp_4 ']);
    expect(edge('e')).toEqual(['Exp_4→output:e batch×4×8×8']);
    expect(view.edges.some((e) => e.tensor === 'w' || e.tensor === 'half')).toBe(false);
    const input = layoutInputOf(view);
    expect(input.widths.length).toBe(view.boxes.length);
    expect(input.edgeSources.length).toBe(view.edges.length);
  });

  it('search by node id, op type or tensor name, exact matches first', () => {
    const view = buildGraphView(unnamedModel());
    const ids = (q: string) => searchGraph(view, q).map((b) => view.boxes[b].id);
    expect(ids('relu_1')).toEqual(['Relu_1']);
    expect(ids('exp')).toEqual(['Exp_4']);
    expect(ids('r')).toContain('Mul_3'); // reads tensor "r"
    expect(ids('')).toEqual([]);
  });

  it('an input\'s long symbolic dimensions read "?" on its box and edges, the fixed ones and short names as written', () => {
    const shape = ['p2o.DynamicDimension.0', 3, 'p2o.DynamicDimension.1', 'p2o.DynamicDimension.2'];
    const view = buildGraphView(
      buildGraphIndex(
        makeGraph({
          node: [makeNode('Relu', ['x'], ['y']), makeNode('Relu', ['y'], ['z'])],
          input: [makeValueInfo('x', DataType.FLOAT, shape)],
          output: [makeValueInfo('z', DataType.FLOAT, ['batch', 3, 'height', 'width'])],
          value_info: [makeValueInfo('y', DataType.FLOAT, shape)],
        }),
      ),
    );
    const input = view.boxes[boxOfId(view, 'input:x')!];
    expect(input.subtitle).toBe('?×3×?×?');
    expect(view.boxes[boxOfId(view, 'output:z')!].subtitle).toBe('batch×3×height×width');
    // Wide enough for its subtitle at the renderer's 6.1 px a character.
    expect(input.width).toBeGreaterThanOrEqual(input.subtitle.length * 6.1);
    expect(view.edges.map((e) => e.label)).toEqual(['?×3×?×?', '?×3×?×?', 'batch×3×height×width']);
  });

  it('shortens long scoped names in the middle, keeping the tail', () => {
    const s = shortName('/model.22/cv2.0/cv2.0.2/Conv_output_0/very/long/Conv', 24);
    expect(s.length).toBe(24);
    expect(s.endsWith('long/Conv')).toBe(true);
  });
});

describe('highlights resolve through the core', () => {
  it('previews the subgraph between picks on unnamed nodes, and explains picks that resolve to nothing', () => {
    const index = unnamedModel();
    const ok = previewSubgraph(index, ['Relu_1'], ['Mul_3']);
    expect(ok.kind === 'subgraph' && ok.nodes.map((i) => index.ids[i])).toEqual(['Relu_1', 'Mul_3']);
    const bad = previewSubgraph(index, ['Mul_3'], ['Exp_4']);
    expect(bad).toMatchObject({ kind: 'error', name: 'ExclusionError' });
    expect(bad.kind === 'error' && bad.message).toMatch(/cannot be reached/);
    expect(previewSubgraph(index, ['Relu_1'], []).kind).toBe('incomplete');
    expect(previewSubgraph(index, [], []).kind).toBe('empty');
  });

  it('shades every entry’s nodes and reports an entry that names nothing instead of failing all', () => {
    const index = unnamedModel();
    const { excluded, problems } = excludedNodes(index, [
      { id: 'a', kind: 'subgraph', name: 'tail', starts: [nodeId('Relu_1')], ends: [nodeId('Mul_3')] },
      { id: 'b', kind: 'opTypes', name: 'exp', opTypes: ['Exp'] },
      { id: 'c', kind: 'nodes', name: 'gone', nodes: [nodeId('Conv_99')] },
    ]);
    expect(Array.from(excluded)).toEqual([0, 1, 0, 1, 1]);
    expect([...problems.keys()]).toEqual(['c']);
  });
});

describe('visual state per box', () => {
  it('shades excluded nodes, marks picks and selection; a folded Constant in a set does not shade its consumer', () => {
    const index = unnamedModel();
    const view = buildGraphView(index);
    const { excluded } = excludedNodes(index, [{ id: 'a', kind: 'opTypes', name: 'constants', opTypes: ['Constant'] }]);
    const flags = visualFlags(view, {
      excluded,
      preview: [1, 3],
      hovered: [],
      starts: ['Relu_1'],
      ends: ['Mul_3'],
      picked: [],
      selected: 'Constant_2',
      matches: [],
    });
    const of = (id: string) => flags[view.boxById.get(id)!];
    expect(of('Mul_3') & FLAG.excluded).toBe(0);
    expect(of('Relu_1')).toBe(FLAG.preview | FLAG.start);
    expect(of('Mul_3')).toBe(FLAG.preview | FLAG.end | FLAG.selected);
    expect(of('Conv_0')).toBe(0);
  });
});
