/**
 * A comlink connection to one module worker that notices when the worker dies.
 *
 * comlink has no idea of a crashed worker: a call to a worker whose script failed to load, or that
 * threw outside a call, would wait forever. Every call here is raced against the worker's `error`
 * event, which rejects it with a WorkerError; the dead worker is then dropped and the next call starts
 * a fresh one. The worker is created on first use (or by `warm`, once the page is idle), so the empty
 * state paints without waiting for worker code.
 */
import { StudioError } from '../../core/onnx/errors.ts';
import { wrap, releaseProxy, type Remote } from 'comlink';

/** The worker itself failed (script not loaded, out of memory, uncaught error): not the user's file. */
export class WorkerError extends StudioError {
  override readonly name = 'WorkerError';
}

interface Live<T> {
  worker: Worker;
  remote: Remote<T>;
  died: Promise<never>;
}

export class WorkerConnection<T> {
  private live: Live<T> | null = null;
  private closed = false;

  /** `create` makes the worker (new Worker(new URL(...), { type: 'module' }) so the bundler sees it). */
  constructor(
    private readonly create: () => Worker,
    private readonly label: string,
  ) {}

  private connect(): Live<T> {
    if (this.live) return this.live;
    const worker = this.create();
    const died = new Promise<never>((_, reject) => {
      worker.addEventListener('error', (event) => {
        event.preventDefault();
        reject(
          new WorkerError(
            `The ${this.label} stopped: ${event.message || 'its script failed to load or crashed'}. Try again; reload the page if it keeps happening.`,
          ),
        );
        if (this.live?.worker === worker) this.dispose();
      });
    });
    died.catch(() => undefined); // observed per call below
    this.live = { worker, remote: wrap<T>(worker), died };
    return this.live;
  }

  /** Starts the worker now (its script loads and evaluates) so the first call does not wait for it. */
  warm(): void {
    if (!this.closed) this.connect();
  }

  /** Runs one call on the worker; rejects with the worker's own (named) error or a WorkerError. */
  call<R>(fn: (remote: Remote<T>) => Promise<R>): Promise<R> {
    if (this.closed) return Promise.reject(new WorkerError(`The ${this.label} was ended.`));
    const { remote, died } = this.connect();
    return Promise.race([fn(remote), died]);
  }

  /** Terminates the worker for good: later calls reject instead of starting a new one (disposable workers). */
  close(): void {
    this.closed = true;
    this.dispose();
  }

  /** Terminates the worker (everything it held is gone); the next call starts a new one. */
  dispose(): void {
    if (!this.live) return;
    this.live.remote[releaseProxy]();
    this.live.worker.terminate();
    this.live = null;
  }
}
