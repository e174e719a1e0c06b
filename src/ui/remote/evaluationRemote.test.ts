import { describe, expect, it } from 'vitest';
import { encode, decode } from '../../core/onnx/index.ts';
import { getPreset } from '../../core/quantize/presets.ts';
import { getPreprocessPreset } from '../../core/preprocess/presets.ts';
import { quantizeModel } from '../../core/quantize/quantizeModel.ts';
import { readModel } from '../../../tests/helpers/fixtures.ts';
import { createEvaluationApi } from '../../../workers/evaluation/evaluationApi.ts';
import { fakeDecode, fakeImages, nodeWorkerRuntime } from '../../../workers/calibration/testSupport.ts';
import { createEvaluationRemote, type OpenWorker } from './evaluationRemote.ts';

/** The evaluation worker replaced by the evaluation API in this process (onnxruntime-node); records opens and closes. */
function inProcess(options: { stuck?: boolean; stuckOpens?: number } = {}) {
  const log: string[] = [];
  let opens = 0;
  const open = (model: string): OpenWorker => {
    log.push(`open ${model}`);
    const stuck = options.stuck || opens++ < (options.stuckOpens ?? 0);
    const api = createEvaluationApi({ runtime: () => nodeWorkerRuntime(), decodeImage: fakeDecode });
    const handle = api
      .open(new Uint8Array(readModel('mnist.onnx')).buffer as ArrayBuffer, { fileName: 'mnist.onnx' })
      .then((m) => m.handle);
    let live = true;
    return {
      model,
      handle,
      connection: {
        call: (fn) => {
          if (!live) return Promise.reject(Object.assign(new Error('ended'), { name: 'WorkerError' }));
          // A stuck worker never answers (one endless inference): only ending it helps.
          return stuck ? new Promise(() => undefined) : fn(api as unknown as Parameters<typeof fn>[0]);
        },
        close: () => {
          live = false;
          log.push(`close ${model}`);
        },
      },
    };
  };
  return { open, log };
}

const quantized = () => {
  const model = decode(readModel('mnist.onnx'));
  const ranges = new Map([['Input3', { min: 0, max: 1 }]]);
  return new Uint8Array(encode(quantizeModel(model, ranges, getPreset('U8S8')).model)).buffer as ArrayBuffer;
};

const request = () => ({
  quantized: { name: 'q.onnx', data: quantized() },
  samples: fakeImages(2),
  spec: getPreprocessPreset('unit'),
});

describe('evaluation remote (the worker replaced by the evaluation API in this process)', () => {
  it('keeps one worker per model: a second evaluation reuses it, another model ends it', async () => {
    const { open, log } = inProcess();
    const remote = createEvaluationRemote(open);
    const progress: number[] = [];
    const first = await remote.evaluate('model-1', request(), (p) => progress.push(p.done));
    expect(first.used).toBe(2);
    expect(progress.length).toBeGreaterThan(0);
    await remote.evaluate('model-1', request(), () => undefined);
    expect(log).toEqual(['open model-1']);
    await remote.evaluate('model-2', request(), () => undefined);
    expect(log).toEqual(['open model-1', 'close model-1', 'open model-2']);
    remote.release();
    expect(log.at(-1)).toBe('close model-2');
  });

  it('a worker that does not honour a cancel is ended after the grace time, and the run rejects as cancelled', async () => {
    const { open, log } = inProcess({ stuck: true });
    const remote = createEvaluationRemote(open, 20);
    const run = remote.evaluate('model-1', request(), () => undefined);
    await new Promise((r) => setTimeout(r, 10));
    remote.cancel();
    const e = await run.then(
      () => null,
      (x: Error) => x,
    );
    expect(e?.name).toBe('EvaluationCancelledError');
    expect(log).toEqual(['open model-1', 'close model-1']);
  });
  it('a run started while a cancelled one still holds its worker gets a fresh worker at once, not a place in its queue', async () => {
    const { open, log } = inProcess({ stuckOpens: 1 });
    const remote = createEvaluationRemote(open, 60_000);
    const first = remote
      .evaluate('model-1', request(), () => undefined)
      .then(
        () => null,
        (x: Error) => x,
      );
    await new Promise((r) => setTimeout(r, 10));
    remote.cancel();
    const second = await remote.evaluate('model-1', request(), () => undefined);
    expect(second.used).toBe(2);
    expect((await first)?.name).toBe('EvaluationCancelledError');
    expect(log).toEqual(['open model-1', 'close model-1', 'open model-1']);
  });

  it("histograms for the inspector use the same worker, and do not take over an evaluation's cancel", async () => {
    const { open, log } = inProcess();
    const remote = createEvaluationRemote(open);
    const found = await remote.tensorHistograms('model-1', {
      tensors: { Input3: [0, 1] },
      samples: fakeImages(3),
      spec: getPreprocessPreset('unit'),
      maxSamples: 2,
    });
    expect(found.used).toBe(2);
    expect(found.histograms.Input3.counts.reduce((a, b) => a + b, 0)).toBe(2 * 28 * 28);
    remote.cancel(); // nothing running: a histogram is not an evaluation
    await remote.evaluate('model-1', request(), () => undefined);
    expect(log).toEqual(['open model-1']);
  });
});
