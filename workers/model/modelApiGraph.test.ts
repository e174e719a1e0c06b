import { afterEach, describe, expect, it } from 'vitest';
import { modelApi } from './modelApi.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { buildGraphIndex, decode } from '../../src/core/onnx/index.ts';

const buffer = (name: string) => {
  const bytes = readModel(name);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
};

describe('the model worker hands the graph view a structure and weight statistics', () => {
  const opened: string[] = [];
  afterEach(() => {
    for (const h of opened.splice(0)) modelApi.close(h);
  });

  it('UltraFace (every node unnamed): the structure indexes to the same ids as the file, without weight bytes', async () => {
    const { handle } = await modelApi.open(buffer('ultraface-rfb-320.onnx'), 'ultraface-rfb-320.onnx');
    opened.push(handle);
    const structure = structuredClone(modelApi.graphStructure(handle));
    const index = buildGraphIndex(structure);
    expect(index.ids).toEqual(buildGraphIndex(decode(readModel('ultraface-rfb-320.onnx')).graph!).ids);
    expect(index.ids).toContain('Slice_217');
    const bytes = structure.initializer.reduce((n, t) => n + (t.raw_data?.byteLength ?? 0), 0);
    expect(bytes).toBeLessThan(64 * structure.initializer.length);
  });

  it('weight statistics by tensor name, and a named reason for a name that is no weight', async () => {
    const { handle } = await modelApi.open(buffer('mnist.onnx'), 'mnist.onnx');
    opened.push(handle);
    const index = buildGraphIndex(modelApi.graphStructure(handle));
    const weight = [...index.initializers.keys()].find((n) => index.initializers.get(n)!.dims.length === 4)!;
    const [stats, missing] = modelApi.weightStatistics(handle, [weight, 'Input3']);
    expect('statistics' in stats && stats.statistics.count).toBe(
      index.initializers.get(weight)!.dims.reduce((a, b) => a * b, 1),
    );
    expect('statistics' in stats && stats.statistics.min < stats.statistics.max).toBe(true);
    expect(missing).toEqual({ name: 'Input3', error: 'not a weight of this model' });
  });
});
