import { describe, expect, it } from 'vitest';
import { MetricInputError } from './input.ts';
import { defaultLayout, imagePlanes } from './planes.ts';

describe('imagePlanes', () => {
  it('splits NCHW into N·C contiguous H×W planes', () => {
    // [2, 3, 4, 5]: 6 planes of 4×5 = 20 elements each, at offsets 0, 20, 40, …
    const planes = imagePlanes([2, 3, 4, 5], 120, 'NCHW');
    expect(planes.length).toBe(6);
    expect(planes.map((p) => p.offset)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(planes[0]).toEqual({ offset: 0, height: 4, width: 5, rowStride: 5, colStride: 1 });
  });

  it('reads NHWC and HWC channels as interleaved planes', () => {
    // [1, 2, 2, 3]: channel c of pixel (y, x) sits at (y·2 + x)·3 + c
    const planes = imagePlanes([1, 2, 2, 3], 12, 'NHWC');
    expect(planes.map((p) => p.offset)).toEqual([0, 1, 2]);
    expect(planes[2]).toEqual({ offset: 2, height: 2, width: 2, rowStride: 6, colStride: 3 });
    expect(imagePlanes([2, 2, 3], 12, 'HWC')).toEqual(planes);
  });

  it('reads CHW as NCHW with one batch item', () => {
    expect(imagePlanes([3, 4, 5], 60, 'CHW')).toEqual(imagePlanes([1, 3, 4, 5], 60, 'NCHW'));
  });

  it('defaults by rank the way OpenCV reads arrays (rank 4: ONNX NCHW)', () => {
    expect([0, 1, 2, 3, 4].map(defaultLayout)).toEqual(['HW', 'HW', 'HW', 'HWC', 'NCHW']);
    expect(imagePlanes([1, 1000], 1000)).toEqual([
      { offset: 0, height: 1, width: 1000, rowStride: 1000, colStride: 1 },
    ]);
    expect(imagePlanes([7], 7)).toEqual([{ offset: 0, height: 1, width: 7, rowStride: 7, colStride: 1 }]);
    expect(imagePlanes([], 1)).toEqual([{ offset: 0, height: 1, width: 1, rowStride: 1, colStride: 1 }]);
    expect(imagePlanes([2, 2, 3], 12)[1].colStride).toBe(3);
  });

  it('refuses a layout of the wrong rank, rank 5, and dims that do not match the data', () => {
    expect(() => imagePlanes([4, 5], 20, 'NCHW')).toThrow(MetricInputError);
    expect(() => imagePlanes([1, 1, 1, 2, 2], 4)).toThrow(MetricInputError);
    expect(() => imagePlanes([2, 2], 5)).toThrow(MetricInputError);
  });
});
