/**
 * Calibrated ranges as plain data, the form they take across a worker boundary and in the studio's state:
 * tensor name → [min, max] (what `qstudio calibrate` writes), with the extremes calibration saw appended
 * where its method clipped them ([min, max, seenMin, seenMax]; mixed precision quantizes 16-bit tensors on
 * those). Conversion both ways; nothing else.
 */
import type { TensorRange } from '../../quantize/plan.ts';

/** Ranges by tensor name: [min, max], or [min, max, seenMin, seenMax] where calibration clipped. */
export type RangeTable = Readonly<
  Record<string, readonly [number, number] | readonly [number, number, number, number]>
>;

/** A range as a table entry. */
export function rangeEntry(r: TensorRange): readonly [number, number] | readonly [number, number, number, number] {
  return r.observed ? [r.min, r.max, r.observed.min, r.observed.max] : [r.min, r.max];
}

/** The table as the quantizer takes it. */
export function rangesFromTable(table: RangeTable): Map<string, TensorRange> {
  return new Map(
    Object.entries(table).map(([name, e]) => [
      name,
      e.length === 4 ? { min: e[0], max: e[1], observed: { min: e[2], max: e[3] } } : { min: e[0], max: e[1] },
    ]),
  );
}
