/**
 * One disposable worker per open model, shared by the evaluation and recovery remotes: the worker gets
 * its own copy of the model's .onnx bytes from the model worker and the user's data Files, which it reads itself, a new model ends it, and a cancel it does not
 * honour within a grace period ends it too. Only the remotes' own rules (which calls are cancellable,
 * which failures end the worker) differ; they are options here.
 */
import { transfer, type Remote } from 'comlink';
import { modelBytes } from './modelRemote.ts';
import { WorkerConnection } from './workerConnection.ts';

const MAX_THREADS = 4;

/** What a per-model worker's API must offer: open a model (by transferred bytes) and cancel its runs. */
export interface ModelWorkerApi {
  open(
    bytes: ArrayBuffer,
    options: { fileName: string; externalFiles?: Readonly<Record<string, Blob>>; threads?: number },
  ): Promise<{ handle: string }>;
  cancel(handle: string): void;
}

/** The worker of one model: its connection and its handle of the model, once decoded. */
export interface OpenWorker<Api> {
  model: string;
  connection: Pick<WorkerConnection<Api>, 'call' | 'close'>;
  handle: Promise<string>;
}

/** Starts a worker (made by `create`) and opens in it the model the model worker holds under `modelHandle`. */
export function openModelWorker<Api extends ModelWorkerApi>(
  create: () => Worker,
  label: string,
  modelHandle: string,
): OpenWorker<Api> {
  const connection = new WorkerConnection<Api>(create, label);
  const threads = Math.max(1, Math.min(MAX_THREADS, globalThis.navigator?.hardwareConcurrency ?? 1));
  const handle = (async () => {
    const copy = await modelBytes(modelHandle);
    // The data files are the user's Files: they cross by reference and the worker reads them (workers/runtime/externalFiles.ts).
    const opened = await connection.call((api) =>
      (api as unknown as Remote<ModelWorkerApi>).open(transfer(copy.bytes, [copy.bytes]), {
        fileName: copy.fileName,
        externalFiles: copy.externalFiles,
        threads,
      }),
    );
    return opened.handle;
  })();
  handle.catch(() => undefined); // observed by the run that awaits it
  return { model: modelHandle, connection, handle };
}

export interface ModelWorkerOptions<Api> {
  open: (modelHandle: string) => OpenWorker<Api>;
  /** The error a run ended by the page rejects with (named as the worker's own cancel). */
  cancelled: () => Error;
  /** How long a cancelled run may take to notice before its worker is ended, in ms. */
  cancelGraceMs: number;
  /**
   * After a WorkerError or RuntimeError, end the worker only if the failed run still owns the cancel
   * ('run') or only if the worker is still the current one ('worker').
   */
  releaseOnFailureIf: 'run' | 'worker';
}

/** The current model's worker, its runs (one cancellable at a time), `cancel` and `release`. */
export function createModelWorker<Api extends ModelWorkerApi>(options: ModelWorkerOptions<Api>) {
  let current: OpenWorker<Api> | null = null;
  /** Ends the cancellable run in progress. */
  let stop: ((e: Error) => void) | null = null;
  /** The run in progress keeps its worker on a cancel (it holds results the page still needs; see `run`). */
  let soft = false;
  /** A run the user cancelled that its worker has not stopped yet (busy in one long step): its worker is no one's. */
  let cancelledRun: ((e: Error) => void) | null = null;

  /** Ends the worker still busy with a cancelled run, and that run with it, so a new run never queues behind it. */
  const endCancelledRun = () => {
    const ended = cancelledRun;
    if (!ended) return;
    cancelledRun = null;
    current?.connection.close();
    current = null;
    ended(options.cancelled());
  };

  const release = () => {
    current?.connection.close();
    current = null;
    stop?.(options.cancelled());
  };

  const workerFor = (modelHandle: string): OpenWorker<Api> => {
    if (current?.model !== modelHandle) {
      release();
      current = options.open(modelHandle);
    }
    return current;
  };

  /**
   * Runs `fn` on the model's worker. `cancellable` true: a cancel asks the worker to stop and ends the worker if it has
   * not within the grace period. 'soft': a cancel only asks; the worker is never ended for it, because the run holds
   * results the page still needs after the cancel (the ladder's measured rungs: "Use this model", its report).
   */
  async function run<T>(
    modelHandle: string,
    fn: (api: Remote<Api>, handle: string) => Promise<T>,
    cancellable: boolean | 'soft' = true,
  ): Promise<T> {
    endCancelledRun();
    const w = workerFor(modelHandle);
    let mine!: (e: Error) => void;
    const stopped = new Promise<never>((_, reject) => (mine = reject));
    stopped.catch(() => undefined);
    if (cancellable) {
      stop = mine;
      soft = cancellable === 'soft';
    }
    try {
      const handle = await Promise.race([w.handle, stopped]);
      return await Promise.race([w.connection.call((api) => fn(api, handle)), stopped]);
    } catch (e) {
      // A worker that failed to open the model or died is not reused; one that refused the data keeps its session.
      const name = (e as Error)?.name;
      const owner = options.releaseOnFailureIf === 'run' ? stop === mine : current === w;
      if ((name === 'WorkerError' || name === 'RuntimeError') && owner) release();
      throw e;
    } finally {
      if (stop === mine) stop = null;
      if (cancelledRun === mine) cancelledRun = null;
    }
  }

  const cancel = () => {
    const stopRun = stop;
    const w = current;
    if (!stopRun || !w) return;
    w.handle
      .then((h) => w.connection.call((api) => (api as unknown as Remote<ModelWorkerApi>).cancel(h)))
      .catch(() => undefined);
    if (soft) return;
    cancelledRun = stopRun;
    setTimeout(() => {
      if (cancelledRun === stopRun) endCancelledRun(); // else it ended by itself, or a new run ended it
    }, options.cancelGraceMs);
  };

  return { workerFor, run, cancel, release };
}
