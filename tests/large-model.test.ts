/**
 * Models over 2 GB (issue 19): weights in external data, which sessions keep (no one-protobuf re-encode)
 * and the writer keeps (ONNX's location / offset / length convention). The small cases check the
 * mechanics on a model built in code; the large one makes a 2.2 GB MLP on disk once (bench/largeModel.ts,
 * streamed) and runs `qstudio inspect` and `qstudio quantize --calib` on it as a user would, then judges
 * the written model in onnxruntime-node against the float one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticMlp } from '../bench/synthetic.ts';
import { writeLargeModel, type LargeModelFiles } from '../bench/largeModel.ts';
import { readModelFile, writeModelFile } from '../src/cli/modelFile.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { decode, EXTERNAL_ALIGN_BYTES, sessionModel, type ModelProto } from '../src/core/onnx/index.ts';
import { ModelProtoType } from '../src/core/onnx/protoRoot.ts';
import { cosineSimilarity } from '../src/core/metrics/index.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { IMAGES } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-large-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const input = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37));

async function logits(
  model: Parameters<typeof createSession>[0],
  name: string,
  feed: Float32Array,
  dims: number[],
): Promise<Float32Array> {
  const session = await createSession(model);
  try {
    const out = await session.run({ [session.inputNames[0]]: float32Tensor(feed, dims) });
    return out[name].data as Float32Array;
  } finally {
    await session.release();
  }
}

describe('external data, on a model built in code', () => {
  const model = syntheticMlp(3, 64);
  const output = model.graph!.output[0].name!;

  it("a session over external data views the model's own buffers (no copy) and computes what the one-protobuf session does", async () => {
    const external = sessionModel(model, { externalFrom: 0 });
    const weights = model.graph!.initializer.filter((t) => t.raw_data!.byteLength >= 1024);
    expect(external.externalData.length).toBeGreaterThan(0);
    for (const w of weights) expect(external.externalData.some((f) => f.data.buffer === w.raw_data!.buffer)).toBe(true);
    expect(external.bytes.byteLength).toBeLessThan(weights.reduce((s, w) => s + w.raw_data!.byteLength, 0) / 10);
    const inline = sessionModel(model);
    expect(inline.externalData).toEqual([]);
    const a = await logits(external, output, input(64), [1, 64]);
    const b = await logits(inline, output, input(64), [1, 64]);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('writes the .onnx and one .data file with 4 KiB-aligned offsets; onnxruntime loads it by path, onnx.checker accepts it, and it reads back equal', async () => {
    const out = path.join(tmp, 'small.onnx');
    const dataFile = writeModelFile(out, model, true);
    expect(dataFile).toBe(path.join(tmp, 'small.onnx.data'));
    const written = decode(fs.readFileSync(out), {
      externalData: new Map([['small.onnx.data', new Uint8Array(fs.readFileSync(dataFile!))]]),
    });
    const stored = (ModelProtoType.decode(fs.readFileSync(out)) as unknown as ModelProto).graph!.initializer.filter(
      (t) => t.data_location === 1,
    );
    expect(stored.length).toBe(3);
    for (const t of stored) {
      const entry = Object.fromEntries(t.external_data.map((e) => [e.key, e.value]));
      expect(entry.location).toBe('small.onnx.data');
      expect(Number(entry.offset) % EXTERNAL_ALIGN_BYTES).toBe(0);
    }
    for (const [i, t] of written.graph!.initializer.entries())
      expect(Buffer.compare(t.raw_data!, model.graph!.initializer[i].raw_data!)).toBe(0);
    expect(checkModels([out])[0]).toMatchObject({ ok: true });
    expect(Array.from(await logits(out, output, input(64), [1, 64]))).toEqual(
      Array.from(await logits(sessionModel(model), output, input(64), [1, 64])),
    );
  });
});

describe('a 2.2 GB model (weights in external data) in the command line', () => {
  let files: LargeModelFiles;
  const calib = path.join(tmp, 'calib');

  beforeAll(() => {
    files = writeLargeModel(tmp, 2.2e9);
    fs.mkdirSync(calib);
    for (const f of ['grace_hopper.jpg', 'astronaut.png'])
      fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
  }, 300_000);

  it('is over 2 GiB, more than one protobuf may hold', () => {
    expect(files.dataBytes).toBeGreaterThan(2 ** 31);
    expect(fs.statSync(files.onnx).size).toBeLessThan(1 << 20);
  });

  it('inspect opens it with its data file', () => {
    const r = qstudio('inspect', files.onnx);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/MatMul\s+\d+/);
    expect(r.stdout).toMatch(/2,0\d\d\.\d MB|2\.\d+ GB/);
  });

  it('calibrates, quantizes and writes the .onnx with a .data file that onnxruntime-node loads and runs, close to the float model', async () => {
    const out = path.join(tmp, 'large-q.onnx');
    const r = qstudio('quantize', files.onnx, '--calib', calib, '--preprocess', 'unit', '--config', 'XINT8', '-o', out);
    expect(r.stderr + r.stdout).toMatch(/calibrated on 2 images/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`external data: ${out}.data`);
    expect(fs.statSync(out).size).toBeLessThan(1 << 20);
    expect(fs.statSync(`${out}.data`).size).toBeGreaterThan(files.dataBytes / 4 - (64 << 20));
    const { model: written, external } = readModelFile(out);
    expect(external).toBe(true);
    expect(written.graph!.node.filter((n) => n.op_type === 'DequantizeLinear').length).toBeGreaterThan(files.layers);
    const feed = input(3 * 32 * 32).map((v) => (v + 1) / 2);
    const q = await logits(out, 'logits', feed, [1, 3, 32, 32]);
    const f = await logits(files.onnx, 'logits', feed, [1, 3, 32, 32]);
    expect(cosineSimilarity(f, q)).toBeGreaterThan(0.98);
  }, 600_000);
});
