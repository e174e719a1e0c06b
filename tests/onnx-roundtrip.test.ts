/**
 * encode(decode(bytes)) loses nothing: for every fixture, the re-encoded model gets the same verdict
 * from onnx.checker and onnxruntime-node computes bit-identical outputs on the same input. `encode` and
 * `encodeParts` lay large raw data in directly, and give protobufjs's own bytes.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, encode, encodeParts, openModel, type GraphProto } from '../src/core/onnx/index.ts';
import { GraphProtoType, ModelProtoType, protobuf } from '../src/core/onnx/protoRoot.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { CONCRETE_DIMS, FIXTURE_MODELS, MODELS, readModel, seededFloats } from './helpers/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-roundtrip-'));
const written = new Map<string, string>();

beforeAll(() => {
  for (const name of FIXTURE_MODELS) {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, encode(decode(readModel(name))));
    written.set(name, file);
  }
});

describe('ONNX round trip on the fixtures', () => {
  it('onnx.checker accepts each re-encoded model as it accepts the original', () => {
    const originals = checkModels(FIXTURE_MODELS.map((n) => path.join(MODELS, n)));
    const copies = checkModels(FIXTURE_MODELS.map((n) => written.get(n)!));
    expect(originals.every((v) => v.ok)).toBe(true);
    expect(copies.map((v) => v.ok)).toEqual(originals.map((v) => v.ok));
  });

  for (const name of FIXTURE_MODELS) {
    it(`${name}: onnxruntime-node outputs are bit-identical`, async () => {
      const original = await createSession(path.join(MODELS, name));
      const copy = await createSession(fs.readFileSync(written.get(name)!));
      const { summary } = openModel(readModel(name));
      const feeds = Object.fromEntries(
        summary.inputs.map((input, k) => {
          const dims = input.shape!.map((d) => (typeof d === 'number' ? d : CONCRETE_DIMS[d]));
          const count = dims.reduce((a, b) => a * b, 1);
          return [input.name, float32Tensor(seededFloats(count, 17 + k), dims)];
        }),
      );
      const a = await original.run(feeds);
      const b = await copy.run(feeds);
      expect(Object.keys(b)).toEqual(Object.keys(a));
      for (const key of Object.keys(a)) {
        const x = new Uint8Array((a[key].data as Float32Array).buffer);
        const y = new Uint8Array((b[key].data as Float32Array).buffer);
        expect(y.length).toBe(x.length);
        expect(Buffer.compare(Buffer.from(x), Buffer.from(y))).toBe(0);
      }
      await original.release();
      await copy.release();
    });
  }

  it('a model written in parts is the same model as one written whole', () => {
    const model = decode(readModel('yolox-nano.onnx'));
    const parts = encodeParts(model, 256 * 1024);
    expect(parts.length).toBeGreaterThan(3);
    const joined = Buffer.concat(parts.map((p) => Buffer.from(p)));
    const again = decode(joined);
    expect(Buffer.compare(Buffer.from(encode(again)), Buffer.from(encode(model)))).toBe(0);
    // The graph is one field of the model, holding every node and initializer: readers that keep only the last
    // occurrence of a message field (Netron 9.2.1) would otherwise see a graph with no nodes.
    const reader = protobuf.Reader.create(joined);
    const graphs: Uint8Array[] = [];
    while (reader.pos < reader.len) {
      const key = reader.uint32();
      if (key >>> 3 === 7) graphs.push(reader.bytes());
      else reader.skipType(key & 7);
    }
    expect(graphs).toHaveLength(1);
    const graph = GraphProtoType.decode(graphs[0]) as unknown as GraphProto;
    expect(graph.node.length).toBe(model.graph!.node.length);
    expect(graph.initializer.length).toBe(model.graph!.initializer.length);
  });

  it("encode and encodeParts give protobufjs's bytes, large raw data laid in directly", () => {
    const whole = (model: object) => Buffer.from(ModelProtoType.encode(model).finish());
    for (const name of FIXTURE_MODELS) {
      const model = decode(readModel(name));
      expect(Buffer.compare(Buffer.from(encode(model)), whole(model)), name).toBe(0);
    }
    // Fields after raw_data in a large tensor (doc_string 12, data_location 14, set to its default: an own
    // property is written), and after the graph in the model (opset_import), as protobufjs orders them.
    const model = decode(readModel('yolox-nano.onnx'));
    const large = model.graph!.initializer.findIndex((t) => (t.raw_data?.byteLength ?? 0) >= 64 * 1024);
    expect(large).toBeGreaterThanOrEqual(0);
    const initializer = model.graph!.initializer.slice();
    initializer[large] = { ...initializer[large], doc_string: 'weights', data_location: 0 };
    const edited = { ...model, graph: { ...model.graph!, initializer }, doc_string: 'edited' };
    const expected = whole(edited);
    expect(Buffer.compare(Buffer.from(encode(edited)), expected)).toBe(0);
    expect(expected.includes(Buffer.from('weights'))).toBe(true);
    // Parts: the graph without initializers, then the initializers, in one graph field.
    const graph = edited.graph;
    const head = ModelProtoType.encode({ ...edited, graph: undefined }).finish();
    const body = Buffer.concat([
      GraphProtoType.encode({ ...graph, initializer: [] }).finish(),
      GraphProtoType.encode({ initializer: graph.initializer }).finish(),
    ]);
    const key = protobuf.Writer.create()
      .uint32((7 << 3) | 2)
      .uint32(body.byteLength)
      .finish();
    const parts = encodeParts(edited, 256 * 1024);
    expect(parts.length).toBeGreaterThan(3);
    const joined = Buffer.concat(parts.map((p) => Buffer.from(p)));
    expect(Buffer.compare(joined, Buffer.concat([head, key, body]))).toBe(0);
  });
});
