/**
 * Calibration workers as the store sees them: a CalibrationService. Each worker gets its own copy of
 * the open model's bytes from the model worker (transferred through here, never kept), decodes it,
 * and runs its share of the samples. With many samples and cores to spare, the samples are split over
 * up to two workers whose collector states are merged (the merges are associative, so the split
 * changes nothing); otherwise one worker does everything. A sequential calibration is split round by
 * round (core SequentialRound): every worker runs a round on its share, the round's states are merged and
 * the ranges fixed, and only then does the next round start, on every worker with the same ranges; so it
 * too gives what one worker gives. ConsumerMSE runs on one worker: its search needs the whole run's histograms and
 * first samples in one place; so does the held-in choice of the calibration method (it judges on its own samples).
 *
 * Workers are disposable: a new model ends them (onnxruntime frees its memory only then), a model of a
 * gigabyte or more ends them after each run (RELEASE_AFTER_RUN_BYTES), and a cancel that a worker does not
 * honour within a few seconds (stuck in one long run) ends it too.
 */
import { proxy, transfer } from 'comlink';
import { CalibrationCancelledError, NoUsableSamplesError } from '../../core/calibrate/errors.ts';
import { activationMethodName } from '../../core/calibrate/collectors/methodFromConfig.ts';
import type {
  CalibrationApi,
  CalibrationProgress,
  CalibrationRequest,
  CalibrationResult,
} from '../../../workers/calibration/calibrationApi.ts';
import type { CalibrationService } from '../store/calibrationSlice.ts';
import { modelBytes } from './modelRemote.ts';
import { WorkerConnection } from './workerConnection.ts';
import { SESSION_EXTERNAL_FROM_BYTES } from '../../core/onnx/sessionExternal.ts';
import { stateBuffers } from '../../core/calibrate/run/statistics.ts';
import { needsWholeRun } from '../../core/calibrate/run/statisticsFile.ts';
import type { BackendPreference } from '../../core/runtime/session.ts';

/** Samples below which a second worker costs more (a second session, a second model copy) than it saves. */
const SAMPLES_FOR_TWO_WORKERS = 8;
const MAX_WORKERS = 2;
/** Models above this size calibrate in one worker: each worker holds its own copy and session. */
const LARGE_MODEL_BYTES = 200 * 1000 * 1000;
/**
 * Models of this size or more (those whose sessions take external data) do not keep their calibration worker
 * after a run: its copy of the weights and its WebAssembly heap (about twice the model) would stay beside the
 * evaluation worker's; a re-calibration reads the data file again instead.
 */
export const RELEASE_AFTER_RUN_BYTES = SESSION_EXTERNAL_FROM_BYTES;
const MAX_THREADS = 4;
/** Errors about the data or the settings, after which the workers and their sessions are still good. */
const KEEPS_WORKERS = new Set([
  'CalibrationCancelledError',
  'NoCalibrationDataError',
  'NoUsableSamplesError',
  'NotAnImageModelError',
  'PreprocessError',
  'ConfigError',
]);
/** How long a cancelled run may take to notice before its workers are ended. */
const CANCEL_GRACE_MS = 3000;

/**
 * Workers for a run, and WASM threads for each: two workers when there are enough samples and two
 * cores, each with its share of the cores as threads. Measured on a 2-core machine (yolox-nano, 24
 * COCO images, warm): two single-threaded workers calibrated 3.1 images/s (MinMax) and 2.0 (XINT8),
 * one worker with two threads 1.9 and 1.4, one with one thread 2.3 and 1.3: folding the outputs is
 * single-threaded JavaScript, and a second worker overlaps it with the other's inference.
 */
export function calibrationPlan(
  samples: number,
  cores: number,
  modelBytes: number,
): { workers: number; threads: number } {
  const workers =
    samples >= SAMPLES_FOR_TWO_WORKERS && modelBytes <= LARGE_MODEL_BYTES
      ? Math.max(1, Math.min(MAX_WORKERS, cores))
      : 1;
  return { workers, threads: Math.max(1, Math.min(MAX_THREADS, Math.floor(cores / workers))) };
}

/** The progress of several workers as one. */
export function combineProgress(
  parts: readonly (CalibrationProgress | undefined)[],
  total: number,
): CalibrationProgress {
  const known = parts.filter((p): p is CalibrationProgress => p !== undefined);
  const done = known.reduce((n, p) => n + p.done, 0);
  const imagesPerSecond = known.reduce((n, p) => n + p.imagesPerSecond, 0);
  return {
    done,
    total,
    imagesPerSecond,
    etaSeconds: imagesPerSecond > 0 ? (total - done) / imagesPerSecond : null,
    skipped: known.flatMap((p) => p.skipped),
    pass: known.length > 0 ? Math.min(...known.map((p) => p.pass)) : 1,
    passes: Math.max(1, ...known.map((p) => p.passes)),
    backend: known[0]?.backend ?? null,
    workers: parts.length,
  };
}

/** Skipped files back in the order the user gave them (workers report their own shares). */
function inGivenOrder<T extends { file: string }>(skipped: T[], samples: readonly { name: string }[]): T[] {
  const order = new Map(samples.map((s, i) => [s.name, i] as const));
  return skipped.slice().sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0));
}

/** One calibration worker of the pool: its connection and its handle of the model. */
export interface PoolWorker {
  connection: Pick<WorkerConnection<CalibrationApi>, 'call' | 'close'>;
  /** The worker's handle of the model, once its copy is decoded. */
  handle: Promise<string>;
}

/** Starts calibration worker `index` for the model the model worker holds under `modelHandle`. */
export type SpawnWorker = (
  modelHandle: string,
  index: number,
  threads: number,
  backend: BackendPreference,
) => PoolWorker;

function createWorker(modelHandle: string, index: number, threads: number, backend: BackendPreference): PoolWorker {
  const connection = new WorkerConnection<CalibrationApi>(
    () =>
      new Worker(new URL('../../../workers/calibration/calibration.worker.ts', import.meta.url), {
        type: 'module',
        name: `calibration-${index + 1}`,
      }),
    'calibration worker',
  );
  const handle = (async () => {
    const copy = await modelBytes(modelHandle);
    // The data files are the user's Files: they cross by reference and the worker reads them (workers/runtime/externalFiles.ts).
    const opened = await connection.call((api) =>
      api.open(transfer(copy.bytes, [copy.bytes]), {
        fileName: copy.fileName,
        externalFiles: copy.externalFiles,
        threads,
        backend,
      }),
    );
    return opened.handle;
  })();
  handle.catch(() => undefined); // observed by the run that awaits it
  return { connection, handle };
}

export function createCalibrationPool(
  cores = () => globalThis.navigator?.hardwareConcurrency ?? 1,
  spawn: SpawnWorker = createWorker,
): CalibrationService {
  /** The workers of the open model, made for one plan; a run with another plan replaces them. */
  let pool: { model: string; key: string; workers: PoolWorker[] } | null = null;
  /** Ends the run in progress (the newest); `pending` ends every run still waiting on the workers. */
  let stop: ((e: Error) => void) | null = null;
  /** The run in progress: a cancel flips its flag, which a run split in rounds reads before each round. */
  let current: { cancelled: boolean } | null = null;
  const pending = new Set<(e: Error) => void>();

  const release = () => {
    for (const w of pool?.workers ?? []) w.connection.close();
    pool = null;
    for (const end of pending) end(new CalibrationCancelledError('The calibration workers were ended.'));
    pending.clear();
  };

  function workersFor(
    model: { handle: string; byteLength: number },
    samples: number,
    backend: BackendPreference,
  ): PoolWorker[] {
    const plan = calibrationPlan(samples, cores(), model.byteLength);
    const key = `${model.handle}|${plan.workers}|${plan.threads}|${backend}`;
    if (pool?.key !== key) {
      release();
      pool = {
        model: model.handle,
        key,
        workers: Array.from({ length: plan.workers }, (_, i) => spawn(model.handle, i, plan.threads, backend)),
      };
    }
    return pool.workers;
  }

  async function runOn(
    workers: PoolWorker[],
    request: CalibrationRequest,
    onProgress: (p: CalibrationProgress) => void,
    cancelled: () => boolean,
  ): Promise<CalibrationResult> {
    const start = performance.now();
    // ConsumerMSE searches on the first samples of the whole run with every sample's histogram: one worker runs it
    // (a worker's own search would be another, and merged states fall back to MinMSE; core statisticsFile.ts).
    // The held-in choice splits the samples its own way (even calibrate, odd judge) and judges in the same worker.
    if (workers.length === 1 || needsWholeRun(activationMethodName(request.config)) || request.methodCandidates) {
      const w = workers[0];
      const handle = await w.handle;
      return w.connection.call((api) => api.run(handle, request, proxy(onProgress)));
    }
    // Interleaved shares, so a folder sorted by size or scene still splits evenly.
    const shares = workers.map((_, i) => request.samples.filter((_, k) => k % workers.length === i));
    const progress: (CalibrationProgress | undefined)[] = new Array(workers.length);
    /** Every worker runs the request (or one round of it) on its share. */
    const everywhere = (round?: CalibrationRequest['round']) => {
      if (cancelled()) throw new CalibrationCancelledError('Calibration was cancelled: no ranges were computed.');
      return Promise.all(
        shares.map(async (samples, i) => {
          const w = workers[i];
          const handle = await w.handle;
          const report = proxy((p: CalibrationProgress) => {
            progress[i] = p;
            onProgress(combineProgress(progress, request.samples.length));
          });
          return w.connection.call((api) =>
            api.run(handle, { ...request, samples, returnStates: true, partial: true, round }, report),
          );
        }),
      );
    };
    const first = workers[0];
    /** The ranges of the workers' merged states. */
    const merged = async (results: readonly CalibrationResult[]) => {
      const firstHandle = await first.handle;
      const parts = results.filter((r) => r.used > 0).map((r) => r.states!);
      // The page keeps no state: the bins move to the worker that merges them (11 MB a share for UltraFace's Entropy).
      return first.connection.call((api) => api.merge(firstHandle, transfer(parts, parts.flatMap(stateBuffers))));
    };
    const sequential = request.config.calibrationMethod === 'Sequential';
    const results = await everywhere(sequential ? { index: 0, ranges: null } : undefined);
    const skipped = inGivenOrder(
      results.flatMap((r) => r.skipped),
      request.samples,
    );
    const used = results.reduce((k, r) => k + r.used, 0);
    if (used === 0) {
      throw new NoUsableSamplesError(
        `None of the ${request.samples.length} samples could be used: ${skipped
          .slice(0, 3)
          .map((s) => `${s.file} (${s.reason})`)
          .join('; ')}${skipped.length > 3 ? '; …' : ''}.`,
      );
    }
    let ranges = await merged(results);
    let last = results;
    // Rounds as a worker that could measure the outputs counts them (a worker with no usable sample cannot).
    const rounds = sequential ? Math.max(...results.map((r) => r.rounds ?? 1)) : 1;
    for (let g = 1; g < rounds; g++) {
      last = await everywhere({ index: g, ranges });
      // A round's tensors take the ranges of its merged states; every other tensor keeps its own (core statistics.ts afterRound).
      ranges = { ...ranges, ...(await merged(last)) };
    }
    return {
      ...results[0],
      ranges,
      states: undefined,
      used,
      skipped,
      passes: Math.max(...last.map((r) => r.passes)),
      seconds: (performance.now() - start) / 1000,
      workers: workers.length,
    };
  }

  return {
    async calibrate(model, request, onProgress) {
      if (pool && pool.model !== model.handle) release();
      const workers = workersFor(model, request.samples.length, request.backend ?? 'auto'); // may end older workers, and their runs
      let mine!: (e: Error) => void;
      const stopped = new Promise<never>((_, reject) => (mine = reject));
      stopped.catch(() => undefined);
      stop = mine;
      pending.add(mine);
      const token = { cancelled: false };
      current = token;
      try {
        const result = await Promise.race([runOn(workers, request, onProgress, () => token.cancelled), stopped]);
        if (model.byteLength >= RELEASE_AFTER_RUN_BYTES && stop === mine) {
          pending.delete(mine);
          release();
        }
        return result;
      } catch (e) {
        // A worker that failed to open the model, failed in onnxruntime or died is not reused; one
        // that only refused the data (or was cancelled) keeps its session for the next run.
        if (!KEEPS_WORKERS.has((e as Error)?.name) && stop === mine) release();
        throw e;
      } finally {
        pending.delete(mine);
        if (stop === mine) stop = null;
        if (current === token) current = null;
      }
    },

    cancel() {
      const stopRun = stop;
      if (!stopRun) return;
      if (current) current.cancelled = true;
      for (const w of pool?.workers ?? [])
        w.handle.then((h) => w.connection.call((api) => api.cancel(h))).catch(() => undefined);
      setTimeout(() => {
        if (stop !== stopRun) return; // the run ended by itself
        release();
        stopRun(new CalibrationCancelledError('Calibration was cancelled.'));
      }, CANCEL_GRACE_MS);
    },

    release,
  };
}

export const calibrationRemote = createCalibrationPool();
