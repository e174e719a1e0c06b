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
  NO_FIGURE_TEXT,
  type HeldInCalibration,
  type MethodMeasurement,
} from '../../core/evaluate/calibrationMethodChoice.ts';
import { calibrateOnFeeds, type CalibrationProgress } from './calibrateOnImages.ts';
import { nodeRuntime, type Feeds } from '../runtime/ortNode.ts';

/** A held-in calibration with the seconds its statistics passes took (the rest is the candidates' builds and judged runs). */
export interface TimedHeldInCalibration extends HeldInCalibration {
  readonly statisticsSeconds: number;
}

/**
 * One statistics pass's progress as part of one calibration over all `samples`: the judged samples' pass (the one
 * without sample 0) counts on from the first pass's, and its rate is over both passes' seconds (what the summary
 * line's rate reads). No time left is given: the candidates' judgement between the passes is not counted in samples.
 */
export function passProgress(
  samples: number,
  indices: readonly number[],
  secondsBefore: number,
  onProgress: (p: CalibrationProgress) => void,
): (p: CalibrationProgress) => void {
  const first = indices.includes(0);
  const before = first ? 0 : samples - indices.length;
  const start = performance.now() - (first ? 0 : secondsBefore * 1000);
  return (p) => {
    const done = before + p.done;
    const seconds = (performance.now() - start) / 1000;
    onProgress({ ...p, done, total: samples, imagesPerSecond: seconds > 0 ? done / seconds : 0, etaSeconds: null });
  };
}

/** The method measured best on `feeds` (at least 2), its configuration and its ranges over all of them. */
export async function heldInCalibration(
  model: ModelProto,
  feeds: readonly Feeds[],
  config: QuantConfig,
  configName: string,
  withMethod: (method: CalibrationMethod) => QuantConfig,
  onMeasured?: (m: MethodMeasurement) => void,
  planAlone = false,
  onProgress?: (p: CalibrationProgress) => void,
): Promise<TimedHeldInCalibration> {
  let statisticsMs = 0;
  const held = await calibrateByHeldInChoice(model, {
    config,
    withMethod,
    configName,
    onMeasured,
    planAlone,
    samples: feeds.length,
    collect: async (indices, configs, unobserved) => {
      const start = performance.now();
      const result = await calibrateOnFeeds(
        model,
        indices.map((i) => feeds[i]),
        {
          config: configs[0],
          alsoFor: configs.slice(1),
          unobserved,
          onProgress: onProgress && passProgress(feeds.length, indices, statisticsMs / 1000, onProgress),
        },
      );
      statisticsMs += performance.now() - start;
      return [result.states, ...(result.alsoStates ?? [])];
    },
    judge: (indices) =>
      nodeRuntime(
        indices.map((i) => feeds[i]),
        'all',
      ),
  });
  return { ...held, statisticsSeconds: statisticsMs / 1000 };
}

/**
 * The choice in two lines for the terminal: the statistics passes and their time, then why this method (each one's
 * held-in figure) and what the choice itself took (`seconds` is the whole; the candidates' builds and judged runs are
 * the part that is not statistics).
 */
export function heldInText(held: TimedHeldInCalibration, samples: string, seconds: number, what: string): string {
  const c = held.choice;
  const choosing = Math.max(0, seconds - held.statisticsSeconds);
  if (c.noFigure)
    return (
      `calibrated on ${c.calibrated + c.judged} ${what}s in ${held.statisticsSeconds.toFixed(1)} s, ${held.ranges.size} tensors\n` +
      `calibration method: ${c.chosen}, ${NO_FIGURE_TEXT} (${seconds.toFixed(1)} s in all)\n`
    );
  return (
    `calibrated on ${c.calibrated + c.judged} ${what}s in ${held.statisticsSeconds.toFixed(1)} s, ${held.ranges.size} tensors (the ${c.measured.length} methods' statistics in one pass)\n` +
    `calibration method chosen on ${samples} (${c.calibrated} samples calibrate, ${c.judged} judge; ${HELD_IN_FIGURE}): ${heldInSummary(c)} ` +
    `(${choosing.toFixed(1)} s: each candidate quantized and run on the judged samples; ${seconds.toFixed(1)} s in all)\n`
  );
}
