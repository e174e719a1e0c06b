import { describe, expect, it } from 'vitest';
import { encode } from '../../src/core/onnx/index.ts';
import { readModel } from '../../tests/helpers/fixtures.ts';
import { quantizedFixture } from '../../tests/helpers/quantizedFixtures.ts';
import { compareApi } from './compareApi.ts';
import { fromWire, toWire, wireBuffers } from './comparisonWire.ts';

const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);

describe('comparison wire', () => {
  it('rebuilds on the far side of a worker message exactly the comparison the worker made', async () => {
    const out = await compareApi.compare(
      { name: 'yolox-nano.onnx', blob: blob(readModel('yolox-nano.onnx')) },
      { name: 'q.onnx', blob: blob(encode(quantizedFixture('yolox-nano.onnx'))) },
    );
    const wire = toWire(out);
    // As postMessage sends it: cloned, its typed arrays transferred (the worker's copies are then gone).
    const sent = structuredClone(wire, { transfer: wireBuffers(wire) });
    expect(wire.comparison.counterpart.a.length).toBe(0);
    const back = fromWire(sent);
    const again = await compareApi.compare(
      { name: 'yolox-nano.onnx', blob: blob(readModel('yolox-nano.onnx')) },
      { name: 'q.onnx', blob: blob(encode(quantizedFixture('yolox-nano.onnx'))) },
    );
    expect(back).toStrictEqual({ ...again, seconds: back.seconds });
    // Folded Q/DQ labels, both kinds of box and the maps by id came across.
    expect(back.comparison.views.b.edges.some((e) => /^u?int8 · scale /.test(e.label))).toBe(true);
    expect(new Set(back.comparison.views.a.boxes.map((b) => b.kind))).toEqual(new Set(['input', 'node', 'output']));
    expect(back.comparison.views.a.boxById.size).toBe(back.comparison.views.a.boxes.length);
  });

  it('keeps an outer-scope mark where a box has one, and no field where it has none', () => {
    const view = {
      boxes: [
        {
          kind: 'input',
          id: 'input:x',
          node: -1,
          title: 'x',
          subtitle: 'outer scope',
          family: 'io',
          width: 80,
          height: 32,
          outerScope: true,
        },
        { kind: 'node', id: 'n0', node: 0, title: 'Relu', subtitle: 'n0', family: 'activation', width: 90, height: 42 },
      ],
      edges: [{ source: 0, target: 1, tensor: 'x', label: '1×3' }],
      boxById: new Map([
        ['input:x', 0],
        ['n0', 1],
      ]),
      qdqFolded: false,
    };
    const layout = { x: new Float32Array(2), y: new Float32Array(2), rank: new Int32Array(2) };
    const result = {
      comparison: {
        names: { a: 'a', b: 'b' },
        views: { a: view, b: view },
        mapping: { common: 1, related: true, counts: { same: 1, changed: 0, removed: 0, merged: 0, added: 0 } },
        counterpart: { a: Int32Array.of(0, 1), b: Int32Array.of(0, 1) },
        marks: { a: ['io', 'same'], b: ['io', 'same'] },
        fileValues: {},
      },
      layouts: { a: layout, b: layout },
      seconds: { read: 0, views: 0, map: 0 },
      decoded: [],
    } as unknown as Parameters<typeof toWire>[0];
    const back = fromWire(structuredClone(toWire(result)));
    expect(back.comparison.views.a).toStrictEqual(view);
    expect(back.comparison.views.a.boxes[1]).not.toHaveProperty('outerScope');
  });
});
