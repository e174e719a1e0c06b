/**
 * `qstudio quantize --mixed-precision` on a model whose every output is one number a sample (a wake-word score): its
 * default target, cosine 0.99, is refused before any calibration with what to aim at instead, as the ladder and
 * suggest refuse it (before, the search printed "base: cosine 1.00000 ... target reached": the cosine of two numbers of
 * one sign is always 1); a decision target is taken, and judged on 16 samples where others are judged on 4.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode } from '../src/core/onnx/index.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { npyBytes } from './helpers/npyFiles.ts';
import { qstudio } from './helpers/qstudio.ts';
import { scoreModel } from './helpers/smallModels.ts';
import { float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { DEFAULT_PRECISION_BUDGET } from '../src/core/quantize/precisionBudget.ts';
import { chooseMixedPrecision } from '../src/core/search/mixedPrecision.ts';
import { mixedPrecisionAim } from '../src/core/recovery/targetMeasure.ts';
import { parseLadderTarget } from '../src/core/recovery/ladder.ts';
import type { ComparisonRuntime } from '../src/core/evaluate/compareModels.ts';
import { mixedSummary } from '../workers/recovery/rungSummary.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-one-number-'));

describe('mixed precision on a one-score model', () => {
  it('refuses a cosine target by name, before calibrating, and takes a decision target', () => {
    const model = path.join(tmp, 'score.onnx');
    fs.writeFileSync(model, encode(scoreModel()));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 20 + k, -1, 1), [1, 6, 8], '<f4'));
    const args = ['quantize', model, '--calib', calib, '--config', 'A8W8', '--mixed-precision'];
    const refused = qstudio(...args, '-o', path.join(tmp, 'cosine.onnx'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "a cosine target needs an output of more than one number a sample; this model's 'score' [1, 1] is one number a sample",
    );
    expect(refused.stderr).toContain('aim at decision:<share>');
    expect(refused.stderr).not.toMatch(/calibrat/);
    expect(fs.existsSync(path.join(tmp, 'cosine.onnx'))).toBe(false);
    const decision = qstudio(...args, '--target', 'decision:0.95', '-o', path.join(tmp, 'decision.onnx'));
    expect(decision.code, decision.stderr).toBe(0);
    expect(decision.stderr).toMatch(/mixed precision: decision [\d.]+ → [\d.]+/);
    // A decision target judges on up to 16 samples (its figure moves by 1/n): all 6 here, where it took 4.
    expect(decision.stderr).toContain('target decision 0.95 on 6 tensor sample(s)');
    // Fewer than 16 there: said, with what to give.
    expect(decision.stderr).toContain(
      'note: the decision target is judged on 6 sample(s): its figure moves by 1/6 a sample',
    );
    expect(decision.stderr).toContain('give 16 or more (--calib samples, --sensitivity-samples)');
  });

  it('judges a decision target on 16 samples by default and a cosine target on 4 (the samples onnxruntime ran), and the page says when a decision target had fewer', async () => {
    const model = scoreModel(true);
    const feeds = Array.from({ length: 24 }, (_, k) => ({
      x: float32Tensor(seededFloats(48, 60 + k, -1, 1), [1, 6, 8]),
    }));
    const { ranges } = await calibrateOnFeeds(model, feeds, { config: getPreset('A8W8') });
    const judged = async (target: string, samples?: number) => {
      const base = nodeRuntime(feeds);
      const seen = new Set<number>();
      const runtime: ComparisonRuntime = {
        ...base,
        open: async (bytes) => {
          const session = await base.open(bytes);
          return { ...session, run: (sample, names) => (seen.add(sample), session.run(sample, names)) };
        },
      };
      const result = await chooseMixedPrecision(model, ranges, getPreset('A8W8'), runtime, {
        budget: DEFAULT_PRECISION_BUDGET,
        ...mixedPrecisionAim(parseLadderTarget(target)),
        maxMeasurements: 2,
        ...(samples ? { samples } : {}),
      });
      // What the page's rung row shows: the samples judged, and a note where a decision target had too few.
      const summary = mixedSummary(result)!;
      expect(summary.samples).toBe(seen.size);
      return { samples: seen.size, note: summary.fewSamples };
    };
    expect(await judged('decision:0.95')).toEqual({ samples: 16, note: null });
    expect(await judged('cosine:0.99')).toEqual({ samples: 4, note: null });
    const few = await judged('decision:0.95', 4);
    expect(few.samples).toBe(4);
    expect(few.note).toMatch(
      /^the decision target is judged on 4 sample\(s\): its figure moves by 1\/4 a sample.*give 16 or more$/,
    );
  });
});
