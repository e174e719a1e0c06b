/**
 * A Runtime that remembers the backend its last session ran on, for a step that says on the page where it ran
 * (fine-tuning: recoverApi.ts). Such a step runs all its sessions on one backend (recovery forces WASM), so the
 * last session's backend is the step's.
 */
import type { BackendInfo, Runtime } from '../../src/core/runtime/session.ts';

export interface RecordedRuntime extends Runtime {
  /** The backend of the last session made (null before the first). */
  ranOn(): BackendInfo | null;
}

/** `because`: why the step runs where it runs, said as the recorded backend's reason (the sessions keep their own). */
export function recordBackend(runtime: Runtime, because?: string): RecordedRuntime {
  let last: BackendInfo | null = null;
  return {
    async createSession(model, purpose, plan) {
      const made = await runtime.createSession(model, purpose, plan);
      last = because ? { ...made.backend, chosenBecause: because } : made.backend;
      return made;
    },
    ...(runtime.packsOutputs ? { packsOutputs: () => runtime.packsOutputs!() } : {}),
    ranOn: () => last,
  };
}
