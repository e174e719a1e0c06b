/**
 * The recovery worker as the store sees it: a RecoveryService. The worker gets its own copy of the open
 * model's bytes from the model worker (transferred through here, never kept) and keeps every model it
 * measures by handle; only a picked model's bytes come back. Like the evaluation worker it is disposable:
 * a new model ends it, and so does a cancel of a single run it does not honour within a grace period (a long
 * optimizer step), so the page is never left waiting. A cancelled climb never ends it: its measured rungs live there. Runs and picks go one at a time through one connection.
 */
import { proxy } from 'comlink';
import { RecoveryCancelledError } from '../../core/recovery/errors.ts';
import type { RecoveryApi, RecoveryWorkerProgress } from '../../../workers/recovery/recoveryApi.ts';
import type { RecoveryService } from '../store/recoverySlice.ts';
import { createModelWorker, openModelWorker, type OpenWorker } from './modelWorker.ts';

/** How long a cancelled run may take to notice before its worker is ended. */
const CANCEL_GRACE_MS = 10_000;

function openWorker(modelHandle: string): OpenWorker<RecoveryApi> {
  return openModelWorker<RecoveryApi>(
    () =>
      new Worker(new URL('../../../workers/recovery/recovery.worker.ts', import.meta.url), {
        type: 'module',
        name: 'recovery',
      }),
    'recovery worker',
    modelHandle,
  );
}

/** The store's progress callback, as the worker calls it back (a comlink proxy). */
const progressPort = (onProgress: (p: RecoveryWorkerProgress) => void) =>
  proxy((p: RecoveryWorkerProgress) => onProgress(p));

export function createRecoveryRemote(): RecoveryService {
  const {
    run: call,
    cancel,
    release,
  } = createModelWorker<RecoveryApi>({
    open: openWorker,
    cancelled: () => new RecoveryCancelledError('The recovery worker was ended.'),
    cancelGraceMs: CANCEL_GRACE_MS,
    releaseOnFailureIf: 'worker',
  });

  return {
    recover(modelHandle, request, onProgress) {
      return call(modelHandle, (api, h) => api.recover(h, request, progressPort(onProgress)), true);
    },
    ladder(modelHandle, request, onProgress) {
      // Soft: a cancelled climb ends by itself within a step and keeps its measured rungs in this worker; ending the
      // worker would lose them ("Use this model" and the report after a Cancel).
      return call(modelHandle, (api, h) => api.ladder(h, request, progressPort(onProgress)), 'soft');
    },
    pick(modelHandle, rungHandle) {
      return call(modelHandle, (api) => api.pick(rungHandle), false);
    },
    ladderReport(modelHandle, ladderHandle, index) {
      return call(modelHandle, (api) => api.ladderReport(ladderHandle, index), false);
    },
    cancel,
    release,
  };
}

export const recoveryRemote = createRecoveryRemote();
