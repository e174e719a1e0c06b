/** `qstudio inspect` as a user runs it: a real process, real fixtures, exit codes and output. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../src/core/onnx/index.ts';
import { MODELS } from './helpers/fixtures.ts';
import { syntheticMlp } from '../bench/synthetic.ts';
import { writeModelFile } from '../src/cli/modelFile.ts';
import { formatBytes } from '../src/cli/format.ts';
import { qstudio } from './helpers/qstudio.ts';

describe('qstudio inspect', () => {
  it("gives a model with external data its size with the data file, not only the .onnx file's", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-inspect-ext-'));
    try {
      const out = path.join(dir, 'mlp.onnx');
      const dataFile = writeModelFile(out, syntheticMlp(3, 64), true)!;
      const r = qstudio('inspect', out);
      expect(r.code).toBe(0);
      const total = fs.statSync(out).size + fs.statSync(dataFile).size;
      expect(r.stdout.split('\n')[0]).toBe(
        `mlp.onnx  (${formatBytes(fs.statSync(out).size)}; ${formatBytes(total)}, external data included)`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the summary of yolox-nano as JSON', () => {
    const r = qstudio('inspect', path.join(MODELS, 'yolox-nano.onnx'), '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.nodeCount).toBe(369);
    expect(s.inputs).toEqual([{ name: 'images', elemType: 'float32', shape: [1, 3, 416, 416] }]);
    expect(s.outputs[0]).toMatchObject({ name: 'output', shape: [1, 3549, 85] });
    expect(s.quantization.state).toBe('float');
    expect(s.ops.find((o: { opType: string }) => o.opType === 'Conv').count).toBe(113);
  });

  it('prints symbolic dimensions by name in text', () => {
    const r = qstudio('inspect', path.join(MODELS, 'yunet-n-dynamic.onnx'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('input  float32[batch × 3 × height × width]');
    expect(r.stdout).toContain('Nodes: 163');
  });

  it.each([
    ['truncated.onnx', 'TruncatedModelError'],
    ['not-a-model.onnx', 'NotOnnxError'],
  ])('refuses negative/%s with %s and exit code 2', (file, errorName) => {
    const r = qstudio('inspect', path.join(MODELS, 'negative', file));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(errorName);
    expect(r.stdout).toBe('');
  });

  it('opens a custom-domain model and warns that it cannot run', () => {
    const r = qstudio('inspect', path.join(MODELS, 'negative', 'custom-domain-op.onnx'), '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.customOps.map((o: { domain: string }) => o.domain)).toContain('com.microsoft.extensions');
    expect(s.notes.join(' ')).toMatch(/custom domains/);
  });

  it('names a missing file and a bad option', () => {
    expect(qstudio('inspect', 'no-such-model.onnx')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('does not exist'),
    });
    expect(qstudio('inspect', '--frobnicate', 'x.onnx').code).toBe(1);
  });

  it('finds external data files beside the model', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-ext-'));
    const w = makeTensor('w', DataType.FLOAT, [4], Float32Array.of(1, 2, 3, 4));
    const data = w.raw_data!.slice();
    w.raw_data = undefined;
    w.data_location = 1;
    w.external_data = [{ key: 'location', value: 'model.data' }];
    const graph = makeGraph({
      node: [makeNode('Add', ['x', 'w'], ['y'])],
      input: [makeValueInfo('x', DataType.FLOAT, [4])],
      output: [makeValueInfo('y', DataType.FLOAT, [4])],
      initializer: [w],
    });
    fs.writeFileSync(path.join(dir, 'model.onnx'), encode(makeModel(graph)));
    expect(qstudio('inspect', path.join(dir, 'model.onnx')).code).toBe(2);
    fs.writeFileSync(path.join(dir, 'model.data'), data);
    const r = qstudio('inspect', path.join(dir, 'model.onnx'), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).parameterCount).toBe(4);
  });
});
