/**
 * encode(decode(bytes)) loses nothing: for every fixture, the re-encoded model gets the same verdict
 * from onnx.checker and onnxruntime-node computes bit-identical outputs on the same input.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, encode, encodeParts, openModel, type GraphProto } from '../src/core/onnx/index.ts';
import { GraphProtoType, protobuf } from '../src/core/onnx/protoRoot.ts';
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
});
