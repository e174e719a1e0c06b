import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { compareGraphs } from '../../src/core/graph/comparison.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';
import { compareApi } from './compareApi.ts';

const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);

describe('comparison worker API', () => {
  it('reads two files, folds the Q/DQ, maps the nodes and lays both panes out, reporting its phases', async () => {
    const phases: string[] = [];
    const out = await compareApi.compare(
      { name: 'yolox-nano.onnx', blob: blob(readModel('yolox-nano.onnx')) },
      { name: 'q.onnx', blob: blob(encode(quantizedFixture('yolox-nano.onnx'))) },
      (fraction, phase) => phases.push(`${fraction}:${phase}`),
    );
    const { comparison, layouts } = out;
    expect(comparison.mapping.related).toBe(true);
    // Folded before layout: the quantized pane has as many boxes as the float one, and both are laid out.
    expect(comparison.views.b.boxes.length).toBe(comparison.views.a.boxes.length);
    expect(layouts.a.x.length).toBe(comparison.views.a.boxes.length);
    expect(layouts.b.x.length).toBe(comparison.views.b.boxes.length);
    expect(comparison.views.b.edges.some((e) => /^u?int8 · scale /.test(e.label))).toBe(true);
    expect(phases[0]).toBe('0:reading yolox-nano.onnx');
    expect(phases.at(-1)).toBe('1:done');
    expect(out.seconds.read + out.seconds.views + out.seconds.map).toBeGreaterThan(0);
  });

  it('shows what a comparison of the files decoded for editing shows (its read-only decode changes nothing)', async () => {
    const float = readModel('yolox-nano.onnx');
    const quantized = encode(quantizedFixture('yolox-nano.onnx'));
    const out = await compareApi.compare({ name: 'f', blob: blob(float) }, { name: 'q', blob: blob(quantized) });
    const edited = compareGraphs(
      { name: 'f', graph: decode(float).graph! },
      { name: 'q', graph: decode(quantized).graph! },
    );
    expect(out.comparison).toEqual(edited);
  });

  it('a file that is not a model fails by name', async () => {
    const png = new Blob([Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3)]);
    await expect(
      compareApi.compare(
        { name: 'mnist.onnx', blob: blob(readModel('mnist.onnx')) },
        { name: 'picture.onnx', blob: png },
      ),
    ).rejects.toMatchObject({
      name: expect.stringMatching(/Error$/),
      message: expect.stringContaining('picture.onnx'),
    });
  });
});
