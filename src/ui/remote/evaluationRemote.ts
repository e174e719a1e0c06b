/**
 * The evaluation worker as the store sees it: an EvaluationService. The worker gets its own copy of
 * the open model's bytes from the model worker (transferred through here, never kept) and keeps it
 * for every evaluation and search of that model; the quantized model goes to it as the Blob the page
 * already holds (a Blob crosses without copying its bytes).
 *
 * The worker is disposable, as calibration workers are: a new model ends it (onnxruntime frees its
 * memory only then), and a cancel that the worker does not honour within a few seconds (stuck in one
 * long inference) ends it too, so the page is never left waiting.
 */
import { proxy } from 'comlink';
import { EvaluationCancelledError } from '../../core/evaluate/errors.ts';
import type {
  EvaluationApi,
  EvaluationProgress,
  TensorHistogramRequest,
  TensorHistograms,
} from '../../../workers/evaluation/evaluationApi.ts';
import type { EvaluationService } from '../store/evaluationSlice.ts';
import { createModelWorker, openModelWorker, type OpenWorker as ModelOpenWorker } from './modelWorker.ts';

/** How long a cancelled run may take to notice before its worker is ended. */
const CANCEL_GRACE_MS = 3000;

/** The evaluation worker of one model: its connection and its handle of the model, once decoded. */
export type OpenWorker = ModelOpenWorker<EvaluationApi>;

/** Starts an evaluation worker for the model the model worker holds under `modelHandle`. */
export type OpenEvaluationWorker = (modelHandle: string) => OpenWorker;

function openWorker(modelHandle: string): OpenWorker {
  return openModelWorker<EvaluationApi>(
    () =>
      new Worker(new URL('../../../workers/evaluation/evaluation.worker.ts', import.meta.url), {
        type: 'module',
        name: 'evaluation',
      }),
    'evaluation worker',
    modelHandle,
  );
}

/** The service, plus the node inspector's histograms (quick, not an evaluation: no progress, no cancel). */
export interface EvaluationRemote extends EvaluationService {
  /** Float histograms of `request.tensors` on the first few samples, from the worker of `modelHandle`. */
  tensorHistograms(modelHandle: string, request: TensorHistogramRequest): Promise<TensorHistograms>;
}

export function createEvaluationRemote(
  open: OpenEvaluationWorker = openWorker,
  cancelGraceMs = CANCEL_GRACE_MS,
): EvaluationRemote {
  const { workerFor, run, cancel, release } = createModelWorker<EvaluationApi>({
    open,
    cancelled: () => new EvaluationCancelledError('The evaluation worker was ended.'),
    cancelGraceMs,
    releaseOnFailureIf: 'run',
  });

  return {
    evaluate(modelHandle, request, onProgress) {
      return run(modelHandle, (api, handle) =>
        api.evaluate(
          handle,
          request,
          proxy((p: EvaluationProgress) => onProgress(p)),
        ),
      );
    },

    async judgeTask(modelHandle, head) {
      // Not through `run`: a quick re-reading of kept outputs, it must neither take over nor end a run's cancel.
      const w = workerFor(modelHandle);
      const handle = await w.handle;
      return w.connection.call((api) => api.judgeTask(handle, head));
    },

    parity(modelHandle, request, onProgress) {
      return run(modelHandle, (api, handle) =>
        api.parity(
          handle,
          request,
          proxy((p: EvaluationProgress) => onProgress(p)),
        ),
      );
    },

    suggest(modelHandle, request, onProgress) {
      return run(modelHandle, (api, handle) =>
        api.suggest(
          handle,
          request,
          proxy((p: EvaluationProgress) => onProgress(p)),
        ),
      );
    },

    async tensorHistograms(modelHandle, request) {
      // Not through `run`: it must neither take over nor end the evaluation's cancel.
      const w = workerFor(modelHandle);
      const handle = await w.handle;
      return w.connection.call((api) => api.tensorHistograms(handle, request));
    },

    cancel,
    release,
  };
}

export const evaluationRemote = createEvaluationRemote();
