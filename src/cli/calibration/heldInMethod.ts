/**
 * The calibration method chosen for this model on its calibration samples alone (core/evaluate/calibrationMethodChoice.ts),
 * in Node: one onnxruntime-node pass gathers every candidate's statistics on the even samples, each candidate is
 * judged on the odd ones at onnxruntime's default options ('all', what a user's session computes), and the chosen
 * method's ranges over all samples come from one more pass over the odd ones. A8W8's default
 * (core/quantize/presets.ts HELD_IN_DEFAULT), `--calibration-method held-in` for any preset; the bench measures
 * presets through the same function (bench/cases/presetHeldOut.ts).
 */
import type { ModelProto } from '../../core/onnx/model.ts';
import type { CalibrationMethod, QuantConfig } from '../../core/quantize/config.ts';
import {
  calibrateByHeldInChoice,
  heldInSummary,
  HELD_IN_FIGURE,
  type HeldInCalibration,
  type MethodMeasurement,
} from '../../core/evaluate/calibrationMethodChoice.ts';
import { calibrateOnFeeds } from './calibrateOnImages.ts';
import { nodeRuntime, type Feeds } from '../runtime/ortNode.ts';

/** The method measured best on `feeds` (at least 2), its configuration and its ranges over all of them. */
export async function heldInCalibration(
  model: ModelProto,
  feeds: readonly Feeds[],
  config: QuantConfig,
  configName: string,
  withMethod: (method: CalibrationMethod) => QuantConfig,
  onMeasured?: (m: MethodMeasurement) => void,
): Promise<HeldInCalibration> {
  return calibrateByHeldInChoice(model, {
    config,
    withMethod,
    configName,
    onMeasured,
    samples: feeds.length,
    collect: async (indices, configs) => {
      const result = await calibrateOnFeeds(
        model,
        indices.map((i) => feeds[i]),
        { config: configs[0], alsoFor: configs.slice(1) },
      );
      return [result.states, ...(result.alsoStates ?? [])];
    },
    judge: (indices) =>
      nodeRuntime(
        indices.map((i) => feeds[i]),
        'all',
      ),
  });
}

/** The choice in one line for the terminal: why this method (each one's held-in figure). */
export function heldInText(held: HeldInCalibration, samples: string, seconds: number, what: string): string {
  const c = held.choice;
  return `calibrated on ${c.calibrated + c.judged} ${what}s in ${seconds.toFixed(1)} s, ${held.ranges.size} tensors (the four methods' statistics in one pass)\ncalibration method chosen on ${samples} (${c.calibrated} samples calibrate, ${c.judged} judge; ${HELD_IN_FIGURE}): ${heldInSummary(c)} (${seconds.toFixed(1)} s)\n`;
}
