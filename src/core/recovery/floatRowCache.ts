/**
 * Float layer rows kept between fine-tuning runs on the same model and samples. The float model's layer inputs
 * depend on the graph (and CLE, SmoothQuant) only, not on the format, the weights' settings or the algorithm, so the ladder's
 * rungs (XINT8, A8W8, A16W8, each with AdaRound and AdaQuant) can share one gathering. Bounded by bytes: once
 * full, further rows are simply not kept (and are gathered again when needed). One cache belongs to one source
 * model and one set of samples; the key given with each entry names the rest (CLE and SmoothQuant settings, positions, seed).
 */
import type { SideRows } from './layerData.ts';

export class FloatRowCache {
  private readonly entries = new Map<string, SideRows>();
  private bytes = 0;
  private refusedCount = 0;

  /** `budgetBytes`: most bytes of rows kept (default 256 MiB). */
  constructor(readonly budgetBytes = 256 * 2 ** 20) {}

  get(key: string, layerId: string): SideRows | undefined {
    return this.entries.get(`${key}\u0000${layerId}`);
  }

  set(key: string, layerId: string, rows: SideRows): void {
    const k = `${key}\u0000${layerId}`;
    if (this.entries.has(k)) return;
    if (this.bytes + rows.data.byteLength > this.budgetBytes) {
      this.refusedCount++;
      return;
    }
    this.entries.set(k, rows);
    this.bytes += rows.data.byteLength;
  }

  /** Layers' rows not kept for lack of room: while 0, a later call on the same key gathers no float rows at all. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Bytes of rows held. */
  get size(): number {
    return this.bytes;
  }
}
