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
import { proxy, transfer, type Remote } from 'comlink';
import type { EvaluationApi, EvaluationProgress, TensorHistogramRequest, TensorHistograms } from '../../../workers/evaluationApi.ts';
import type { EvaluationService } from '../store/evaluationSlice.ts';
import { modelBytes } from './modelRemote.ts';
import { WorkerConnection } from './workerConnection.ts';

/** Ended by the page: the run was cancelled. Same name as the worker's own, so the store treats both alike. */
export class EvaluationCancelledError extends Error {
  override readonly name = 'EvaluationCancelledError';
}

/** How long a cancelled run may take to notice before its worker is ended. */
const CANCEL_GRACE_MS = 3000;
const MAX_THREADS = 4;

/** The evaluation worker of one model: its connection and its handle of the model, once decoded. */
export interface OpenWorker {
  model: string;
  connection: Pick<WorkerConnection<EvaluationApi>, 'call' | 'close'>;
  handle: Promise<string>;
}

/** Starts an evaluation worker for the model the model worker holds under `modelHandle`. */
export type OpenEvaluationWorker = (modelHandle: string) => OpenWorker;

function openWorker(modelHandle: string): OpenWorker {
  const connection = new WorkerConnection<EvaluationApi>(
    () => new Worker(new URL('../../../workers/evaluation.worker.ts', import.meta.url), { type: 'module', name: 'evaluation' }),
    'evaluation worker',
  );
  const threads = Math.max(1, Math.min(MAX_THREADS, globalThis.navigator?.hardwareConcurrency ?? 1));
  const handle = (async () => {
    const copy = await modelBytes(modelHandle);
    const external = transfer(copy.externalFiles, Object.values(copy.externalFiles));
    const opened = await connection.call((api) => api.open(transfer(copy.bytes, [copy.bytes]), { fileName: copy.fileName, externalFiles: external, threads }));
    return opened.handle;
  })();
  handle.catch(() => undefined); // observed by the run that awaits it
  return { model: modelHandle, connection, handle };
}

/** The service, plus the node inspector's histograms (quick, not an evaluation: no progress, no cancel). */
export interface EvaluationRemote extends EvaluationService {
  /** Float histograms of `request.tensors` on the first few samples, from the worker of `modelHandle`. */
  tensorHistograms(modelHandle: string, request: TensorHistogramRequest): Promise<TensorHistograms>;
}

export function createEvaluationRemote(open: OpenEvaluationWorker = openWorker, cancelGraceMs = CANCEL_GRACE_MS): EvaluationRemote {
  let current: OpenWorker | null = null;
  /** Ends the run in progress. */
  let stop: ((e: Error) => void) | null = null;

  const release = () => {
    current?.connection.close();
    current = null;
    stop?.(new EvaluationCancelledError('The evaluation worker was ended.'));
  };

  const workerFor = (modelHandle: string): OpenWorker => {
    if (current?.model !== modelHandle) {
      release();
      current = open(modelHandle);
    }
    return current;
  };

  async function run<T>(modelHandle: string, call: (api: Remote<EvaluationApi>, handle: string) => Promise<T>): Promise<T> {
    const w = workerFor(modelHandle);
    let mine!: (e: Error) => void;
    const stopped = new Promise<never>((_, reject) => (mine = reject));
    stopped.catch(() => undefined);
    stop = mine;
    try {
      const handle = await Promise.race([w.handle, stopped]);
      return await Promise.race([w.connection.call((api) => call(api, handle)), stopped]);
    } catch (e) {
      // A worker that failed to open the model or died is not reused; one that refused the data keeps its session.
      const name = (e as Error)?.name;
      if ((name === 'WorkerError' || name === 'RuntimeError') && stop === mine) release();
      throw e;
    } finally {
      if (stop === mine) stop = null;
    }
  }

  return {
    evaluate(modelHandle, request, onProgress) {
      return run(modelHandle, (api, handle) => api.evaluate(handle, request, proxy((p: EvaluationProgress) => onProgress(p))));
    },

    suggest(modelHandle, request, onProgress) {
      return run(modelHandle, (api, handle) => api.suggest(handle, request, proxy((p: EvaluationProgress) => onProgress(p))));
    },

    async tensorHistograms(modelHandle, request) {
      // Not through `run`: it must neither take over nor end the evaluation's cancel.
      const w = workerFor(modelHandle);
      const handle = await w.handle;
      return w.connection.call((api) => api.tensorHistograms(handle, request));
    },

    cancel() {
      const stopRun = stop;
      const w = current;
      if (!stopRun || !w) return;
      w.handle.then((h) => w.connection.call((api) => api.cancel(h))).catch(() => undefined);
      setTimeout(() => {
        if (stop !== stopRun) return; // the run ended by itself
        release();
      }, cancelGraceMs);
    },

    release,
  };
}

export const evaluationRemote = createEvaluationRemote();
