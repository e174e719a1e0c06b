/**
 * The hand-written decoder (schemaDecoder.ts over wireReader.ts) against protobufjs's compiled one, on every
 * fixture model, ONNX's test corpus (1,072 models and their serialized input tensors), and cut and damaged
 * files: the same objects (own fields, defaults, views into the input), or the same error with the same text.
 * protobufjs stays the reference because the encoder is still protobufjs's and must read back what it wrote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './schemaDecoder.ts';
import type { ModelProto } from './model.ts';
import { ModelProtoType, TensorProtoType } from './protoRoot.ts';
import { encode } from './encode.ts';
import { corpusModels } from '../../../tests/helpers/onnxCorpus.ts';
import { seededRandom } from '../seededRandom.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/models');
const fixtureFiles = [
  ...fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.onnx'))
    .map((f) => path.join(FIXTURES, f)),
  ...fs.readdirSync(path.join(FIXTURES, 'negative')).map((f) => path.join(FIXTURES, 'negative', f)),
];

/**
 * First difference between two decoded values, as a path and what differs; null when they are the same.
 * `ownFields`: the same own fields too (false: the same values read, own or from the prototype).
 */
function difference(a: unknown, b: unknown, at = '$', ownFields = true): string | null {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array)) return `${at}: bytes against ${typeof b}`;
    if (a.buffer !== b.buffer || a.byteOffset !== b.byteOffset || a.byteLength !== b.byteLength)
      return `${at}: not the same view of the input`;
    return null;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${at}: array against ${typeof b}`;
    if (a.length !== b.length) return `${at}: ${a.length} items against ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = difference(a[i], b[i], `${at}[${i}]`, ownFields);
      if (d) return d;
    }
    return null;
  }
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object') return `${at}: object against ${String(b)}`;
    const ka = Object.keys(a),
      kb = Object.keys(b);
    if (ownFields && ka.join() !== kb.join()) return `${at}: own fields [${ka}] against [${kb}]`;
    // Every field of the type, own or a prototype default, and the oneof accessors.
    const names = Object.getOwnPropertyNames(Object.getPrototypeOf(b)).filter(
      (n) => n !== 'constructor' && n !== '$type',
    );
    for (const name of names) {
      const d = difference(
        (a as Record<string, unknown>)[name],
        (b as Record<string, unknown>)[name],
        `${at}.${name}`,
        ownFields,
      );
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${at}: ${String(a)} against ${String(b)}`;
}

type Outcome = { value: unknown } | { error: string };
const outcome = (decode: () => unknown): Outcome => {
  try {
    return { value: decode() };
  } catch (e) {
    return { error: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
};

/** Both decoders on the same bytes: the same value, or the same error. */
function expectSame(typeName: 'onnx.ModelProto' | 'onnx.TensorProto', bytes: Uint8Array, label: string): void {
  const reference = typeName === 'onnx.ModelProto' ? ModelProtoType : TensorProtoType;
  const ours = outcome(() => decodeMessage(typeName, bytes));
  const theirs = outcome(() => reference.decode(bytes));
  if ('error' in theirs || 'error' in ours) {
    expect('error' in ours ? ours.error : 'decoded', label).toBe('error' in theirs ? theirs.error : 'decoded');
    return;
  }
  expect(difference(ours.value, theirs.value), label).toBeNull();
}

describe('decodeMessage (the schema-driven decoder)', () => {
  it('reads every fixture model as protobufjs does, from a Buffer and from a Uint8Array', () => {
    for (const file of fixtureFiles) {
      const buffer = fs.readFileSync(file);
      expectSame('onnx.ModelProto', buffer, file);
      expectSame('onnx.ModelProto', new Uint8Array(buffer), file);
    }
  });

  it('read-only: the same values on every fixture model, absent repeated fields the frozen defaults', () => {
    for (const file of fixtureFiles.filter((f) => !f.includes('negative'))) {
      const bytes = fs.readFileSync(file);
      const readOnly = decodeMessage<ModelProto>('onnx.ModelProto', bytes, true);
      expect(difference(readOnly, decodeMessage('onnx.ModelProto', bytes), '$', false), file).toBeNull();
      const graph = readOnly.graph!;
      // Present repeated fields are arrays of their own; absent ones are not made, and cannot be edited.
      expect(Object.prototype.hasOwnProperty.call(graph, 'node'), file).toBe(true);
      const plain = graph.node.find((n) => n.attribute.length === 0);
      if (plain) {
        expect(Object.prototype.hasOwnProperty.call(plain, 'attribute'), file).toBe(false);
        expect(() => plain.attribute.push({} as never), file).toThrow(TypeError);
      }
    }
  });

  it('reads every model of ONNX test corpus and its serialized tensors as protobufjs does', () => {
    const models = corpusModels();
    expect(models.length).toBeGreaterThan(1000);
    let tensors = 0;
    for (const model of models) {
      expectSame('onnx.ModelProto', fs.readFileSync(model.modelPath), model.name);
      for (const set of fs.readdirSync(model.dir).filter((d) => d.startsWith('test_data_set_'))) {
        for (const file of fs.readdirSync(path.join(model.dir, set))) {
          expectSame(
            'onnx.TensorProto',
            fs.readFileSync(path.join(model.dir, set, file)),
            `${model.name}/${set}/${file}`,
          );
          tensors++;
        }
      }
    }
    expect(tensors).toBeGreaterThan(3000);
  });

  it('fails as protobufjs does on files cut short or damaged anywhere', () => {
    const random = seededRandom(16);
    const small = ['mnist.onnx', 'super-resolution-10.onnx', 'yunet-n-dynamic.onnx'].map((f) =>
      fs.readFileSync(path.join(FIXTURES, f)),
    );
    const corpus = corpusModels()
      .filter((_, i) => i % 50 === 0)
      .map((m) => fs.readFileSync(m.modelPath));
    for (const [k, bytes] of [...small, ...corpus].entries()) {
      for (let trial = 0; trial < 60; trial++) {
        const at = Math.floor(random() * bytes.length);
        expectSame('onnx.ModelProto', bytes.subarray(0, at), `model ${k} cut at ${at}`);
        const damaged = new Uint8Array(bytes);
        damaged[at] = Math.floor(random() * 256);
        if (trial % 3 === 0) damaged[Math.floor(random() * bytes.length)] = 0x80 | Math.floor(random() * 128);
        expectSame('onnx.ModelProto', damaged, `model ${k} damaged at ${at}`);
      }
    }
  });

  it('reads back what protobufjs writes: 64-bit sentinels, negative numbers, oneofs, merged and unknown fields', () => {
    const model = {
      ir_version: 8,
      opset_import: [{ domain: '', version: 17 }],
      graph: {
        name: 'g',
        node: [
          {
            op_type: 'Slice',
            input: ['x'],
            output: ['y'],
            attribute: [
              { name: 'ends', type: 7, ints: [2 ** 63 - 1, -(2 ** 63), -1, 0, 2 ** 53] },
              { name: 'f', type: 1, f: -0.5 },
            ],
          },
        ],
        input: [
          {
            name: 'x',
            type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: 3 }] } } },
          },
        ],
        initializer: [{ name: 'w', data_type: 1, dims: [2], float_data: [1.5, -2], double_data: [], int64_data: [-7] }],
      },
    } as unknown as Parameters<typeof encode>[0];
    const bytes = encode(model);
    expectSame('onnx.ModelProto', bytes, 'written');
    // An unknown field (number 99, each wire type) and the graph field written twice (a reader merges them).
    const extra = Uint8Array.from([
      0x98, 0x06, 0x96, 0x01, 0x9a, 0x06, 5, 1, 2, 3, 4, 5, 0x9d, 0x06, 1, 2, 3, 4, 0x99, 0x06, 1, 2, 3, 4, 5, 6, 7, 8,
      0x3a, 3, 0x12, 1, 0x68,
    ]);
    const joined = new Uint8Array(bytes.length + extra.length);
    joined.set(bytes);
    joined.set(extra, bytes.length);
    expectSame('onnx.ModelProto', joined, 'with unknown and repeated fields');
    const decoded = decodeMessage<{ graph: { name: string; node: unknown[] } }>('onnx.ModelProto', joined);
    expect(decoded.graph.name).toBe('h');
    expect(decoded.graph.node).toHaveLength(1);
  });
});
