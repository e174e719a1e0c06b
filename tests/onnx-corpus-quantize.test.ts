/**
 * The quantizer on ONNX's own backend test corpus: every model whose inputs are all float goes through
 * the presets, per tensor and per channel, calibrated on the test's own test_data_set inputs. Each
 * either quantizes to a model that loads and runs in onnxruntime-node on those inputs, or is refused
 * with a named error (a StudioError) that says why; nothing crashes, and no written model is one
 * onnxruntime refuses. The counts and the mean output cosine against the float model are printed.
 *
 * To stay inside the CI budget each model takes one preset, chosen by its place in the sorted corpus
 * (deterministic), and is quantized with it twice, per tensor and per channel, from one calibration:
 * every model goes through the quantizer both ways, and every preset sees a fifth of the corpus. The cosine is
 * measured on the same inputs the model was calibrated on (the corpus has one data set per model): it
 * is a sanity figure, not an accuracy claim.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DataType,
  encode,
  inferElementTypes,
  openModel,
  opsetOf,
  StudioError,
  type ModelProto,
  type OpenedModel,
} from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import type { QuantConfig } from '../src/core/quantize/config.ts';
import { cosineSimilarity } from '../src/core/metrics/cosine.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, type Feeds, type OrtTensor } from '../src/cli/runtime/ortNode.ts';
import { corpusModels, testSetFeeds, type CorpusModel } from './helpers/onnxCorpus.ts';
import { checkModels } from './helpers/onnxChecker.ts';

const PRESETS = ['XINT8', 'A8W8', 'A16W8', 'U8S8', 'S8S8'] as const;
type Preset = (typeof PRESETS)[number];

/** Element types onnxruntime-node can hand back as outputs (bfloat16, float8 and sequences it cannot). */
const RETURNABLE = new Set([
  'float32',
  'float64',
  'float16',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'bool',
  'string',
]);

interface Unit {
  model: CorpusModel;
  preset: Preset;
  perChannel: boolean;
}

type Outcome =
  | { kind: 'quantized' | 'unchanged'; cosine: number | undefined; file?: string; opset: number }
  | { kind: 'refused'; error: string; message: string }
  | { kind: 'failed'; stage: string; message: string };

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-corpus-'));

/** Runs a model on feeds and returns the outputs asked for. */
async function run(
  model: ModelProto | Uint8Array,
  feeds: Feeds,
  outputs: string[],
): Promise<Record<string, OrtTensor>> {
  const session = await createSession(model instanceof Uint8Array ? model : encode(model));
  try {
    return outputs.length > 0 ? await session.run(feeds, outputs) : {};
  } finally {
    await session.release();
  }
}

/** Mean cosine over the float32 outputs whose float values are finite and not all zero (undefined when none is). */
function meanCosine(float: Record<string, OrtTensor>, quantized: Record<string, OrtTensor>): number | undefined {
  const values: number[] = [];
  for (const [name, f] of Object.entries(float)) {
    if (f.type !== 'float32') continue;
    const a = f.data as Float32Array;
    const b = quantized[name].data as Float32Array;
    if (!a.every(Number.isFinite)) continue;
    const c = cosineSimilarity(a, b);
    if (Number.isFinite(c)) values.push(c);
  }
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : undefined;
}

describe("ONNX's backend test corpus through the quantizer", () => {
  const all = corpusModels();
  const opened = new Map<CorpusModel, OpenedModel>();
  for (const m of all) opened.set(m, openModel(fs.readFileSync(m.modelPath), { fileName: m.name }));
  const floatInput = all.filter((m) => {
    const inputs = opened.get(m)!.summary.inputs;
    return inputs.length > 0 && inputs.every((i) => i.elemType === 'float32');
  });
  const units: Unit[] = floatInput.flatMap((model, i) => [
    { model, preset: PRESETS[i % PRESETS.length], perChannel: false },
    { model, preset: PRESETS[i % PRESETS.length], perChannel: true },
  ]);
  const written: { file: string; opset: number }[] = [];

  it('every float-input model quantizes to a model that loads and runs, or is refused by name', async () => {
    const started = performance.now();
    const outcomes: { unit: Unit; outcome: Outcome }[] = [];
    const calibrated = new Map<string, Map<string, { min: number; max: number }>>();
    const floatOutputs = new Map<CorpusModel, Record<string, OrtTensor>>();

    for (const unit of units) {
      const { model, summary } = opened.get(unit.model)!;
      const feeds = testSetFeeds(unit.model, summary.inputs);
      const fetch = summary.outputs.filter((o) => RETURNABLE.has(o.elemType)).map((o) => o.name);
      const config: QuantConfig = { ...getPreset(unit.preset), perChannel: unit.perChannel };
      let stage = 'calibrate';
      let outcome: Outcome;
      try {
        const key = `${unit.model.name}|${unit.preset}`;
        let ranges = calibrated.get(key);
        if (!ranges) calibrated.set(key, (ranges = (await calibrateOnFeeds(model, feeds, { config })).ranges));
        stage = 'quantize';
        const { model: quantized, report } = quantizeModel(model, ranges, config, unit.preset);
        stage = 'load and run';
        const bytes = encode(quantized);
        const out = await run(bytes, feeds[0], fetch);
        stage = 'run the float model';
        let reference = floatOutputs.get(unit.model);
        if (!reference) floatOutputs.set(unit.model, (reference = await run(model, feeds[0], fetch)));
        const opset = opsetOf(quantized) ?? 0;
        const kind = report.counts.quantized > 0 ? 'quantized' : 'unchanged';
        let file: string | undefined;
        if (kind === 'quantized') {
          file = path.join(
            tmp,
            `${unit.model.name.replace('/', '__')}.${unit.preset}${unit.perChannel ? '.pc' : ''}.onnx`,
          );
          fs.writeFileSync(file, bytes);
          written.push({ file, opset });
        }
        outcome = { kind, cosine: meanCosine(reference, out), file, opset };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        outcome =
          e instanceof StudioError && stage !== 'load and run'
            ? { kind: 'refused', error: e.name, message }
            : { kind: 'failed', stage, message: `${e instanceof Error ? e.name : 'thrown'}: ${message}`.slice(0, 300) };
      }
      outcomes.push({ unit, outcome });
    }

    const of = (k: Outcome['kind']) => outcomes.filter((o) => o.outcome.kind === k);
    const refusedModels = new Map<string, string>();
    for (const { unit, outcome } of of('refused'))
      if (outcome.kind === 'refused') refusedModels.set(unit.model.name, `${outcome.error}: ${outcome.message}`);
    const reasons = new Map<string, number>();
    for (const why of refusedModels.values()) {
      const short = why
        .replace(/"[^"]*"/g, '"…"')
        .replace(/\(\d+\)/g, '(n)')
        .slice(0, 110);
      reasons.set(short, (reasons.get(short) ?? 0) + 1);
    }
    const cosines = outcomes.flatMap(({ outcome }) =>
      outcome.kind === 'quantized' && outcome.cosine !== undefined ? [outcome.cosine] : [],
    );
    cosines.sort((a, b) => a - b);
    const lines = [
      `ONNX test corpus: ${all.length} models, ${floatInput.length} with float32 inputs only, ${units.length} quantizations (${PRESETS.join(', ')}; per tensor and per channel) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      `  quantized, loaded and ran: ${of('quantized').length}; nothing to quantize (written unchanged, ran): ${of('unchanged').length}; refused by name: ${of('refused').length} (${refusedModels.size} models); failed: ${of('failed').length}`,
      `  output cosine vs the float model (same inputs): mean ${(cosines.reduce((s, c) => s + c, 0) / cosines.length).toFixed(4)}, median ${cosines[cosines.length >> 1]?.toFixed(4)}, ≥ 0.99 in ${cosines.filter((c) => c >= 0.99).length} of ${cosines.length}`,
      '  refusals by reason (models):',
      ...[...reasons].sort((a, b) => b[1] - a[1]).map(([why, n]) => `    ${String(n).padStart(3)}  ${why}`),
    ];
    console.log(lines.join('\n'));

    const failed = of('failed').map(({ unit, outcome }) => ({
      model: unit.model.name,
      preset: unit.preset,
      perChannel: unit.perChannel,
      ...outcome,
    }));
    expect(failed).toEqual([]);
    // Refusals are expected outcomes, never the common one (many corpus models are one op without a
    // quantization rule, written unchanged); a third of the runs at least quantize something.
    expect(of('refused').length).toBeLessThan(units.length / 10);
    expect(of('quantized').length).toBeGreaterThan(units.length / 3);
    for (const { outcome } of of('refused'))
      if (outcome.kind === 'refused') expect(outcome.message.length).toBeGreaterThan(20);
  }, 600_000);

  // Runs after the case above: one Python process checks a deterministic sample of the written models.
  it('onnx.checker accepts a sample of the written models whose opset it knows (≤ 17)', () => {
    const checkable = written.filter((w) => w.opset <= 17);
    const sample = checkable.filter((_, i) => i % 8 === 0);
    const verdicts = checkModels(sample.map((w) => w.file));
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
    expect(verdicts.length).toBeGreaterThan(20);
  });

  it('puts Q/DQ on float32 tensors only, even when given a range for every tensor (as a ranges file may list them)', async () => {
    // The models whose graphs hold non-float tensors between nodes: shape arithmetic, indices, masks.
    const mixed = floatInput.filter((m) => {
      const { model } = opened.get(m)!;
      const types = inferElementTypes(model.graph!, { opset: opsetOf(model) ?? 1 });
      return model.graph!.node.some((n) => n.output.some((o) => o && types.get(o) !== DataType.FLOAT));
    });
    const failures: string[] = [];
    for (const [i, m] of mixed.entries()) {
      const { model } = opened.get(m)!;
      const ranges = new Map<string, { min: number; max: number }>();
      for (const n of model.graph!.node) for (const o of n.output) if (o) ranges.set(o, { min: -1, max: 2 });
      for (const v of model.graph!.input) ranges.set(v.name ?? '', { min: -1, max: 2 });
      const preset = PRESETS[i % PRESETS.length];
      // A model onnxruntime-node cannot load as it is (a bfloat16 output) cannot be judged by loading its copy.
      try {
        await (await createSession(encode(model))).release();
      } catch {
        continue;
      }
      try {
        const { model: quantized } = quantizeModel(model, ranges, getPreset(preset), preset);
        const types = inferElementTypes(quantized.graph!, { opset: opsetOf(quantized) ?? 1 });
        const bad = quantized.graph!.node.filter(
          (n) => n.op_type === 'QuantizeLinear' && types.get(n.input[0]) !== DataType.FLOAT,
        );
        if (bad.length)
          failures.push(`${m.name} ${preset}: QuantizeLinear on ${bad.map((n) => n.input[0]).join(', ')}`);
        await (await createSession(encode(quantized))).release();
      } catch (e) {
        if (!(e instanceof StudioError))
          failures.push(`${m.name} ${preset}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(mixed.length).toBeGreaterThan(50);
  }, 300_000);
});
