/**
 * The recovery worker as the store sees it: a RecoveryService. The worker gets its own copy of the open
 * model's bytes from the model worker (transferred through here, never kept) and keeps every model it
 * measures by handle; only a picked model's bytes come back. Like the evaluation worker it is disposable:
 * a new model ends it, and so does a cancel it does not honour within a grace period (a long optimizer
 * step), so the page is never left waiting. Runs and picks go one at a time through one connection.
 */
import { proxy, transfer, type Remote } from 'comlink';
import type { RecoverApi, RecoverProgress } from '../../../workers/recoverApi.ts';
import type { RecoveryService } from '../store/recoverySlice.ts';
import { modelBytes } from './modelRemote.ts';
import { WorkerConnection } from './workerConnection.ts';

/** Ended by the page: same name as the worker's own, so the store treats both alike. */
export class RecoveryCancelledError extends Error {
  override readonly name = 'RecoveryCancelledError';
}

/** How long a cancelled run may take to notice before its worker is ended. */
const CANCEL_GRACE_MS = 10_000;
const MAX_THREADS = 4;

interface OpenWorker {
  model: string;
  connection: WorkerConnection<RecoverApi>;
  handle: Promise<string>;
}

function openWorker(modelHandle: string): OpenWorker {
  const connection = new WorkerConnection<RecoverApi>(
    () => new Worker(new URL('../../../workers/recover.worker.ts', import.meta.url), { type: 'module', name: 'recovery' }),
    'recovery worker',
  );
  const threads = Math.max(1, Math.min(MAX_THREADS, globalThis.navigator?.hardwareConcurrency ?? 1));
  const handle = (async () => {
    const copy = await modelBytes(modelHandle);
    const external = transfer(copy.externalFiles, Object.values(copy.externalFiles));
    const opened = await connection.call((api) => api.open(transfer(copy.bytes, [copy.bytes]), { fileName: copy.fileName, externalFiles: external, threads }));
    return opened.handle;
  })();
  handle.catch(() => undefined);
  return { model: modelHandle, connection, handle };
}

export function createRecoveryRemote(): RecoveryService {
  let current: OpenWorker | null = null;
  let stop: ((e: Error) => void) | null = null;

  const release = () => {
    current?.connection.close();
    current = null;
    stop?.(new RecoveryCancelledError('The recovery worker was ended.'));
  };

  const workerFor = (modelHandle: string): OpenWorker => {
    if (current?.model !== modelHandle) {
      release();
      current = openWorker(modelHandle);
    }
    return current;
  };

  async function call<T>(modelHandle: string, fn: (api: Remote<RecoverApi>, handle: string) => Promise<T>, cancellable: boolean): Promise<T> {
    const w = workerFor(modelHandle);
    let mine!: (e: Error) => void;
    const stopped = new Promise<never>((_, reject) => (mine = reject));
    stopped.catch(() => undefined);
    if (cancellable) stop = mine;
    try {
      const handle = await Promise.race([w.handle, stopped]);
      return await Promise.race([w.connection.call((api) => fn(api, handle)), stopped]);
    } catch (e) {
      const name = (e as Error)?.name;
      if ((name === 'WorkerError' || name === 'RuntimeError') && current === w) release();
      throw e;
    } finally {
      if (stop === mine) stop = null;
    }
  }

  return {
    recover(modelHandle, request, onProgress) {
      return call(modelHandle, (api, h) => api.recover(h, request, proxy((p: RecoverProgress) => onProgress(p))), true);
    },
    ladder(modelHandle, request, onProgress) {
      return call(modelHandle, (api, h) => api.ladder(h, request, proxy((p: RecoverProgress) => onProgress(p))), true);
    },
    pick(modelHandle, rungHandle) {
      return call(modelHandle, (api) => api.pick(rungHandle), false);
    },
    ladderReport(modelHandle, ladderHandle, index) {
      return call(modelHandle, (api) => api.ladderReport(ladderHandle, index), false);
    },
    cancel() {
      const stopRun = stop;
      const w = current;
      if (!stopRun || !w) return;
      w.handle.then((h) => w.connection.call((api) => api.cancel(h))).catch(() => undefined);
      setTimeout(() => {
        if (stop !== stopRun) return;
        release();
      }, CANCEL_GRACE_MS);
    },
    release,
  };
}

export const recoveryRemote = createRecoveryRemote();
