/**
 * Things that stay inside a worker (decoded models, later sessions and histograms), kept by an opaque
 * string id. The page holds only the id: big buffers never cross back (docs/ARCHITECTURE.md, principle 8).
 *
 * A table knows nothing of what it stores; freeing memory is dropping the entry.
 */
import { StudioError } from '../../src/core/onnx/errors.ts';

/** Thrown when an id is not (or no longer) in the table: the page used a closed or foreign handle. */
export class UnknownHandleError extends StudioError {
  override readonly name = 'UnknownHandleError';
}

export class HandleTable<T> {
  private readonly items = new Map<string, T>();
  private next = 1;

  /** `prefix` names the kind of thing in ids (`model-3`), which helps when reading logs. */
  constructor(private readonly prefix: string) {}

  /** Stores a value and returns its new id. */
  add(value: T): string {
    const id = `${this.prefix}-${this.next++}`;
    this.items.set(id, value);
    return id;
  }

  /** The value of an id; throws UnknownHandleError when there is none. */
  get(id: string): T {
    const value = this.items.get(id);
    if (value === undefined) throw new UnknownHandleError(`no ${this.prefix} with handle "${id}" (was it closed?)`);
    return value;
  }

  /**
   * Stores a value under an id the caller chose (the page names a model it opened itself before the worker has
   * it); throws when the id is taken.
   */
  put(id: string, value: T): string {
    if (this.items.has(id)) throw new Error(`${this.prefix} handle "${id}" is taken`);
    this.items.set(id, value);
    return id;
  }

  has(id: string): boolean {
    return this.items.has(id);
  }

  /** Forgets an id; true when it was there. */
  delete(id: string): boolean {
    return this.items.delete(id);
  }

  /** How many values are held. */
  get size(): number {
    return this.items.size;
  }
}
