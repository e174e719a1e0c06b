/**
 * The end of a worker run's progress callback: the page passes it as a Comlink.proxy, which holds a port open on
 * both sides until released. Every worker entry releases it when the run it was passed to ends, resolved or not.
 */
import { releaseProxy, type Remote } from 'comlink';

/** Releases `onProgress` when it is a Comlink proxy (nothing when the caller passed none). */
export function releaseProgress(onProgress: unknown): void {
  (onProgress as Remote<() => void> | undefined)?.[releaseProxy]?.();
}

/** Runs `run`, then releases `onProgress` whatever the outcome. */
export async function releasingProgress<T>(onProgress: unknown, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    releaseProgress(onProgress);
  }
}
