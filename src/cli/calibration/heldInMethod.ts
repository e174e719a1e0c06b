/**
 * `--calibration-method held-in`: the calibration method chosen for this model on its calibration samples alone
 * (core/evaluate/calibrationMethodChoice.ts): even samples calibrate, odd ones judge at onnxruntime's default options
 * ('all', what a user's session computes); the best of MinMax, MinMSE, Entropy and Percentile wins, the
 * configuration's own method keeping a tie. Measured in bench preset-methods: no one method is at least as good as
 * MinMax on every benchmarked model, the per-model choice is.
 */
import type { ModelProto } from '../../core/onnx/model.ts';
import type { CalibrationMethod, QuantConfig } from '../../core/quantize/config.ts';
import {
  chooseCalibrationMethod,
  heldInSplit,
  type MethodChoice,
} from '../../core/evaluate/calibrationMethodChoice.ts';
import { folderFeeds } from '../data/dataFeeds.ts';
import { calibrateOnFeeds } from './calibrateOnImages.ts';
import { nodeRuntime } from '../runtime/ortNode.ts';
import { UsageError } from '../usage.ts';

/** The value of --calibration-method that asks for the choice. */
export const HELD_IN_METHOD = 'held-in';

/** `config` with the method measured best on the calibration folder, and what was measured. */
export async function heldInMethod(
  model: ModelProto,
  calibDir: string | undefined,
  preprocess: string | undefined,
  config: QuantConfig,
  configName: string,
  withMethod: (method: CalibrationMethod) => QuantConfig,
): Promise<{ config: QuantConfig; choice: MethodChoice }> {
  if (!calibDir)
    throw new UsageError(
      `--calibration-method ${HELD_IN_METHOD} needs --calib <dir>: the method is chosen by its measured effect on those samples`,
    );
  const { feeds } = folderFeeds(model, calibDir, preprocess);
  if (feeds.length < 2)
    throw new UsageError(
      `--calibration-method ${HELD_IN_METHOD} needs at least 2 calibration samples (half calibrate, half judge); ${calibDir} has ${feeds.length}`,
    );
  const part = heldInSplit(feeds.length);
  const choice = await chooseCalibrationMethod(model, {
    config,
    withMethod,
    calibrate: async (c) =>
      (
        await calibrateOnFeeds(
          model,
          part.calibrate.map((i) => feeds[i]),
          { config: c },
        )
      ).ranges,
    judge: nodeRuntime(
      part.judge.map((i) => feeds[i]),
      'all',
    ),
    configName,
  });
  return { config: choice.chosen === config.calibrationMethod ? config : withMethod(choice.chosen), choice };
}

/** The choice in one line for the terminal. */
export function heldInText(choice: MethodChoice, samples: string): string {
  const list = choice.measured.map((m) => `${m.method} ${m.cosine.toFixed(5)}`).join(', ');
  return `calibration method chosen on ${samples} (even samples calibrate, odd ones judge, mean output cosine at onnxruntime's default 'all'): ${list} → ${choice.chosen}\n`;
}
