import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { nodeId } from '../../core/onnx/model.ts';
import type { QuantConfig } from '../../core/quantize/config.ts';
import type { CalibrationService } from './calibrationSlice.ts';
import { createStudioStore } from './createStudioStore.ts';
import type { ExclusionEntry } from './exclusionSlice.ts';
import { exclusionFields } from '../../core/export/configDocument.ts';
import type { ModelService } from './modelSlice.ts';
import type { QuantizeService } from './runSlice.ts';
import { calibrationResult } from './testStore.ts';

const modelService: ModelService = {
  async open(fileName) {
    return {
      handle: `model-${fileName}-${Math.random()}`,
      summary: { fileName, inputs: [] } as unknown as ModelSummary,
    };
  },
  async close() {},
};

const calibration: CalibrationService = {
  calibrate: async () => calibrationResult({ x: [0, 1] }, 0, { runOutputBytes: 0 }),
  cancel: () => undefined,
  release: () => undefined,
};

/** A quantize service that records the configs it is given, and fails like the core when told to. */
function fakeQuantize() {
  const configs: QuantConfig[] = [];
  let failWith: Error | null = null;
  const service: QuantizeService = {
    quantizeBf16: () => Promise.reject(new Error('BF16 is not used in this test')),
    async quantize(_handle, _ranges, config) {
      configs.push(config);
      if (failWith) throw failWith;
      return { blob: new Blob([new Uint8Array(4)]), byteLength: 4, report: {} as never, seconds: 0.1 };
    },
  };
  return { service, configs, fail: (e: Error | null) => (failWith = e) };
}

async function readyStore() {
  const q = fakeQuantize();
  const store = createStudioStore({ model: modelService, calibration, quantize: q.service });
  await store.getState().openModel({
    fileName: 'm.onnx',
    byteLength: 4,
    read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }),
  });
  store.getState().setUseRandomData(true);
  await store.getState().calibrate();
  expect(store.getState().calibration.status).toBe('done');
  return { store, q };
}

const ids = (...s: string[]) => s.map(nodeId);

describe('exclusion slice', () => {
  it('starts with no entries and nothing hovered', async () => {
    const { store } = await readyStore();
    expect(store.getState().exclusions).toEqual({ entries: [], hovered: null, byModel: {} });
  });

  it('adds entries of each kind with fresh ids, in order, and removes them by id', async () => {
    const { store } = await readyStore();
    const a = store
      .getState()
      .addExclusion({ kind: 'subgraph', name: 'head', starts: ids('Conv_3'), ends: ids('Sigmoid_9') });
    const b = store.getState().addExclusion({ kind: 'nodes', name: 'stem', nodes: ids('conv1') });
    const c = store.getState().addExclusion({ kind: 'opTypes', name: 'Softmax ops', opTypes: ['Softmax'] });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(store.getState().exclusions.entries.map((e) => [e.id, e.kind, e.name])).toEqual([
      [a, 'subgraph', 'head'],
      [b, 'nodes', 'stem'],
      [c, 'opTypes', 'Softmax ops'],
    ]);
    store.getState().removeExclusion(b);
    expect(store.getState().exclusions.entries.map((e) => e.id)).toEqual([a, c]);
    store.getState().removeExclusion('no-such-entry');
    expect(store.getState().exclusions.entries).toHaveLength(2);
  });

  it('keeps its own copy of what it is given', async () => {
    const { store } = await readyStore();
    const nodes = ids('a');
    store.getState().addExclusion({ kind: 'nodes', name: 'a', nodes });
    nodes.push(nodeId('b'));
    expect((store.getState().exclusions.entries[0] as Extract<ExclusionEntry, { kind: 'nodes' }>).nodes).toEqual(['a']);
  });

  it('hovers only an entry that exists, and forgets the hover when that entry is removed', async () => {
    const { store } = await readyStore();
    const a = store.getState().addExclusion({ kind: 'nodes', name: 'a', nodes: ids('a') });
    store.getState().hoverExclusion(a);
    expect(store.getState().exclusions.hovered).toBe(a);
    store.getState().hoverExclusion('ghost');
    expect(store.getState().exclusions.hovered).toBeNull();
    store.getState().hoverExclusion(a);
    store.getState().removeExclusion(a);
    expect(store.getState().exclusions.hovered).toBeNull();
  });

  it('replaces the whole list (import, restore) with new ids', async () => {
    const { store } = await readyStore();
    const old = store.getState().addExclusion({ kind: 'nodes', name: 'a', nodes: ids('a') });
    store.getState().replaceExclusions([
      { kind: 'opTypes', name: 'x', opTypes: ['Sigmoid'] },
      { kind: 'subgraph', name: 'y', starts: ids('s'), ends: ids('e') },
    ]);
    const entries = store.getState().exclusions.entries;
    expect(entries.map((e) => e.kind)).toEqual(['opTypes', 'subgraph']);
    expect(entries.map((e) => e.id)).not.toContain(old);
  });

  it('turns the list into the core config fields, merging nodes and op types without repeats', () => {
    const entries: ExclusionEntry[] = [
      { id: '1', kind: 'nodes', name: 'a', nodes: ids('n1', 'n2') },
      { id: '2', kind: 'subgraph', name: 'b', starts: ids('s1', 's2'), ends: ids('e1') },
      { id: '3', kind: 'nodes', name: 'c', nodes: ids('n2', 'n3') },
      { id: '4', kind: 'opTypes', name: 'd', opTypes: ['Softmax', 'Sigmoid'] },
      { id: '5', kind: 'opTypes', name: 'e', opTypes: ['Sigmoid'] },
      { id: '6', kind: 'subgraph', name: 'f', starts: ids('s3'), ends: ids('e2', 'e3') },
    ];
    expect(exclusionFields(entries)).toEqual({
      nodesToExclude: ['n1', 'n2', 'n3'],
      opTypesToExclude: ['Softmax', 'Sigmoid'],
      subgraphsToExclude: [
        { starts: ['s1', 's2'], ends: ['e1'] },
        { starts: ['s3'], ends: ['e2', 'e3'] },
      ],
      fp16SubgraphsToFp32: [],
    });
    expect(exclusionFields([])).toEqual({
      nodesToExclude: [],
      opTypesToExclude: [],
      subgraphsToExclude: [],
      fp16SubgraphsToFp32: [],
    });
    // The FP16→FP32 list: picked the same way, its own config field.
    const fp32: ExclusionEntry = {
      id: '7',
      kind: 'subgraph',
      name: 'g',
      starts: ids('s4'),
      ends: ids('e4'),
      toFp32: true,
    };
    expect(exclusionFields([fp32])).toMatchObject({
      subgraphsToExclude: [],
      fp16SubgraphsToFp32: [{ starts: ['s4'], ends: ['e4'] }],
    });
  });

  it('quantize() hands the exclusions to the quantizer along with the settings', async () => {
    const { store, q } = await readyStore();
    store.getState().addExclusion({ kind: 'nodes', name: 'stem', nodes: ids('conv1') });
    store.getState().addExclusion({ kind: 'subgraph', name: 'head', starts: ids('Conv_3'), ends: ids('Sigmoid_9') });
    await store.getState().quantize();
    expect(store.getState().run.status).toBe('done');
    expect(q.configs[0]).toMatchObject({
      nodesToExclude: ['conv1'],
      subgraphsToExclude: [{ starts: ['Conv_3'], ends: ['Sigmoid_9'] }],
      opTypesToExclude: [],
      extraOptions: { UseRandomData: true },
    });
  });

  it('a change of the list drops the quantized model made without it', async () => {
    const { store } = await readyStore();
    await store.getState().quantize();
    expect(store.getState().run.result).not.toBeNull();
    const id = store.getState().addExclusion({ kind: 'opTypes', name: 'x', opTypes: ['Sigmoid'] });
    expect(store.getState().run).toMatchObject({ status: 'idle', result: null });
    await store.getState().quantize();
    expect(store.getState().run.result).not.toBeNull();
    store.getState().removeExclusion(id);
    expect(store.getState().run.result).toBeNull();
  });

  it('an exclusion that names nothing fails the run with a named ExclusionError and keeps the entries', async () => {
    const { store, q } = await readyStore();
    store.getState().addExclusion({ kind: 'nodes', name: 'typo', nodes: ids('conv_missing') });
    q.fail(Object.assign(new Error('nodes_to_exclude: "conv_missing" names no node'), { name: 'ExclusionError' }));
    await store.getState().quantize();
    expect(store.getState().run).toMatchObject({
      status: 'error',
      error: { name: 'ExclusionError', message: expect.stringContaining('conv_missing') },
    });
    expect(store.getState().exclusions.entries).toHaveLength(1);
  });

  it('a different model puts the old model’s entries aside; they come back when it is reopened', async () => {
    const { store } = await readyStore();
    const open = (fileName: string) =>
      store
        .getState()
        .openModel({ fileName, byteLength: 4, read: async () => ({ bytes: new ArrayBuffer(4), externalFiles: {} }) });
    store.getState().addExclusion({ kind: 'nodes', name: 'a', nodes: ids('a') });
    await open('other.onnx');
    expect(store.getState().exclusions.entries).toEqual([]);
    store.getState().addExclusion({ kind: 'opTypes', name: 'All Softmax', opTypes: ['Softmax'] });
    await open('m.onnx');
    expect(store.getState().exclusions.entries.map((e) => e.name)).toEqual(['a']);
    await open('other.onnx');
    expect(store.getState().exclusions.entries.map((e) => e.name)).toEqual(['All Softmax']);
  });
});
