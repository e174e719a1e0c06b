/** Detection boxes (core/task/boxes.ts) for the tests that match, count or score them. */
import type { Box } from '../../src/core/task/boxes.ts';

/** The box from (x1, y1) to (x2, y2) with its score and class label. */
export const box = (x1: number, y1: number, x2: number, y2: number, score = 1, label = 0): Box => ({
  x1,
  y1,
  x2,
  y2,
  score,
  label,
});
