/**
 * The page's one session persistence: the studio store, IndexedDB database "quant-studio", and the model
 * worker's byte copies. Started once when the page mounts; what is pending is written when the page hides.
 * `window.__qsSession.flush()` writes what is pending now, so end-to-end specs wait on the write, not on the debounce.
 */
import { modelBytes } from '../remote/modelRemote.ts';
import { useStudio } from '../store/index.ts';
import { openKeyValueStore } from './idb.ts';
import { createSessionPersistence } from './sessionPersistence.ts';

export const pageSession = createSessionPersistence({
  store: useStudio,
  storage: () => openKeyValueStore('quant-studio', 'session'),
  modelBytes,
});

declare global {
  interface Window {
    /** For end-to-end specs: resolves once every pending write of the session has reached IndexedDB. */
    __qsSession?: { flush(): Promise<void> };
  }
}

let started = false;

/** Restores the previous session, then keeps the current one; idempotent (StrictMode mounts twice). */
export function startPageSession(): void {
  if (started) return;
  started = true;
  void pageSession.start();
  addEventListener('pagehide', () => void pageSession.flush());
  window.__qsSession = { flush: () => pageSession.flush() };
}
