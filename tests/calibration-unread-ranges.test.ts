/**
 * Calibration for one quantization plan observes only the tensors the plan reads a range of (issue 33.5;
 * core/quantize/unreadRanges.ts): on UltraFace with real photos, XINT8's Conv (BatchNormalization) outputs feeding a fused Relu are not
 * asked of onnxruntime, and the model written from those statistics is byte for byte the one written from every
 * tensor's.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode, openModel } from '../src/core/onnx/index.ts';
import type { SampleSource } from '../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import { rangesOf } from '../src/core/calibrate/run/statistics.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { prepareQuantization, quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { standInsUnread, unreadRanges, withUnreadRanges } from '../src/core/quantize/unreadRanges.ts';
import type { Runtime } from '../src/core/runtime/session.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { calibrateWith, recordingRuntime } from './helpers/calibrationRuns.ts';
import { readModel } from './helpers/fixtures.ts';

describe('calibration of the tensors a plan reads', () => {
  it('UltraFace XINT8: fused Conv outputs are not requested; the written model is unchanged', async () => {
    const name = 'ultraface-rfb-320.onnx';
    const { model, summary } = openModel(readModel(name));
    const config = getPreset('XINT8');
    const photos = (): SampleSource =>
      sampleSource(
        PHOTOS.slice(0, 2).map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
        summary.inputs,
        FIXTURE_PREPROCESS[name],
        async (f: string) => decodeImageFile(f),
      );
    const recording = recordingRuntime(ortNodeRuntime(1));
    const calibrated = async (runtime: Runtime, unobserved?: ReadonlySet<string>) =>
      rangesOf((await calibrateWith(model, runtime, photos(), config, { unobserved })).states);
    const unread = unreadRanges(prepareQuantization(model, config), config);
    // Conv (+ BatchNormalization, folded into it) outputs read by a Relu alone.
    const reluInputs = model.graph!.node.filter((n) => n.op_type === 'Relu').map((n) => n.input[0]);
    expect(reluInputs.filter((t) => unread.has(t)).length).toBeGreaterThan(10);
    const few = await calibrated(recording.runtime, unread);
    const all = await calibrated(ortNodeRuntime(1));
    const requested = recording.outputs.flat();
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((t) => unread.has(t))).toEqual([]);
    expect([...unread].filter((t) => few.has(t))).toEqual([]);
    const completed = withUnreadRanges(few, unread);
    expect(standInsUnread(quantizeModel(model, completed, config).plan.folded, unread)).toBe(true);
    const written = (ranges: Parameters<typeof quantizeModel>[1]) => encode(quantizeModel(model, ranges, config).model);
    expect(Buffer.from(written(completed)).equals(Buffer.from(written(all)))).toBe(true);
  }, 120_000);
});

describe('stand-in ranges stay unread', () => {
  it('holds only where every stand-in tensor is folded by the plan made on the real ranges', () => {
    expect(standInsUnread(new Set(['a', 'b', 'c']), new Set(['a', 'c']))).toBe(true);
    expect(standInsUnread(new Set(['a']), new Set())).toBe(true);
    expect(standInsUnread(new Set(['a', 'b']), new Set(['a', 'x']))).toBe(false);
  });
});
