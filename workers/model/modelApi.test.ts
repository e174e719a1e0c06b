import { afterEach, describe, expect, it } from 'vitest';
import { expose, transfer, wrap, type Remote } from 'comlink';
import { modelApi, type ModelApi } from './modelApi.ts';
import { quantizeApi } from './quantizeApi.ts';
import { HandleTable, UnknownHandleError } from '../runtime/handles.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { rejection } from '../calibration/testSupport.ts';
import {
  DataType,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  type TensorProto,
} from '../../src/core/onnx/index.ts';

/** A fresh ArrayBuffer holding exactly the fixture's bytes (what File.arrayBuffer() gives the page). */
function fixtureBuffer(name: string): ArrayBuffer {
  const bytes = readModel(name);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('modelApi', () => {
  const opened: string[] = [];
  afterEach(() => {
    for (const h of opened.splice(0)) modelApi.close(h);
  });

  it('opens a model, keeps it under a handle and returns its summary', async () => {
    const { handle, summary } = await modelApi.open(fixtureBuffer('yolox-nano.onnx'), 'yolox-nano.onnx');
    opened.push(handle);
    expect(handle).toMatch(/^model-\d+$/);
    expect(summary.fileName).toBe('yolox-nano.onnx');
    expect(summary.nodeCount).toBe(369);
    expect(summary.inputs).toEqual([{ name: 'images', elemType: 'float32', shape: [1, 3, 416, 416] }]);
    expect(modelApi.openCount()).toBe(1);
  });

  it('sends a small model’s graph structure with open (the same the view would ask for); warm-up keeps nothing open', async () => {
    modelApi.warmUp();
    expect(modelApi.openCount()).toBe(0);
    const { handle, structure } = await modelApi.open(fixtureBuffer('yolox-nano.onnx'), 'yolox-nano.onnx');
    opened.push(handle);
    expect(structure).toBeDefined();
    expect(structure).toEqual(modelApi.graphStructure(handle));
  });

  it('gives each open model its own handle, and close forgets it', async () => {
    const a = (await modelApi.open(fixtureBuffer('mnist.onnx'), 'mnist.onnx')).handle;
    const b = (await modelApi.open(fixtureBuffer('mnist.onnx'), 'mnist.onnx')).handle;
    expect(a).not.toBe(b);
    expect(modelApi.openCount()).toBe(2);
    modelApi.close(a);
    modelApi.close(b);
    modelApi.close(b); // closing twice is harmless
    expect(modelApi.openCount()).toBe(0);
  });

  it.each([
    ['an empty file', new ArrayBuffer(0), 'EmptyFileError'],
    ['a PNG renamed .onnx', fixtureBuffer('negative/not-a-model.onnx'), 'NotOnnxError'],
    ['a cut-short model', fixtureBuffer('negative/truncated.onnx'), 'TruncatedModelError'],
  ])('throws a named error for %s and keeps nothing', async (_what, bytes, name) => {
    expect((await rejection(modelApi.open(bytes, 'bad.onnx'))).name).toBe(name);
    expect(modelApi.openCount()).toBe(0);
  });

  it('opens a model with custom-domain ops and says so in the notes', async () => {
    const { handle, summary } = await modelApi.open(
      fixtureBuffer('negative/custom-domain-op.onnx'),
      'custom-domain-op.onnx',
    );
    opened.push(handle);
    expect(summary.customOps.map((o) => o.domain)).toContain('com.microsoft.extensions');
    expect(summary.notes.some((n) => n.includes('custom domains'))).toBe(true);
  });

  it('reads external data from the files given by name, and names the missing one otherwise', async () => {
    // A one-initializer model whose tensor lives in "weights.bin".
    const weight = {
      name: 'w',
      dims: [2],
      data_type: DataType.FLOAT,
      data_location: 1,
      external_data: [{ key: 'location', value: 'weights.bin' }],
    } as TensorProto;
    const model = makeModel(
      makeGraph({
        node: [makeNode('Identity', ['w'], ['y'], 'id')],
        initializer: [weight],
        input: [],
        output: [makeValueInfo('y', DataType.FLOAT, [2])],
      }),
    );
    const bytes = encode(model);
    const buffer = () => new Uint8Array(bytes).buffer; // a copy of exactly the model's bytes (encode may return a view into a pool)
    const missing = await rejection(modelApi.open(buffer(), 'ext.onnx'));
    expect(missing.name).toBe('ExternalDataError');
    expect(missing.message).toContain('"weights.bin", which was not given');
    const truncated = await rejection(
      modelApi.open(buffer(), 'ext.onnx', { 'weights.bin': new Blob([new Uint8Array(5)]) }),
    );
    expect(truncated.name).toBe('ExternalDataError');
    expect(truncated.message).toContain('truncated');
    const weights = new File([new Float32Array([1, 2])], 'weights.bin');
    const { handle, summary } = await modelApi.open(buffer(), 'ext.onnx', { 'weights.bin': weights });
    opened.push(handle);
    expect(summary.parameterCount).toBe(2);
    // Other workers get the user's File itself (by reference), never a copy of its bytes.
    expect(quantizeApi.modelBytes(handle).externalFiles['weights.bin']).toBe(weights);
  });
});

describe('modelApi through comlink (what the page sees)', () => {
  it('transfers the bytes in, returns the summary, and keeps error names intact', async () => {
    const { port1, port2 } = new MessageChannel();
    expose(modelApi, port1 as never);
    const remote: Remote<ModelApi> = wrap<ModelApi>(port2 as never);
    try {
      const buffer = fixtureBuffer('ultraface-rfb-320.onnx');
      const { handle, summary } = await remote.open(transfer(buffer, [buffer]), 'ultraface-rfb-320.onnx');
      expect(buffer.byteLength).toBe(0); // moved, not copied
      expect(summary.nodeCount).toBe(242);
      await remote.close(handle);

      const error = await remote.open(fixtureBuffer('negative/truncated.onnx'), 'truncated.onnx').then(
        () => {
          throw new Error('expected a rejection');
        },
        (e: Error) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('TruncatedModelError');
      expect(error.message).toContain('truncated.onnx');
    } finally {
      port1.close();
      port2.close();
    }
  });
});

describe('HandleTable', () => {
  it('hands out distinct ids and refuses unknown ones by name', async () => {
    const table = new HandleTable<number>('thing');
    const a = table.add(1);
    const b = table.add(2);
    expect([a, b]).toEqual(['thing-1', 'thing-2']);
    expect(table.get(b)).toBe(2);
    expect(table.delete(a)).toBe(true);
    const e = errorOf(() => table.get(a));
    expect(e).toBeInstanceOf(UnknownHandleError);
    expect(e.name).toBe('UnknownHandleError');
  });
});
