import { describe, expect, it } from 'vitest';
import { shapeParts, shapeText } from './shape.ts';

describe('shapes as shown', () => {
  it.each([
    [[1, 3, 416, 416], '1 × 3 × 416 × 416'],
    [['batch', 3, 'height', 'width'], 'batch × 3 × height × width'],
    [[1, '?'], '1 × ?'],
    [[], 'scalar'],
    [null, 'unknown shape'],
  ] as const)('%j reads "%s"', (shape, text) => expect(shapeText(shape as never)).toBe(text));

  it('marks symbolic dimensions', () => {
    expect(shapeParts(['batch', 3]).map((p) => p.symbolic)).toEqual([true, false]);
  });
});
