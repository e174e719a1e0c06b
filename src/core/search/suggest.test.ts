import { describe, expect, it } from 'vitest';
import type { NodeId } from '../onnx/model.ts';
import { getPreset } from '../quantize/presets.ts';
import type { QuantConfig } from '../quantize/config.ts';
import type { RankedLayer, Tail } from './candidates.ts';
import { EvaluationCancelledError } from '../evaluate/errors.ts';
import { addedExclusions, suggestExclusions, type Measurement } from './suggest.ts';

/**
 * A fake model: each quantized node costs the output cosine a fixed amount ("damage"); excluding it
 * gives that back (a negative damage makes excluding it hurt). A tail, once excluded, gives back
 * `tailGain`. Layers are ranked by damage, as a layer-wise comparison would rank them.
 */
function fakeModel(damage: Record<string, number>, tails: Record<string, { gain: number; nodes: number }> = {}) {
  const calls: QuantConfig[] = [];
  const evaluate = async (config: QuantConfig): Promise<Measurement> => {
    calls.push(config);
    const excluded = new Set(config.nodesToExclude);
    let cosine = 1;
    for (const [node, d] of Object.entries(damage)) if (!excluded.has(node)) cosine -= Math.max(d, 0);
    for (const [node, d] of Object.entries(damage)) if (excluded.has(node) && d < 0) cosine += d;
    for (const s of config.subgraphsToExclude) cosine += tails[s.starts[0]]?.gain ?? 0;
    const layers: RankedLayer[] = Object.entries(damage)
      .filter(([node]) => !excluded.has(node))
      .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
      .map(([node, d]) => ({
        node: node as NodeId,
        opType: 'Conv',
        sqnr: 10 - 100 * Math.abs(d),
        drop: 100 * Math.abs(d),
      }));
    return { cosine, layers };
  };
  const tailOf = (node: NodeId): Tail | null =>
    tails[node] ? { subgraph: { starts: [node], ends: ['Out'] }, nodes: tails[node].nodes } : null;
  return { evaluate, tailOf, calls };
}

const base = getPreset('XINT8');

describe('suggestExclusions', () => {
  it('excludes the worst layers one at a time until the target is reached, measuring each', async () => {
    const fake = fakeModel({ A: 0.05, B: 0.02, C: 0.001 });
    const result = await suggestExclusions({ config: base, target: 0.99, maxSteps: 10, evaluate: fake.evaluate });
    expect(result.steps.map((s) => [s.candidate?.node ?? null, s.kept])).toEqual([
      [null, true],
      ['A', true],
      ['B', true],
    ]);
    expect(result.steps.map((s) => s.cosine)).toEqual([
      expect.closeTo(0.929, 12),
      expect.closeTo(0.979, 12),
      expect.closeTo(0.999, 12),
    ]);
    expect(result).toMatchObject({ reached: true, stopped: 'target' });
    expect(result.config.nodesToExclude).toEqual(['A', 'B']);
    expect(result.cosine).toBeCloseTo(0.999, 12);
  });

  it('never reports a cosine it did not measure: every step is one evaluation of exactly that configuration', async () => {
    const fake = fakeModel({ A: 0.05, B: 0.02, C: 0.001 });
    const result = await suggestExclusions({ config: base, target: 0.99, maxSteps: 10, evaluate: fake.evaluate });
    expect(fake.calls).toHaveLength(result.steps.length);
    expect(fake.calls.map((c) => c.nodesToExclude)).toEqual([[], ['A'], ['A', 'B']]);
  });

  it('does not keep an exclusion that lowers the cosine, and moves on to the next layer', async () => {
    const fake = fakeModel({ X: -0.03, A: 0.02, B: 0.001 });
    const result = await suggestExclusions({ config: base, target: 0.9995, maxSteps: 10, evaluate: fake.evaluate });
    const x = result.steps.find((s) => s.candidate?.node === 'X')!;
    expect(x).toMatchObject({ kept: false, cosine: expect.closeTo(0.949, 12), bestCosine: expect.closeTo(0.979, 12) });
    expect(result.config.nodesToExclude).toEqual(['A', 'B']);
    expect(result.reached).toBe(true);
  });

  it('tries the tail subgraph from a layer to the outputs when the node alone does not help', async () => {
    const fake = fakeModel({ T: -0.06, A: 0.05 }, { T: { gain: 0.05, nodes: 8 } });
    const start = { ...base, nodesToExclude: [] };
    const result = await suggestExclusions({
      config: start,
      target: 0.99,
      maxSteps: 10,
      evaluate: fake.evaluate,
      tailOf: fake.tailOf,
    });
    expect(
      result.steps.map((s) => (s.candidate ? `${s.candidate.kind}:${s.candidate.node}:${s.kept}` : 'start')),
    ).toEqual(['start', 'node:T:false', 'subgraph:T:true']);
    expect(result.config.subgraphsToExclude).toEqual([{ starts: ['T'], ends: ['Out'] }]);
    expect(result.config.nodesToExclude).toEqual([]);
  });

  it('leaves out tails larger than maxTailNodes', async () => {
    const fake = fakeModel({ T: -0.001 }, { T: { gain: 0.5, nodes: 300 } });
    const result = await suggestExclusions({
      config: base,
      target: 1.1,
      maxSteps: 10,
      evaluate: fake.evaluate,
      tailOf: fake.tailOf,
      maxTailNodes: 32,
    });
    expect(result.steps.some((s) => s.candidate?.kind === 'subgraph')).toBe(false);
    expect(result.stopped).toBe('no-candidates');
  });

  it('stops after maxSteps measurements, keeping the best configuration found', async () => {
    const fake = fakeModel({ A: 0.1, B: 0.1, C: 0.1, D: 0.1 });
    const result = await suggestExclusions({ config: base, target: 0.99, maxSteps: 2, evaluate: fake.evaluate });
    expect(result.steps).toHaveLength(3);
    expect(result).toMatchObject({ reached: false, stopped: 'max-steps' });
    expect(result.config.nodesToExclude).toHaveLength(2);
    expect(result.cosine).toBeCloseTo(0.8, 12);
  });

  it('records a failed evaluation and goes on', async () => {
    const fake = fakeModel({ A: 0.05, B: 0.02 });
    const evaluate = async (c: QuantConfig) => {
      if (c.nodesToExclude.includes('A'))
        throw Object.assign(new Error('A cannot be excluded'), { name: 'ExclusionError' });
      return fake.evaluate(c);
    };
    const result = await suggestExclusions({ config: base, target: 0.99, maxSteps: 5, evaluate });
    expect(result.steps[1]).toMatchObject({ kept: false, error: 'ExclusionError: A cannot be excluded' });
    expect(result.steps[1].cosine).toBeNaN();
    expect(result.config.nodesToExclude).toEqual(['B']);
  });

  it('a starting configuration that cannot be evaluated stops the search with a named error: its own, or a ComparisonError quoting it', async () => {
    const named = new EvaluationCancelledError('cancelled');
    await expect(
      suggestExclusions({
        config: base,
        target: 0.99,
        maxSteps: 3,
        evaluate: async () => {
          throw named;
        },
      }),
    ).rejects.toBe(named);
    const plain = suggestExclusions({
      config: base,
      target: 0.99,
      maxSteps: 3,
      evaluate: async () => {
        throw new TypeError('x is undefined');
      },
    });
    await expect(plain).rejects.toMatchObject({
      name: 'ComparisonError',
      message: expect.stringContaining('TypeError: x is undefined'),
    });
  });

  it('stops when the starting configuration already reaches the target, and skips nodes already excluded', async () => {
    const done = await suggestExclusions({
      config: base,
      target: 0.9,
      maxSteps: 5,
      evaluate: fakeModel({ A: 0.01 }).evaluate,
    });
    expect(done.steps).toHaveLength(1);
    expect(done.stopped).toBe('target');

    const fake = fakeModel({ A: 0.05, B: 0.02 });
    const rankAll = async (c: QuantConfig) => ({
      ...(await fake.evaluate(c)),
      layers: (await fake.evaluate(base)).layers,
    });
    const result = await suggestExclusions({
      config: { ...base, nodesToExclude: ['A'] },
      target: 0.999,
      maxSteps: 5,
      evaluate: rankAll,
    });
    expect(result.steps.map((s) => s.candidate?.node ?? null)).toEqual([null, 'B']);
  });

  it('reports progress step by step', async () => {
    const seen: number[] = [];
    await suggestExclusions({
      config: base,
      target: 0.99,
      maxSteps: 5,
      evaluate: fakeModel({ A: 0.05 }).evaluate,
      onStep: (s) => seen.push(s.step),
    });
    expect(seen).toEqual([0, 1]);
  });

  it("aims at the target's figure when measurements carry one (a task target): kept when it rises, or stays equal while the cosine rises", async () => {
    // mAP-like figure in steps of 0.25: A lifts it, B only the cosine, C lifts it to the target.
    const figureOf = (excluded: Set<string>) => 0.5 + (excluded.has('A') ? 0.25 : 0) + (excluded.has('C') ? 0.25 : 0);
    const cosineOf = (excluded: Set<string>) =>
      0.9 +
      (excluded.has('A') ? 0.01 : 0) +
      (excluded.has('B') ? 0.02 : 0) +
      (excluded.has('C') ? 0.001 : 0) -
      (excluded.has('D') ? 0.05 : 0);
    const order = ['A', 'D', 'B', 'C'];
    const evaluate = async (config: QuantConfig): Promise<Measurement> => {
      const excluded = new Set<string>(config.nodesToExclude);
      const layers = order
        .filter((n) => !excluded.has(n))
        .map((node, k) => ({ node: node as NodeId, opType: 'Conv', sqnr: 10 + k, drop: 10 - k }));
      return { cosine: cosineOf(excluded), figure: figureOf(excluded), layers };
    };
    const result = await suggestExclusions({ config: base, target: 1, maxSteps: 10, evaluate });
    expect(result.steps.map((s) => [s.candidate?.node ?? null, s.kept, s.figure])).toEqual([
      [null, true, 0.5],
      ['A', true, 0.75],
      ['D', false, 0.75],
      ['B', true, 0.75],
      ['C', true, 1],
    ]);
    expect(result).toMatchObject({ reached: true, stopped: 'target', figure: 1 });
    expect(result.config.nodesToExclude).toEqual(['A', 'B', 'C']);
    expect(result.steps[2]).toMatchObject({ bestFigure: 0.75, bestCosine: expect.closeTo(0.91, 12) });
    // The cosine alone would have stopped at 0.99 with the figure short: the figure decides.
    expect(result.cosine).toBeCloseTo(0.931, 12);
  });
});

describe('addedExclusions', () => {
  it("lists the nodes and subgraphs the search added, not the starting configuration's", () => {
    const start: QuantConfig = {
      ...getPreset('XINT8'),
      nodesToExclude: ['a'],
      subgraphsToExclude: [{ starts: ['s'], ends: ['e'] }],
    };
    const found: QuantConfig = {
      ...start,
      nodesToExclude: ['a', 'b', 'c'],
      subgraphsToExclude: [...start.subgraphsToExclude, { starts: ['t'], ends: ['u'] }],
    };
    expect(addedExclusions(start, found)).toEqual({ nodes: ['b', 'c'], subgraphs: [{ starts: ['t'], ends: ['u'] }] });
    expect(addedExclusions(start, start)).toEqual({ nodes: [], subgraphs: [] });
  });
});
