import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { nodeId } from '../../core/onnx/model.ts';
import { createStudioStore } from '../store/createStudioStore.ts';
import type { ModelService } from '../store/modelSlice.ts';
import type { KeyValueStore } from './idb.ts';
import { createSessionPersistence } from './sessionPersistence.ts';

/** IndexedDB's behaviour that matters here: values kept by key, one failure mode on demand. */
function memoryStore() {
  const data = new Map<string, unknown>();
  let failWith: Error | null = null;
  const kv: KeyValueStore = {
    async get<T>(key: string) {
      return data.get(key) as T | undefined;
    },
    async putAll(records) {
      if (failWith) throw failWith;
      for (const [k, v] of Object.entries(records)) data.set(k, v);
    },
    async delete(key) {
      data.delete(key);
    },
    async clear() {
      data.clear();
    },
  };
  return { kv, data, fail: (e: Error | null) => (failWith = e) };
}

/** A model worker that keeps what it opened, as the real one does, and hands back copies. */
function fakeWorker() {
  const held = new Map<string, { fileName: string; bytes: ArrayBuffer; externalFiles: Record<string, Blob> }>();
  let next = 1;
  const service: ModelService = {
    async open(fileName, data) {
      const handle = `model-${next++}`;
      held.set(handle, { fileName, bytes: data.bytes.slice(0), externalFiles: data.externalFiles });
      return { handle, summary: { fileName, inputs: [], ops: [] } as unknown as ModelSummary };
    },
    async close(handle) {
      held.delete(handle);
    },
  };
  const modelBytes = async (handle: string) => {
    const h = held.get(handle)!;
    return { fileName: h.fileName, bytes: h.bytes.slice(0), externalFiles: h.externalFiles };
  };
  return { service, modelBytes, held };
}

function page(kv: KeyValueStore) {
  const worker = fakeWorker();
  const store = createStudioStore({ model: worker.service });
  const session = createSessionPersistence({
    store,
    storage: async () => kv,
    modelBytes: worker.modelBytes,
    delayMs: 5,
  });
  return { store, session, worker };
}

const modelFile = new File([Uint8Array.of(8, 1, 2, 3)], 'net.onnx');
const image = new File([Uint8Array.of(1, 2, 3)], 'cat.png', { lastModified: 5 });

async function userWorks(kv: KeyValueStore) {
  const first = page(kv);
  await first.session.start();
  await first.store.getState().openModel({
    fileName: 'net.onnx',
    byteLength: 4,
    read: async () => ({ bytes: await modelFile.arrayBuffer(), externalFiles: {} }),
  });
  first.store.getState().addCalibrationData({ images: [image] });
  first.store.getState().setQuantPreset('A8W8');
  first.store.getState().setPerChannel(true);
  first.store.getState().setCalibrationMethod('Entropy');
  first.store.getState().addExclusion({ kind: 'opTypes', name: 'All Sigmoid', opTypes: ['Sigmoid'] });
  first.store
    .getState()
    .addExclusion({ kind: 'subgraph', name: 'head', starts: [nodeId('Conv_3')], ends: [nodeId('Sigmoid_9')] });
  first.store.getState().setEvaluationNpuBf16(true);
  first.store.getState().setSuggestNpuBf16(true);
  first.store.getState().setRecoveryOptions({ iterations: 250, mixedPrecision: true });
  first.store.getState().setLadderChoice({ metric: 'psnr', value: 31, order: 'fastest' });
  await first.session.flush();
  return first;
}

describe('session persistence', () => {
  it('a reload reopens the model and restores the data, settings and picks', async () => {
    const { kv } = memoryStore();
    await userWorks(kv);

    const second = page(kv);
    await second.session.start();
    const s = second.store.getState();
    expect(s.model).toMatchObject({ status: 'ready', fileName: 'net.onnx' });
    // The model was reopened from the saved bytes.
    expect(new Uint8Array(second.worker.held.get(s.model.handle!)!.bytes)).toEqual(Uint8Array.of(8, 1, 2, 3));
    expect(s.calibration.images.map((f) => f.name)).toEqual(['cat.png']);
    expect(s.run.settings).toEqual({
      preset: 'A8W8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: {},
      calibrationMethod: 'Entropy',
    });
    expect(s.exclusions.entries.map(({ id: _, ...e }) => e)).toEqual([
      { kind: 'opTypes', name: 'All Sigmoid', opTypes: ['Sigmoid'] },
      { kind: 'subgraph', name: 'head', starts: ['Conv_3'], ends: ['Sigmoid_9'] },
    ]);
    expect(second.session.getStatus().restored).toMatch(/net\.onnx.*2 exclusions.*1 calibration image/);
    // The choice to judge the model as the NPU runs it (float parts in BF16) comes back for the evaluation and the search.
    expect(s.evaluation.npuBf16).toBe(true);
    expect(s.evaluation.suggest.npuBf16).toBe(true);
    // The recovery card's settings: the algorithms' and the ladder's.
    expect(s.recovery.options).toMatchObject({ iterations: 250, mixedPrecision: true });
    expect(s.recovery.ladder).toMatchObject({ metric: 'psnr', value: 31, order: 'fastest' });
  });

  it("keeps a model's data file as the user's File (no copy of its bytes) and reopens the model with it", async () => {
    const { kv, data } = memoryStore();
    const first = page(kv);
    await first.session.start();
    const weights = new File([new Uint8Array(16)], 'net.onnx.data');
    await first.store.getState().openModel({
      fileName: 'net.onnx',
      byteLength: 4,
      read: async () => ({ bytes: await modelFile.arrayBuffer(), externalFiles: { 'net.onnx.data': weights } }),
    });
    await first.session.flush();
    expect((data.get('model') as { externalFiles: File[] }).externalFiles).toEqual([weights]);
    expect((data.get('model') as { externalFiles: File[] }).externalFiles[0]).toBe(weights);
    const second = page(kv);
    await second.session.start();
    const held = second.worker.held.get(second.store.getState().model.handle!)!;
    expect(Object.keys(held.externalFiles)).toEqual(['net.onnx.data']);
    expect(held.externalFiles['net.onnx.data'].size).toBe(16);
  });

  it('does not write the restored model back, and keeps following changes', async () => {
    const { kv, data } = memoryStore();
    await userWorks(kv);
    const second = page(kv);
    await second.session.start();
    const savedModel = data.get('model');
    second.store.getState().removeExclusion(second.store.getState().exclusions.entries[0].id);
    await second.session.flush();
    expect(data.get('model')).toBe(savedModel);
    expect((data.get('choices') as { exclusions: unknown[] }).exclusions).toHaveLength(1);
  });

  it('restores nothing and says nothing on a first visit', async () => {
    const { kv } = memoryStore();
    const { store, session } = page(kv);
    await session.start();
    expect(store.getState().model.status).toBe('empty');
    expect(session.getStatus()).toEqual({ restored: null, notKept: null, restoring: false, error: null });
  });

  it('a new session empties the page and the storage', async () => {
    const { kv, data } = memoryStore();
    const first = await userWorks(kv);
    await first.session.newSession();
    await first.session.flush();
    const s = first.store.getState();
    expect(s.model.status).toBe('empty');
    expect(s.calibration.images).toEqual([]);
    expect(s.exclusions.entries).toEqual([]);
    expect(s.run.settings.preset).toBe('XINT8');
    expect(data.size).toBe(0);
    const third = page(kv);
    await third.session.start();
    expect(third.store.getState().model.status).toBe('empty');
  });

  it('a full quota is reported in the status, never thrown, and the page keeps working', async () => {
    const mem = memoryStore();
    const { store, session } = page(mem.kv);
    await session.start();
    mem.fail(Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' }));
    await store.getState().openModel({
      fileName: 'net.onnx',
      byteLength: 4,
      read: async () => ({ bytes: await modelFile.arrayBuffer(), externalFiles: {} }),
    });
    store.getState().addCalibrationData({ images: [image] });
    await session.flush();
    expect(session.getStatus().error).toMatch(/QuotaExceededError/);
    expect(store.getState().model.status).toBe('ready');
    expect(store.getState().calibration.images).toHaveLength(1);
  });
});
