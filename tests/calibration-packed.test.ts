/**
 * Calibration with its exposed tensors read back as one (core/calibrate/run/packOutputs.ts, what the page does where
 * a session may run on a GPU): on a real detector and a real photo, exactly the ranges and states of the run
 * that reads every tensor on its own, on onnxruntime-node and onnxruntime-web's WASM backend, and under a budget
 * that splits the tensors into chunks. The packed model loads at graph optimization 'basic' and 'all'. And Auto's
 * whole-job probe (ort.ts measuredSession), which runs some samples on one backend and some on the other: ranges as
 * WASM's to float rounding.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openModel, sessionModel } from '../src/core/onnx/index.ts';
import { ModelCalibrator } from '../src/core/calibrate/run/runner.ts';
import { sampleSource } from '../src/core/calibrate/run/samples.ts';
import { observableTensors } from '../src/core/calibrate/run/expose.ts';
import { packOutputs, PACK_FAN_IN, unpackOutputs } from '../src/core/calibrate/run/packOutputs.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import type { Runtime } from '../src/core/runtime/session.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { ortNodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { createWebRuntime, measuredSession } from '../workers/runtime/ort.ts';
import { probeKey, readCosts } from '../workers/runtime/probeCache.ts';
import { rangesOf } from '../src/core/calibrate/run/statistics.ts';
import { asSessionModel } from '../src/core/onnx/externalize.ts';
import * as ort from 'onnxruntime-node';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';

const name = 'ultraface-rfb-320.onnx';
const { model, summary } = openModel(readModel(name));
const source = (n = 2) =>
  sampleSource(
    PHOTOS.slice(0, n).map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })),
    summary.inputs,
    FIXTURE_PREPROCESS[name],
    async (f: string) => decodeImageFile(f),
  );

/** The same runtime, asking calibration to pack (as the web runtime does where a GPU may run the session). */
const packing = (r: Runtime): Runtime => ({
  createSession: (b, p) => r.createSession(b, p),
  packsOutputs: async () => true,
});

async function calibrate(runtime: Runtime, budget?: number, samples = 2) {
  const calibrator = new ModelCalibrator(model, runtime, budget);
  try {
    const outcome = await calibrator.calibrate(
      source(samples),
      getPreset('XINT8'),
      () => false,
      () => undefined,
    );
    return { states: outcome.states, passes: outcome.passes, bytes: outcome.runOutputBytes, backend: outcome.backend };
  } finally {
    await calibrator.release();
  }
}

describe('packed calibration outputs', () => {
  it.each([
    ['onnxruntime-node', () => ortNodeRuntime(1)],
    ['onnxruntime-web (wasm)', () => createWebRuntime('wasm', 1)],
  ] as const)('%s: packed gives exactly the states of one output a tensor, whole and chunked', async (_label, make) => {
    const plain = await calibrate(make());
    const packed = await calibrate(packing(make()));
    expect(packed.bytes).toBe(plain.bytes);
    expect(packed.states).toEqual(plain.states);
    const chunked = await calibrate(packing(make()), Math.ceil(plain.bytes / 2));
    expect(chunked.passes).toBeGreaterThanOrEqual(2);
    expect(chunked.states).toEqual(plain.states);
  });

  it('the packed model has two outputs, Concats of at most PACK_FAN_IN inputs, and loads at basic and all', async () => {
    const tensors = observableTensors(model).filter((t) => t !== 'input');
    const packed = packOutputs(model, tensors);
    expect(packed.model.graph!.output.map((o) => o.name)).toEqual([packed.values, packed.sizes]);
    const concats = packed.model.graph!.node.filter((n) => n.op_type === 'Concat');
    expect(Math.max(...concats.map((n) => n.input.length))).toBeLessThanOrEqual(PACK_FAN_IN);
    expect(model.graph!.output.length).toBe(2); // the original is untouched
    const x = new Float32Array(summary.inputs[0].shape!.reduce<number>((a, d) => a * Number(d), 1)).map((_, i) =>
      Math.sin(i),
    );
    const feed = { [summary.inputs[0].name]: new ort.Tensor('float32', x, summary.inputs[0].shape!.map(Number)) };
    const plain = await ort.InferenceSession.create(
      sessionModel({
        ...model,
        graph: { ...model.graph!, output: tensors.map((name) => ({ name, metadata_props: [] })) },
      }).bytes,
      { graphOptimizationLevel: 'basic' },
    );
    const expected = await plain.run(feed);
    for (const level of ['basic', 'all'] as const) {
      const session = await ort.InferenceSession.create(sessionModel(packed.model).bytes, {
        graphOptimizationLevel: level,
      });
      const out = unpackOutputs(packed, await session.run(feed));
      expect(Object.keys(out).sort()).toEqual([...tensors].sort());
      const bytes = (a: unknown) =>
        Buffer.from((a as Float32Array).buffer, (a as Float32Array).byteOffset, (a as Float32Array).byteLength);
      const differ = tensors.filter((t) => !bytes(out[t].data).equals(bytes(expected[t].data)));
      expect(differ, level).toEqual([]);
      await session.release();
    }
    await plain.release();
  });

  it("Auto (ort.ts measuredSession) on the job's own samples: the calibration's runs reach the runtime, each sample runs once on one backend, ranges as WASM's to float rounding", async () => {
    // WASM is onnxruntime-web's; onnxruntime-node's CPU stands in for the GPU. A prior of one run of start-up and
    // free runs makes Auto start it with 2 runs left; its first run may cost up to two WASM runs before Auto gives up.
    const device = `test-device-${Math.random()}`;
    const cheapStart = { startupRuns: 1, runRatio: 0, measured: true };
    const web = createWebRuntime('wasm', 1);
    const node = ortNodeRuntime(1);
    const plans: (number | undefined)[] = [];
    const keys: string[] = [];
    const auto: Runtime = {
      async createSession(b, p, plan) {
        plans.push(plan?.runs);
        const bytes = asSessionModel(b).bytes;
        keys.push(await probeKey(bytes, device));
        const gpu = async () => {
          const m = await node.createSession(b, p);
          return { runner: m.runner, backend: { ...m.backend, kind: 'webgpu' as const, adapter: 'stand-in' } };
        };
        return measuredSession(
          { wasm: () => web.createSession(b, p), webgpu: gpu },
          bytes,
          device,
          plan?.runs ?? Infinity,
          cheapStart,
        );
      },
      packsOutputs: async () => true,
    };
    const reference = rangesOf((await calibrate(createWebRuntime('wasm', 1), undefined, 4)).states);
    const mixed = await calibrate(auto, undefined, 4);
    expect(plans).toEqual([4]);
    const costs = await readCosts(keys[0]);
    expect(costs).not.toBeNull(); // the stand-in was started and timed: two samples on each
    expect(mixed.backend.chosenBecause).toMatch(
      /finishes sooner here \(WebGPU [\d.]+ m?s a run, WASM [\d.]+ m?s, [01] runs? left; measured on this model\)/,
    ); // two on each, none left; or, where the stand-in's first run alone costs more than its allowance (a loaded
    // machine), Auto drops it after that one run (backendChoice.ts) and one sample is left to WASM
    let largest = 0;
    for (const [t, r] of reference) {
      const o = rangesOf(mixed.states).get(t)!;
      const scale = Math.max(Math.abs(r.min), Math.abs(r.max), 1e-6);
      largest = Math.max(largest, Math.abs(o.min - r.min) / scale, Math.abs(o.max - r.max) / scale);
    }
    expect(largest).toBeLessThan(1e-5);
  });
});
