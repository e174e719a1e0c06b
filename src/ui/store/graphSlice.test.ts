import { describe, expect, it } from 'vitest';
import { create } from 'zustand';
import { nodeId } from '../../core/onnx/model.ts';
import { createGraphSlice, type GraphSlice } from './graphSlice.ts';

const store = () => create<GraphSlice>()((...a) => createGraphSlice<GraphSlice>()(...a));

describe('graph slice', () => {
  it('selecting a node asks the view to focus it, again when the same node is asked for twice', () => {
    const s = store();
    s.getState().selectGraphNode('Conv_3');
    const first = s.getState().graph.focusRequest;
    s.getState().selectGraphNode('Conv_3');
    expect(s.getState().graph.selected).toBe('Conv_3');
    expect(s.getState().graph.focusRequest).toBe(first + 1);
    s.getState().selectGraphNode('Relu_4', { centre: false });
    expect(s.getState().graph).toMatchObject({ selected: 'Relu_4', focusRequest: first + 1 });
  });

  it('picks toggle per role and Esc (clearPicks) forgets them all', () => {
    const s = store();
    const { togglePick } = s.getState();
    togglePick('start', nodeId('Slice_217'));
    togglePick('start', nodeId('Slice_224'));
    togglePick('end', nodeId('Concat_241'));
    togglePick('node', nodeId('Exp_5'));
    togglePick('start', nodeId('Slice_217'));
    expect(s.getState().graph).toMatchObject({ starts: ['Slice_224'], ends: ['Concat_241'], nodes: ['Exp_5'] });
    s.getState().clearPicks();
    expect(s.getState().graph).toMatchObject({ starts: [], ends: [], nodes: [] });
  });

  it('holds a heat map until it is cleared, and a new model resets selection, picks, mode and heat', () => {
    const s = store();
    s.getState().setGraphHeat({ label: 'SQNR (dB)', higherIsBetter: true, values: { Conv_0: 31.5 } });
    s.getState().setPickMode('end');
    s.getState().selectGraphNode('Conv_0');
    s.getState().togglePick('end', nodeId('Conv_0'));
    expect(s.getState().graph.heat?.values.Conv_0).toBe(31.5);
    s.getState().resetGraph();
    expect(s.getState().graph).toMatchObject({ selected: null, heat: null, pickMode: 'inspect', ends: [] });
  });
});
