/** FloatRowCache: rows kept by key and layer within a byte budget; what did not fit is counted. */
import { describe, expect, it } from 'vitest';
import { FloatRowCache } from './floatRowCache.ts';

const rows = (n: number) => ({ rows: n, width: 1, positions: n, data: new Float32Array(n) });

describe('FloatRowCache', () => {
  it('keeps rows within its budget, per key and layer, and counts the layers it had no room for', () => {
    const cache = new FloatRowCache(64);
    cache.set('a', 'conv1', rows(8));
    cache.set('a', 'conv2', rows(8));
    expect(cache.size).toBe(64);
    expect(cache.refused).toBe(0);
    expect(cache.get('a', 'conv1')?.rows).toBe(8);
    expect(cache.get('b', 'conv1')).toBeUndefined();
    cache.set('a', 'conv3', rows(1));
    expect(cache.get('a', 'conv3')).toBeUndefined();
    expect(cache.refused).toBe(1);
    // The same entry again is neither kept twice nor refused.
    cache.set('a', 'conv1', rows(8));
    expect(cache.size).toBe(64);
    expect(cache.refused).toBe(1);
  });
});
