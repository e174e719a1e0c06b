/**
 * The recovery worker's API: accuracy recovery in the browser. Given the float model (its bytes stay
 * here), the calibration samples and the preprocessing, it (a) quantizes with the user's recovery steps
 * (core quantizeWithRecovery: CLE, AdaRound / AdaQuant, bias correction) and (b) climbs the reference's
 * best-practice ladder (core climbLadder + ladderMeasures) toward a target on the evaluation samples.
 *
 * Every quantized model made here stays here, keyed by a handle (docs/ARCHITECTURE.md, principle 8): the page shows
 * the numbers and asks for one model's bytes only when the user picks it ("Use this model"). Samples are
 * decoded once per run (the evaluation worker's loadFeeds) and serve calibration, fine-tuning and judging
 * alike; onnxruntime-web runs the models (WASM) and the optimizers' matrix products (the Gram product of each
 * step and the float64 products that build each layer's problem); the rest of the optimizers is TypeScript, see
 * bench/README.md. Progress goes to one callback (a Comlink.proxy on the page); `cancel` stops the run
 * within one inference or one optimizer step. A cancelled ladder keeps the rungs it measured.
 *
 * Plain object like evaluationApi: tests build it with a Node runtime and a fake decoder, and
 * recovery.worker.ts only wires the browser's runtime and image decoder to it. It composes recoveryRun.ts (one
 * recovery), ladderClimb.ts (the climb) and ladderRunReport.ts (a climb's report) over the held state of
 * recoveryContext.ts and the run data of recoveryData.ts.
 */
import { encode, openModel } from '../../src/core/onnx/index.ts';
import { ComparisonError } from '../../src/core/evaluate/compareModels.ts';
import { configToJSON } from '../../src/core/quantize/config.ts';
import type { Report, ReportFile } from '../../src/core/report/index.ts';
import { recordBackend } from '../runtime/recordBackend.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import type {
  LadderOutcome,
  LadderRequest,
  PickedModel,
  RecoveryModel,
  RecoveryOpenOptions,
  RecoveryOutcome,
  RecoveryRequest,
  RecoveryWorkerProgressCallback,
} from './recoveryTypes.ts';
import { createRecoveryContext, type RecoveryApiDeps } from './recoveryContext.ts';
import { runRecovery } from './recoveryRun.ts';
import { climbRecoveryLadder } from './ladderClimb.ts';
import { ladderRunReport } from './ladderRunReport.ts';

/**
 * Why fine-tuning runs on WASM whatever the runtime switch says: it quantizes and runs the quantized model at every
 * step, and quantized models run on the CPU (WebGPU has no QuantizeLinear kernel and computed int8
 * DequantizeLinear wrongly, docs/NOTES.md); its quantized sessions add that reason themselves.
 */
const ON_WASM = 'fine-tuning quantizes and runs the quantized model at every step';

export { NoRecoveryDataError, RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
export type * from './recoveryTypes.ts';
export { recipeLabel } from './rungSummary.ts';
export type { RecoveryApiDeps } from './recoveryContext.ts';

export function createRecoveryApi(deps: RecoveryApiDeps) {
  const ctx = createRecoveryContext(deps);
  const { models, rungs, ladders } = ctx;

  return {
    /** Decodes the float model; its bytes stay here. ComparisonError for a model that is already quantized. */
    async open(bytes: ArrayBuffer, options: RecoveryOpenOptions): Promise<RecoveryModel> {
      const data = new Uint8Array(bytes);
      const external = await readExternalFiles(options.externalFiles);
      const { model, index, summary } = openModel(data, { fileName: options.fileName, externalData: external });
      if (summary.quantization.state !== 'float')
        throw new ComparisonError(`"${options.fileName}" is already quantized: recovery starts from the float model.`);
      const file: ReportFile = { name: options.fileName, sha256: await sha256Hex(data), bytes: data.byteLength };
      const handle = models.add({
        model,
        index,
        inputs: summary.inputs,
        file,
        runtime: recordBackend(deps.runtime('wasm', options.threads, ON_WASM), ON_WASM),
        active: new Set(),
        kept: { rungs: [], ladders: [] },
      });
      return { handle, inputs: summary.inputs, file };
    },

    /**
     * Quantizes with the configuration's recovery steps and judges the result on the evaluation samples.
     * Named errors: NoRecoveryDataError, NoUsableSamplesError, RecoveryCancelledError, RecoveryError,
     * ConfigError and what the quantizer throws.
     */
    async recover(
      handle: string,
      request: RecoveryRequest,
      onProgress?: RecoveryWorkerProgressCallback,
    ): Promise<RecoveryOutcome> {
      return runRecovery(ctx, handle, request, onProgress);
    },

    /**
     * Climbs the ladder until a rung meets the target (core climbLadder with ladderClimbOptions, as qstudio ladder).
     * Progress says the rung, its phase and layer, and each rung's numbers as it ends. A cancel ends the
     * climb with what was measured (stopped: 'cancelled'); a bad target is LadderTargetError.
     */
    async ladder(
      handle: string,
      request: LadderRequest,
      onProgress?: RecoveryWorkerProgressCallback,
    ): Promise<LadderOutcome> {
      return climbRecoveryLadder(ctx, handle, request, onProgress);
    },

    /** The bytes of a measured model (the page makes it the run's result), with its report and configuration. */
    pick(rungHandle: string): PickedModel {
      const r = rungs.get(rungHandle);
      const bytes = encode(r.model);
      const copy = new Uint8Array(bytes).buffer as ArrayBuffer;
      return {
        bytes: copy,
        report: r.report,
        config: configToJSON(r.config),
        label: r.label,
        preset: r.preset,
        seconds: r.seconds,
      };
    },

    /**
     * The report of a climb (core buildReport, with its ladder section), for the rung the user picked
     * (default: the chosen one): that rung's model, configuration and output metrics.
     */
    async ladderReport(ladderHandle: string, picked?: number): Promise<Report> {
      return ladderRunReport(ctx, ladderHandle, picked);
    },

    /** Forgets measured models the page no longer lists (a new run replaces the old ones). */
    forget(rungHandles: readonly string[], ladderHandle?: string): void {
      for (const id of rungHandles) rungs.delete(id);
      if (ladderHandle) ladders.delete(ladderHandle);
    },

    /** Asks the running recovery or climb of `handle` to stop within one inference or optimizer step. */
    cancel(handle: string): void {
      if (models.has(handle)) for (const s of models.get(handle).active) s.aborted = true;
    },

    close(handle: string): void {
      const h = models.has(handle) ? models.get(handle) : undefined;
      void h?.dense?.then((d) => d?.release());
      models.delete(handle);
    },
  };
}

export type RecoveryApi = ReturnType<typeof createRecoveryApi>;
