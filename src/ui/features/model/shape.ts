/**
 * A tensor's shape as the page shows it: dimensions joined by "×", symbolic ones by their names
 * (`batch × 3 × height × width`), so the user sees what calibration will have to make concrete.
 */

export interface DimPart {
  text: string;
  /** True for a named (symbolic) or unknown dimension. */
  symbolic: boolean;
}

/** The dimensions to render; null (unknown rank) and [] (a scalar) become one descriptive part. */
export function shapeParts(shape: readonly (number | string)[] | null): DimPart[] {
  if (shape === null) return [{ text: 'unknown shape', symbolic: true }];
  if (shape.length === 0) return [{ text: 'scalar', symbolic: false }];
  return shape.map((d) => ({ text: String(d), symbolic: typeof d === 'string' }));
}

/** The shape as one string: [1, 3, 416, 416] → "1 × 3 × 416 × 416". */
export function shapeText(shape: readonly (number | string)[] | null): string {
  return shapeParts(shape)
    .map((p) => p.text)
    .join(' × ');
}
