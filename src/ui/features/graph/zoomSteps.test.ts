import { describe, expect, it } from 'vitest';
import { ACTUAL_SIZE, MAX_ZOOM, MIN_ZOOM, nextZoom, zoomStops } from './zoomSteps.ts';

const clicks = (from: number, direction: 1 | -1, fit: number, until: (z: number) => boolean) => {
  let z = from,
    n = 0;
  while (!until(z) && n < 100) {
    z = nextZoom(z, direction, fit);
    n++;
  }
  return n;
};

describe('zoom steps', () => {
  it('reach 100 % from the fitted zoom in at most three clicks, at any graph size, and come back to fit', () => {
    for (const fit of [0.0013, 0.01, 0.05, 0.3, 0.6, 0.9]) {
      expect(
        clicks(fit, 1, fit, (z) => z >= ACTUAL_SIZE - 1e-9),
        `fit ${fit}`,
      ).toBeLessThanOrEqual(3);
      expect(
        clicks(ACTUAL_SIZE, -1, fit, (z) => z <= fit + 1e-9),
        `fit ${fit}`,
      ).toBeLessThanOrEqual(3);
    }
    expect(nextZoom(0.0013, 1, 0.0013)).toBeCloseTo(0.0013 * (1 / 0.0013) ** (1 / 3), 6);
  });

  it('land on 100 % exactly, step ×1.4 above it and below fit, and stay within the limits', () => {
    const stops = zoomStops(0.02);
    expect(stops).toContain(ACTUAL_SIZE);
    expect(stops[0]).toBe(MIN_ZOOM);
    expect(stops.at(-1)).toBe(MAX_ZOOM);
    expect(nextZoom(ACTUAL_SIZE, 1, 0.02)).toBeCloseTo(1.4, 9);
    expect(nextZoom(0.02, -1, 0.02)).toBeCloseTo(0.02 / 1.4, 9);
    expect(nextZoom(MAX_ZOOM, 1, 0.02)).toBe(MAX_ZOOM);
    expect(nextZoom(MIN_ZOOM, -1, 0.02)).toBe(MIN_ZOOM);
    // From anywhere between stops, the next stop in that direction.
    expect(nextZoom(0.8, 1, 0.02)).toBe(ACTUAL_SIZE);
    // A small graph (fit above 100 %) steps ×1.4 around 100 %.
    expect(nextZoom(ACTUAL_SIZE, -1, 1.2)).toBeCloseTo(1 / 1.4, 9);
  });
});
