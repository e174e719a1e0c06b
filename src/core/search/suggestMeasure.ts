/**
 * The exclusion search's measurement of one candidate configuration (suggest.ts `evaluate`), as the page's evaluation
 * worker and `qstudio suggest` both take it: quantize with the calibrated ranges, compare layer by layer (the rows rank
 * the next candidates), and read the figure the search aims at: the outputs' mean cosine at the judge's level (as the
 * NPU runs the model, with npuBf16), or a task figure (read at the judge's level too). Each side only adapts its inputs.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import type { Ranges } from '../quantize/plan.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { quantizedNodeIds, type QuantizeReport } from '../quantize/quantizeReport.ts';
import type { OutputSummary } from '../metrics/index.ts';
import { rankLayers, type RankBy } from './candidates.ts';
import {
  compareModels,
  type CompareOptions,
  type Comparison,
  type ComparisonRuntime,
} from '../evaluate/compareModels.ts';
import { compareAsNpu } from '../evaluate/npuFigure.ts';
import { meanOutputCosine, UNREAD_BY_FIGURES } from '../evaluate/outputMetrics.ts';
import { runCollector, type SampleRun } from '../evaluate/sampleRuns.ts';
import type { Measurement } from './suggest.ts';

/** A figure other than the cosine (core/recovery/targetMeasure.ts: top-1, sequence, mAP, mIoU...). */
export interface SuggestFigure {
  /** It reads each sample's outputs (collected for it). */
  readonly readsOutputs: boolean;
  figure(outputs: readonly OutputSummary[], runs: readonly SampleRun[]): number;
}

/** One measured candidate: its configuration, model and comparison. */
export interface SuggestMeasured {
  readonly config: QuantConfig;
  readonly quantized: ModelProto;
  readonly report: QuantizeReport;
  readonly comparison: Comparison;
}

export interface SuggestMeasureSetup {
  readonly model: ModelProto;
  readonly index: GraphIndex;
  readonly ranges: Ranges;
  readonly configName?: string;
  /** Runs the layer-wise comparison; its level is the figure's unless `judge` is given. */
  readonly runtime: ComparisonRuntime;
  /** Judges the outputs alone again at another level (the page aims at 'all' while the layers run at 'basic'). */
  readonly judge?: ComparisonRuntime;
  readonly rankBy?: RankBy;
  /** The cosine as the NPU runs the model (float parts in BF16); the layers rank as written. */
  readonly npuBf16?: boolean;
  /** The target's figure when it is not the cosine. */
  readonly figure?: SuggestFigure;
  /** compareModels' sequence agreement switch (a sequence target asks for it always). */
  readonly sequence?: CompareOptions['sequence'];
  /** Throws when the search was cancelled; called before each measurement. */
  readonly check?: () => void;
  readonly onProgress?: (done: number, total: number) => void;
  /** Each measured candidate (the CLI keeps the last to write). */
  readonly onMeasured?: (m: SuggestMeasured) => void;
}

/** suggestExclusions' `evaluate` for the setup. */
export function suggestMeasure(s: SuggestMeasureSetup): (config: QuantConfig) => Promise<Measurement> {
  return async (config) => {
    s.check?.();
    const { model: quantized, report } = quantizeModel(s.model, s.ranges, config, s.configName);
    const runs = runCollector();
    const comparison = await compareModels(s.model, quantized, s.runtime, {
      layers: true,
      floatIndex: s.index,
      ...(s.sequence ? { sequence: s.sequence } : {}),
      ...(s.figure?.readsOutputs ? { onOutputs: runs.onOutputs } : {}),
      ...(s.onProgress ? { onProgress: s.onProgress } : {}),
    });
    s.onMeasured?.({ config, quantized, report, comparison });
    const judge = s.judge ?? s.runtime;
    const asNpu = s.npuBf16 ? await compareAsNpu(s.model, quantized, judge) : undefined;
    // A figure is read at the aimed level too: the outputs judged again there carry their runs.
    const aimedRuns = runCollector();
    const atAim =
      asNpu?.comparison ??
      (s.judge
        ? await compareModels(s.model, quantized, s.judge, {
            ...UNREAD_BY_FIGURES,
            ...(s.figure?.readsOutputs ? { onOutputs: aimedRuns.onOutputs } : {}),
          })
        : comparison);
    const cosine = meanOutputCosine(atAim.outputs).cosine;
    const layers = rankLayers(comparison.layerwise!.rows, s.index, quantizedNodeIds(report), s.rankBy ?? 'drop');
    if (!s.figure) return { cosine, layers };
    const aimed = s.judge && !asNpu;
    const figure = aimed
      ? s.figure.figure(atAim.outputs, aimedRuns.runs)
      : s.figure.figure(comparison.outputs, runs.runs);
    return { cosine, figure, layers };
  };
}
