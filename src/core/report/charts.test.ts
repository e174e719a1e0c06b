import { describe, expect, it } from 'vitest';
import { layerChart } from './charts.ts';
import type { LayerRow } from '../metrics/layerwise.ts';

const row = (i: number, sqnr: number): LayerRow => ({
  tensor: `t${i}`,
  node: null,
  opType: 'Conv',
  source: 'value',
  cosine: 0.9,
  sqnr,
  worstSampleCosine: 0.9,
  valueCosine: 0.9,
  valueSqnr: sqnr,
  dequantizedCosine: null,
  dequantizedSqnr: null,
  samples: 1,
  elementsPerSample: 1,
});

/** Each call-out's circle centre and its leader line, in the order drawn. */
function callouts(svg: string) {
  return [...svg.matchAll(/<g class="callout"><line ([^>]*)\/><circle ([^>]*)\/>/g)].map((m) => {
    const a = (s: string) =>
      Object.fromEntries([...s.matchAll(/([\w-]+)="([^"]*)"/g)].map((x) => [x[1], Number(x[2])]));
    const line = a(m[1]);
    const circle = a(m[2]);
    return { line, cx: circle.cx, cy: circle.cy, r: circle.r };
  });
}

describe('layer chart call-outs', () => {
  it('numbers the worst layers without one circle covering another, even where they are neighbours', () => {
    // 273 tensors (the sample's count) whose ten worst sit next to each other at nearly the same SQNR.
    const rows = Array.from({ length: 273 }, (_, i) => row(i, 10 + (i % 7)));
    for (let i = 0; i < 10; i++) rows[220 + i] = row(220 + i, -6 + i * 0.5);
    const worst = [...rows].sort((a, b) => a.sqnr - b.sqnr).slice(0, 10);
    const c = callouts(layerChart(rows, { highlight: worst }));
    expect(c).toHaveLength(10);
    for (let i = 0; i < c.length; i++)
      for (let j = i + 1; j < c.length; j++)
        expect(Math.hypot(c[i].cx - c[j].cx, c[i].cy - c[j].cy), `call-outs ${i} and ${j}`).toBeGreaterThanOrEqual(
          2 * c[i].r,
        );
    // Each leader line still ends on its own bar's column.
    const step = (960 - 48 - 12) / rows.length;
    c.forEach((k, n) => expect(Math.abs(k.line.x2 - (48 + (220 + n) * step + step / 2))).toBeLessThan(0.1));
  });

  it('leaves a lone call-out just above its bar', () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(i, 20));
    rows[10] = row(10, 0);
    const [k] = callouts(layerChart(rows, { highlight: [rows[10]] }));
    expect(k.cx).toBeCloseTo(k.line.x2, 1);
    expect(k.line.y2 - k.cy).toBeCloseTo(10, 0);
  });
});
