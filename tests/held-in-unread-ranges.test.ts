/**
 * The held-in method choice for one plan observes only the tensors some candidate's plan reads a range of (issue
 * 33.5; core/evaluate/calibrationMethodChoice.ts `planAlone`): on UltraFace with real photos under A8W8, Conv outputs
 * feeding a fused Relu are not asked of onnxruntime, every candidate measures the same held-in cosine, the same
 * method is chosen, and the model written from the chosen ranges is byte for byte the one written with every tensor
 * observed.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode, openModel } from '../src/core/onnx/index.ts';
import type { SampleSource } from '../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import { calibrateByHeldInChoice } from '../src/core/evaluate/calibrationMethodChoice.ts';
import { getPreset, presetWithMethod } from '../src/core/quantize/presets.ts';
import { quantizePrepared } from '../src/core/quantize/quantizeModel.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { nodeRuntime, ortNodeRuntime, ortTensor } from '../src/cli/runtime/ortNode.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { calibrateWith, recordingRuntime } from './helpers/calibrationRuns.ts';
import { readModel } from './helpers/fixtures.ts';

describe('the held-in choice for one plan', () => {
  it('UltraFace A8W8: unread Conv outputs are not requested; same cosines, same choice, same written bytes', async () => {
    const name = 'ultraface-rfb-320.onnx';
    const { model, summary } = openModel(readModel(name));
    const config = getPreset('A8W8');
    const photos = (indices: readonly number[]): SampleSource =>
      sampleSource(
        indices.map((i) => ({ kind: 'image' as const, name: path.basename(PHOTOS[i]), file: PHOTOS[i] })),
        summary.inputs,
        FIXTURE_PREPROCESS[name],
        async (f: string) => decodeImageFile(f),
      );
    const all = PHOTOS.map((_, i) => i);
    const source = photos(all);
    const feeds = await Promise.all(
      all.map(async (i) => {
        const produced = await source.produce(i);
        if (!('feeds' in produced)) throw new Error(produced.skip);
        return Object.fromEntries(Object.entries(produced.feeds).map(([input, t]) => [input, ortTensor(t)]));
      }),
    );
    const choose = async (planAlone: boolean) => {
      const recording = recordingRuntime(ortNodeRuntime(1));
      const held = await calibrateByHeldInChoice(model, {
        config,
        withMethod: (m) => presetWithMethod('A8W8', m),
        configName: 'A8W8',
        samples: feeds.length,
        planAlone,
        collect: async (indices, configs, unobserved) => {
          const out = await calibrateWith(
            model,
            recording.runtime,
            photos(indices),
            configs[0],
            { unobserved },
            configs.slice(1),
          );
          return [out.states, ...(out.alsoStates ?? [])];
        },
        judge: (indices) =>
          nodeRuntime(
            indices.map((i) => feeds[i]),
            'all',
          ),
      });
      return { held, requested: recording.outputs.flat() };
    };
    const few = await choose(true);
    const every = await choose(false);
    const reluInputs = model.graph!.node.filter((n) => n.op_type === 'Relu').map((n) => n.input[0]);
    expect(reluInputs.filter((t) => few.held.unread.has(t)).length).toBeGreaterThan(10);
    expect(every.held.unread.size).toBe(0);
    expect(few.requested.length).toBeGreaterThan(0);
    expect(few.requested.filter((t) => few.held.unread.has(t))).toEqual([]);
    expect(every.requested.filter((t) => few.held.unread.has(t)).length).toBeGreaterThan(10);
    expect(few.held.choice).toEqual(every.held.choice);
    const written = (h: typeof few.held) => encode(quantizePrepared(h.prepared, h.ranges, h.config, 'A8W8').model);
    expect(Buffer.from(written(few.held)).equals(Buffer.from(written(every.held)))).toBe(true);
  }, 240_000);
});
