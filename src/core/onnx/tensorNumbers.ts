/**
 * A graph's tensor names numbered once (graphIndex.ts): one Map from name to number per model, and everything keyed
 * by tensor (producer, consumers) kept in flat number arrays indexed by that number instead of Maps of strings and
 * per-tensor arrays; a 67,000-node QDQ graph has about 150,000 tensors. `NumberedTensorMap` reads those arrays back
 * through the ReadonlyMap the rest of the studio looks tensors up by name in, without building a Map or an array per
 * tensor: a value is made only when asked for.
 */

/** A ReadonlyMap by tensor name over values kept by tensor number. */
export class NumberedTensorMap<V> implements ReadonlyMap<string, V> {
  constructor(
    private readonly numbers: ReadonlyMap<string, number>,
    private readonly names: readonly string[],
    /** The value of tensor number `k`, or undefined where the map has no entry for it. */
    private readonly valueOf: (k: number) => V | undefined,
    /** The tensor numbers the map holds, in its iteration order. */
    private readonly order: () => Iterable<number>,
  ) {}

  get(name: string): V | undefined {
    const k = this.numbers.get(name);
    return k === undefined ? undefined : this.valueOf(k);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const k of this.order()) if (this.valueOf(k) !== undefined) n++;
    return n;
  }

  private list(): [string, V][] {
    const out: [string, V][] = [];
    for (const k of this.order()) {
      const v = this.valueOf(k);
      if (v !== undefined) out.push([this.names[k], v]);
    }
    return out;
  }

  entries() {
    return this.list().values();
  }

  keys() {
    return this.list()
      .map(([name]) => name)
      .values();
  }

  values() {
    return this.list()
      .map(([, v]) => v)
      .values();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [name, v] of this.list()) callback.call(thisArg, v, name, this);
  }

  [Symbol.iterator]() {
    return this.entries();
  }
}
