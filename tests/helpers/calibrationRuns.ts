/**
 * Calibration runs for tests that compare two ways of gathering statistics (in the graph or exposed, derived or
 * exposed, every tensor or the plan's): one calibrator run to its states, and a runtime that records the outputs of
 * every model it loads, so a test can say which tensors were asked of onnxruntime.
 */
import { asSessionModel, decode, type ModelProto } from '../../src/core/onnx/index.ts';
import { ModelCalibrator, type CalibratorOptions, type SampleSource } from '../../src/core/calibrate/run/runner.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';

/** A runtime that records the outputs of every model it is asked to load. */
export function recordingRuntime(runtime: Runtime): { runtime: Runtime; outputs: string[][] } {
  const outputs: string[][] = [];
  return {
    outputs,
    runtime: {
      ...runtime,
      createSession: (bytes, ...rest) => {
        outputs.push(decode(asSessionModel(bytes).bytes).graph!.output.map((v) => v.name ?? ''));
        return runtime.createSession(bytes, ...rest);
      },
    },
  };
}

/** One calibration of `model` on `source` (with `alsoFor`'s statistics from the same runs), its calibrator released. */
export async function calibrateWith(
  model: ModelProto,
  runtime: Runtime,
  source: SampleSource,
  config: QuantConfig,
  options: CalibratorOptions,
  alsoFor: readonly QuantConfig[] = [],
) {
  const calibrator = new ModelCalibrator(model, runtime, undefined, options);
  try {
    return await calibrator.calibrate(
      source,
      config,
      () => false,
      () => undefined,
      undefined,
      alsoFor,
    );
  } finally {
    await calibrator.release();
  }
}
