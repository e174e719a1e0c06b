import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { createStudioStore } from './createStudioStore.ts';
import { LOADING_STATE_DELAY_MS, type ModelBytes, type ModelService, type ModelSource } from './modelSlice.ts';

/** A summary with only what these tests look at. */
const summaryOf = (fileName: string) => ({ fileName, nodeCount: 1 }) as ModelSummary;

/** A fake worker: opens anything but files named bad*.onnx, which fail with a named error. */
function fakeService() {
  const open = new Set<string>();
  let next = 1;
  const service: ModelService = {
    async open(fileName) {
      if (fileName.startsWith('bad'))
        throw Object.assign(new Error(`"${fileName}" is truncated`), { name: 'TruncatedModelError' });
      const handle = `model-${next++}`;
      open.add(handle);
      return { handle, summary: summaryOf(fileName) };
    },
    async close(handle) {
      open.delete(handle);
    },
  };
  return { service, open };
}

const bytes = (n = 4): ModelBytes => ({ bytes: new ArrayBuffer(n), externalFiles: {} });

function source(fileName: string, read: () => Promise<ModelBytes> = async () => bytes()): ModelSource {
  return { fileName, byteLength: 4, read };
}

/** A source whose read() finishes when the test says so. */
function deferredSource(fileName: string) {
  let resolve!: (b: ModelBytes) => void;
  const promise = new Promise<ModelBytes>((r) => (resolve = r));
  return { source: source(fileName, () => promise), finish: () => resolve(bytes()) };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
/** Past the delay after which an open that has not finished shows the loading state. */
const pastLoadingDelay = () => new Promise((r) => setTimeout(r, LOADING_STATE_DELAY_MS + 20));

describe('model slice', () => {
  it('starts empty', () => {
    const store = createStudioStore({ model: fakeService().service });
    expect(store.getState().model).toMatchObject({
      status: 'empty',
      summary: null,
      error: null,
      fileName: null,
      handle: null,
    });
  });

  it('is loading with the file name and size while a model takes a while to open, then ready with its summary', async () => {
    const { service } = fakeService();
    const store = createStudioStore({ model: service });
    const d = deferredSource('a.onnx');
    const pending = store.getState().openModel(d.source);
    await pastLoadingDelay();
    expect(store.getState().model).toMatchObject({ status: 'loading', pending: { fileName: 'a.onnx', byteLength: 4 } });
    d.finish();
    await pending;
    expect(store.getState().model).toMatchObject({
      status: 'ready',
      fileName: 'a.onnx',
      handle: 'model-1',
      pending: null,
      error: null,
    });
    expect(store.getState().model.summary?.fileName).toBe('a.onnx');
  });

  it('shows no loading state for an open quicker than the delay (the model is on screen first)', async () => {
    const store = createStudioStore({ model: fakeService().service });
    const statuses: string[] = [];
    store.subscribe((s) => statuses.push(s.model.status));
    await store.getState().openModel(source('a.onnx'));
    await pastLoadingDelay();
    expect(statuses).not.toContain('loading');
    expect(store.getState().model.status).toBe('ready');
  });

  it('learns the size of a download once it is read', async () => {
    const store = createStudioStore({ model: fakeService().service });
    const d = deferredSource('sample.onnx');
    const pending = store.getState().openModel({ ...d.source, byteLength: null });
    await pastLoadingDelay();
    expect(store.getState().model.pending).toEqual({ fileName: 'sample.onnx', byteLength: null });
    d.finish();
    await pending;
    expect(store.getState().model.status).toBe('ready');
  });

  it('keeps the error name, message and file of a failed open', async () => {
    const store = createStudioStore({ model: fakeService().service });
    await store.getState().openModel(source('bad.onnx'));
    expect(store.getState().model).toMatchObject({
      status: 'error',
      summary: null,
      error: { name: 'TruncatedModelError', message: '"bad.onnx" is truncated', fileName: 'bad.onnx' },
    });
  });

  it('keeps the open model when another file fails, and dismissing the error shows it as ready', async () => {
    const { service, open } = fakeService();
    const store = createStudioStore({ model: service });
    await store.getState().openModel(source('good.onnx'));
    await store.getState().openModel(source('bad.onnx'));
    expect(store.getState().model).toMatchObject({
      status: 'error',
      fileName: 'good.onnx',
      handle: 'model-1',
      error: { fileName: 'bad.onnx' },
    });
    expect(store.getState().model.summary?.fileName).toBe('good.onnx');
    expect(open).toEqual(new Set(['model-1']));

    store.getState().dismissModelError();
    expect(store.getState().model).toMatchObject({ status: 'ready', error: null, fileName: 'good.onnx' });
  });

  it('dismissing an error with no model open returns to empty', async () => {
    const store = createStudioStore({ model: fakeService().service });
    await store.getState().openModel(source('bad.onnx'));
    store.getState().dismissModelError();
    expect(store.getState().model.status).toBe('empty');
  });

  it('names errors thrown while reading the file too', async () => {
    const store = createStudioStore({ model: fakeService().service });
    const failing = source('x.onnx', () =>
      Promise.reject(Object.assign(new Error('nope'), { name: 'SampleUnavailableError' })),
    );
    await store.getState().openModel(failing);
    expect(store.getState().model.error).toEqual({
      name: 'SampleUnavailableError',
      message: 'nope',
      fileName: 'x.onnx',
    });
  });

  it('replaces the open model on success and closes the old one in the worker', async () => {
    const { service, open } = fakeService();
    const store = createStudioStore({ model: service });
    await store.getState().openModel(source('a.onnx'));
    await store.getState().openModel(source('b.onnx'));
    await flush();
    expect(store.getState().model).toMatchObject({ status: 'ready', fileName: 'b.onnx', handle: 'model-2' });
    expect(open).toEqual(new Set(['model-2']));
  });

  it('lets only the newest of overlapping opens win, and closes what the older one opened', async () => {
    const { service, open } = fakeService();
    const store = createStudioStore({ model: service });
    const slow = deferredSource('slow.onnx');
    const first = store.getState().openModel(slow.source);
    await store.getState().openModel(source('fast.onnx'));
    slow.finish();
    await first;
    await flush();
    expect(store.getState().model).toMatchObject({ status: 'ready', fileName: 'fast.onnx' });
    expect([...open]).toEqual([store.getState().model.handle]);
  });

  it('closeModel empties the slice and frees the model in the worker', async () => {
    const { service, open } = fakeService();
    const store = createStudioStore({ model: service });
    await store.getState().openModel(source('a.onnx'));
    store.getState().closeModel();
    await flush();
    expect(store.getState().model.status).toBe('empty');
    expect(open.size).toBe(0);
  });

  describe('a model the page shows before the worker holds it (settled)', () => {
    /** A service that answers at once and settles each open when the test says: held, or failed in the worker. */
    function pageFirstService() {
      const { service, open } = fakeService();
      const settle: { [handle: string]: { hold: () => void; fail: (e: Error) => void } } = {};
      const pageFirst: ModelService = {
        async open(fileName, data) {
          const opened = await service.open(fileName, data);
          const settled = new Promise<void>((hold, fail) => (settle[opened.handle] = { hold, fail }));
          return { ...opened, settled };
        },
        close: service.close,
      };
      return { service: pageFirst, open, settle };
    }

    /** a.onnx opened and held by the worker, then b.onnx shown and not yet held. */
    async function secondShown() {
      const fake = pageFirstService();
      const store = createStudioStore({ model: fake.service });
      const first = store.getState().openModel(source('a.onnx'));
      await flush();
      fake.settle['model-1'].hold();
      await first;
      const second = store.getState().openModel(source('b.onnx'));
      await flush();
      return { ...fake, store, second };
    }

    it('shows the model at once and closes the one before only once the worker holds the new one', async () => {
      const { open, settle, store, second } = await secondShown();
      expect(store.getState().model).toMatchObject({ status: 'ready', fileName: 'b.onnx', handle: 'model-2' });
      expect(open).toEqual(new Set(['model-1', 'model-2']));
      settle['model-2'].hold();
      await second;
      await flush();
      expect(open).toEqual(new Set(['model-2']));
    });

    it('gives the previous model back with the named error when the worker cannot open what the page showed', async () => {
      const { open, settle, store, second } = await secondShown();
      settle['model-2'].fail(Object.assign(new Error('The model worker stopped'), { name: 'WorkerError' }));
      await second;
      await flush();
      expect(store.getState().model).toMatchObject({
        status: 'error',
        fileName: 'a.onnx',
        handle: 'model-1',
        summary: { fileName: 'a.onnx' },
        error: { name: 'WorkerError', fileName: 'b.onnx' },
      });
      expect(open).toEqual(new Set(['model-1']));
    });
  });
});
