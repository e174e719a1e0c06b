/**
 * Models with control flow (If, Loop, nested): calibration reads tensors inside the bodies, the quantizer writes
 * Q/DQ there (weights read across scopes become codes of the body, what still reads a float initializer keeps it),
 * the written models load and run in onnxruntime at its default level and at 'basic' and pass onnx.checker, and
 * the report counts the subgraph nodes quantized and those left float, with why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decode, encode, forEachGraph, WrittenModelRefusedError, type ModelProto } from '../src/core/onnx/index.ts';
import { controlFlowModel, scanModel } from '../src/core/quantize/testModels.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions } from '../src/core/quantize/config.ts';
import { quantizeBf16 } from '../src/core/quantize/bf16Preset.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { IMAGES, seededFloats } from './helpers/fixtures.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { qstudio } from './helpers/qstudio.ts';
import { checkWrittenModel } from '../src/cli/runtime/modelCheck.ts';
import { npyBytes } from './helpers/npyFiles.ts';

const feeds = Array.from({ length: 8 }, (_, k) => ({ x: float32Tensor(seededFloats(4, 40 + k, -1.5, 1.5), [1, 4]) }));

async function outputs(model: ModelProto, level: 'all' | 'basic'): Promise<Float32Array[]> {
  const session = await createSession(encode(model), 1, level);
  try {
    const out: Float32Array[] = [];
    for (const f of feeds) out.push((await session.run(f)).out.data as Float32Array);
    return out;
  } finally {
    await session.release();
  }
}

/** Names every graph of the model reads that no graph defines (input, initializer or node output). */
function undefinedReads(model: ModelProto): string[] {
  const defined = new Set<string>();
  forEachGraph(model.graph!, (g) => {
    g.input.forEach((v) => defined.add(v.name ?? ''));
    g.initializer.forEach((t) => defined.add(t.name ?? ''));
    g.node.forEach((n) => n.output.forEach((o) => defined.add(o)));
  });
  const missing = new Set<string>();
  forEachGraph(model.graph!, (g) =>
    g.node.forEach((n) => n.input.forEach((i) => i && !defined.has(i) && missing.add(i))),
  );
  return [...missing];
}

describe('control flow (If, Loop, nested If)', () => {
  const model = controlFlowModel();

  it.each([
    ['A8W8', false],
    ['XINT8', false],
    ['A8W8', true],
    ['A16W8', false],
  ] as const)(
    '%s (per channel %s), EnableSubgraph: bodies calibrated and quantized, every read defined, loads at all and basic, close to float, report counts',
    async (preset, perChannel) => {
      const config = withOptions(getPreset(preset), { perChannel, extraOptions: { EnableSubgraph: true } });
      const { ranges } = await calibrateOnFeeds(model, feeds, { config });
      // Ranges inside every body: the then branch's Gemm, the Loop's carried value and its MatMul.
      for (const t of ['t1', 'v', 'm', 'v_next', 'ye']) expect(ranges.has(t), t).toBe(true);
      const { model: q, report } = quantizeModel(model, ranges, config, preset);
      expect(undefinedReads(q)).toEqual([]);
      // Q/DQ written inside the bodies, weights read across scopes as codes of the body.
      const inBodies = { q: 0, dq: 0, codes: 0 };
      forEachGraph(q.graph!, (g, depth) => {
        if (depth === 0) return;
        inBodies.q += g.node.filter((n) => n.op_type === 'QuantizeLinear').length;
        inBodies.dq += g.node.filter((n) => n.op_type === 'DequantizeLinear').length;
        inBodies.codes += g.initializer.filter((t) => /^(wt|we|w0)_quantized/.test(t.name ?? '')).length;
      });
      expect(inBodies.q).toBeGreaterThan(2);
      expect(inBodies.codes).toBeGreaterThanOrEqual(2);
      expect(report.counts.quantized).toBeGreaterThan(0);
      expect(report.subgraphs).toMatchObject({ nodes: 9, opTypes: { MatMul: 3, Gemm: 1 } });
      expect(report.subgraphs!.holders.map((h) => h.opType)).toEqual(['If', 'Loop']);
      expect(report.subgraphs!.quantized).toBeGreaterThanOrEqual(5);
      expect(report.subgraphs!.quantizedOps).toMatchObject({ Gemm: 1 });
      const float = await outputs(model, 'basic');
      for (const level of ['all', 'basic'] as const) {
        const got = await outputs(q, level);
        got.forEach((o, k) =>
          o.forEach((v, j) => expect(Math.abs(v - float[k][j]), `${level} sample ${k}`).toBeLessThan(0.2)),
        );
      }
    },
  );

  it('weights inside bodies are in the saturation report: at risk at 8 bits, given 7-bit channels with saturationSafeWeights (loads at all and basic)', async () => {
    const config = withOptions(getPreset('A8W8'), { extraOptions: { EnableSubgraph: true } });
    const { ranges } = await calibrateOnFeeds(model, feeds, { config });
    // w0 is read by the main Gemm; wt, we and wn only inside the If's branches.
    expect(quantizeModel(model, ranges, config).report.saturationRisk?.sort()).toEqual(['w0', 'we', 'wn', 'wt']);
    const safe = quantizeModel(model, ranges, withOptions(config, { saturationSafeWeights: true }));
    expect(safe.report.saturationSafeWeights?.sort()).toEqual(['w0', 'we', 'wn', 'wt']);
    expect(safe.report.saturationRisk).toBeUndefined();
    for (const level of ['all', 'basic'] as const) expect(await outputs(safe.model, level)).toHaveLength(feeds.length);
  });

  it('EnableSubgraph off, the default, keeps every body float32 and says so', async () => {
    const config = getPreset('A8W8');
    expect(config.extraOptions.EnableSubgraph).toBe(false);
    const { ranges } = await calibrateOnFeeds(model, feeds, { config });
    const { model: q, report } = quantizeModel(model, ranges, config, 'A8W8');
    let inBodies = 0;
    forEachGraph(
      q.graph!,
      (g, depth) => (inBodies += depth > 0 ? g.node.filter((n) => n.op_type === 'QuantizeLinear').length : 0),
    );
    expect(inBodies).toBe(0);
    // Nothing inside a body is read out for calibration: no range, no carried output (issue 33).
    for (const t of ['t1', 'v', 'm', 'v_next', 'ye']) expect(ranges.has(t), t).toBe(false);
    // s, a scalar, counted by the in-graph reductions as one value (ReduceProd of an empty shape).
    expect([...ranges.keys()]).toEqual(expect.arrayContaining(['h', 's', 'z', 'out']));
    expect(undefinedReads(q)).toEqual([]);
    expect(report.warnings.join('\n')).toMatch(
      /9 node\(s\) inside the subgraphs of 2 control-flow node\(s\) \(If ×1, Loop ×1\) stay float32, among them 3 MatMul, 1 Gemm: .*EnableSubgraph is off.*--enable-subgraph/,
    );
  });

  it('BF16 keeps the subgraph initializers and warns', async () => {
    const { model: b, report } = quantizeBf16(model);
    expect(undefinedReads(b)).toEqual([]);
    expect(report.warnings.join('\n')).toMatch(
      /9 node\(s\) inside the subgraphs of 2 control-flow node\(s\) \(If ×1, Loop ×1\) stay float32, among them 3 MatMul, 1 Gemm/,
    );
    for (const level of ['all', 'basic'] as const) expect((await outputs(b, level)).length).toBe(feeds.length);
  });

  it('onnx.checker accepts the written models; qstudio quantize counts the subgraph nodes on stderr', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-control-flow-'));
    const source = path.join(dir, 'cf.onnx');
    fs.writeFileSync(source, encode(model));
    // The bodies' tensors are calibrated only where EnableSubgraph asks (as qstudio calibrate --enable-subgraph).
    const { ranges } = await calibrateOnFeeds(model, feeds, {
      config: withOptions(getPreset('A8W8'), { extraOptions: { EnableSubgraph: true } }),
    });
    const rangesFile = path.join(dir, 'ranges.json');
    fs.writeFileSync(rangesFile, JSON.stringify(Object.fromEntries([...ranges].map(([k, r]) => [k, [r.min, r.max]]))));
    const written: string[] = [];
    for (const config of ['A8W8', 'XINT8', 'BF16']) {
      const out = path.join(dir, `cf_${config}.onnx`);
      const run = qstudio(
        'quantize',
        source,
        '--ranges',
        rangesFile,
        '--config',
        config,
        ...(config === 'BF16' ? [] : ['--enable-subgraph']),
        '-o',
        out,
      );
      expect(run.code, run.stderr).toBe(0);
      if (config === 'BF16') expect(run.stderr).toMatch(/warning: 9 node\(s\) inside the subgraphs/);
      else expect(run.stdout).toMatch(/, [5-9] of 9 inside subgraphs quantized, /);
      written.push(out);
    }
    for (const v of checkModels(written)) expect(v.ok, `${v.path}: ${v.error}`).toBe(true);
  });

  it('qstudio ladder and suggest take --enable-subgraph (every rung quantizes the bodies; a --config carries it); without it the ladder names the compute left float', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-control-flow-ladder-'));
    const source = path.join(dir, 'cf.onnx');
    fs.writeFileSync(source, encode(model));
    const data = path.join(dir, 'tensors');
    fs.mkdirSync(data);
    feeds.forEach((f, k) =>
      fs.writeFileSync(path.join(data, `${k}.npy`), npyBytes(f.x.data as Float32Array, [1, 4], '<f4')),
    );
    const bodyQdq = (file: string) => {
      let n = 0;
      forEachGraph(decode(fs.readFileSync(file)).graph!, (g, depth) => {
        if (depth > 0) n += g.node.filter((x) => x.op_type === 'QuantizeLinear').length;
      });
      return n;
    };
    const ladder = (out: string, ...more: string[]) =>
      qstudio('ladder', source, '--calib', data, '--formats', 'XINT8', '--target', 'cosine:0.5', '-o', out, ...more);

    const plain = ladder(path.join(dir, 'plain.onnx'));
    expect(plain.code, plain.stderr).toBe(0);
    expect(bodyQdq(path.join(dir, 'plain.onnx'))).toBe(0);
    expect(plain.stderr).toMatch(/warning: 9 node\(s\) inside the subgraphs of 2 control-flow node\(s\).*stay float32/);

    const enabled = ladder(path.join(dir, 'enabled.onnx'), '--enable-subgraph');
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(bodyQdq(path.join(dir, 'enabled.onnx'))).toBeGreaterThan(2);
    expect(enabled.stderr).not.toMatch(/stay float32/);

    // The same through a configuration file, as the page exports it or suggest writes it.
    const config = path.join(dir, 'config.json');
    const suggest = qstudio(
      'suggest',
      source,
      '--calib',
      data,
      '--config',
      'XINT8',
      '--enable-subgraph',
      '--max-steps',
      '1',
      '-o',
      config,
    );
    expect(suggest.code, suggest.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(config, 'utf8')).extraOptions.EnableSubgraph).toBe(true);
    const fromFile = ladder(path.join(dir, 'from-file.onnx'), '--config', config);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(bodyQdq(path.join(dir, 'from-file.onnx'))).toBeGreaterThan(2);
    await checkWrittenModel(path.join(dir, 'from-file.onnx'));
  });

  it("a model onnxruntime refuses is named, not a stack trace: the writers' check and evaluate", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-refused-'));
    // The If model as the writers used to write it: the initializers only subgraphs read dropped.
    const broken: ModelProto = {
      ...model,
      graph: {
        ...model.graph!,
        initializer: model.graph!.initializer.filter((t) => !['wt', 'bt', 'wn', 'we'].includes(t.name ?? '')),
      },
    };
    const file = path.join(dir, 'broken.onnx');
    fs.writeFileSync(file, encode(broken));
    await expect(checkWrittenModel(file)).rejects.toThrow(WrittenModelRefusedError);
    await expect(checkWrittenModel(file)).rejects.toThrow(
      /broken\.onnx was written, but onnxruntime refuses to load it at its default options \(graph optimization 'all'\): .*wt/,
    );
    const source = path.join(dir, 'cf.onnx');
    fs.writeFileSync(source, encode(model));
    await expect(checkWrittenModel(source)).resolves.toBeUndefined();
    const run = qstudio('evaluate', source, file, '--data', path.join(IMAGES, 'photos'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^qstudio evaluate: InferenceError: onnxruntime refuses to load the quantized model broken\.onnx: .*topologically sorted/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('Scan bodies', () => {
  const model = scanModel();
  const seqFeeds = Array.from({ length: 6 }, (_, k) => ({
    x: float32Tensor(seededFloats(20, 70 + k, -1.5, 1.5), [5, 1, 4]),
  }));
  const run = async (m: ModelProto, level: 'all' | 'basic') => {
    const session = await createSession(encode(m), 1, level);
    try {
      const out: Float32Array[] = [];
      for (const f of seqFeeds) {
        const r = await session.run(f);
        out.push(Float32Array.from([...(r.out.data as Float32Array), ...(r.seq.data as Float32Array)]));
      }
      return out;
    } finally {
      await session.release();
    }
  };
  const bodyTensors = ['xt', 'h', 'mx', 'mh', 'pre', 'pre_b', 'h_next', 'my', 'yt'];

  it('EnableSubgraph: the body is calibrated (slices, state, every node), quantized, loads at all and basic, passes onnx.checker', async () => {
    const config = withOptions(getPreset('A8W8'), { extraOptions: { EnableSubgraph: true } });
    const { ranges } = await calibrateOnFeeds(model, seqFeeds, { config });
    for (const t of bodyTensors) expect(ranges.has(t), t).toBe(true);
    // The Scan's carried state starts at zero and its slices are x's rows: the ranges cover every iteration's values.
    const xs = seqFeeds.flatMap((f) => [...(f.x.data as Float32Array)]);
    expect(ranges.get('xt')).toEqual({ min: Math.min(...xs), max: Math.max(...xs) });
    expect(ranges.get('h')!.min).toBeLessThanOrEqual(0);
    const { model: q, report } = quantizeModel(model, ranges, config, 'A8W8');
    expect(undefinedReads(q)).toEqual([]);
    let inBody = 0;
    forEachGraph(
      q.graph!,
      (g, depth) => (inBody += depth > 0 ? g.node.filter((n) => n.op_type === 'QuantizeLinear').length : 0),
    );
    expect(inBody).toBeGreaterThanOrEqual(3);
    expect(report.subgraphs!.holders.map((h) => h.opType)).toEqual(['Scan']);
    expect(report.subgraphs!.quantizedOps).toMatchObject({ MatMul: 3 });
    const float = await run(model, 'basic');
    for (const level of ['all', 'basic'] as const) {
      const got = await run(q, level);
      got.forEach((o, k) =>
        o.forEach((v, j) => expect(Math.abs(v - float[k][j]), `${level} sample ${k}`).toBeLessThan(0.15)),
      );
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-scan-'));
    const file = path.join(dir, 'scan_A8W8.onnx');
    fs.writeFileSync(file, encode(q));
    for (const v of checkModels([file])) expect(v.ok, `${v.path}: ${v.error}`).toBe(true);
  });

  it('EnableSubgraph off: nothing in the body is read out or quantized, and the model still runs', async () => {
    const config = getPreset('A8W8');
    const { ranges } = await calibrateOnFeeds(model, seqFeeds, { config });
    for (const t of bodyTensors) expect(ranges.has(t), t).toBe(false);
    expect(ranges.has('out')).toBe(true);
    for (const t of ranges.keys()) expect(['x', 'h_last', 'ys', 'out', 'seq'], t).toContain(t);
    const { model: q } = quantizeModel(model, ranges, config, 'A8W8');
    for (const level of ['all', 'basic'] as const) expect((await run(q, level)).length).toBe(seqFeeds.length);
  });
});
