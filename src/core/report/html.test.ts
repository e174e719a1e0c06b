import { describe, expect, it } from 'vitest';
import { makeNode, type NodeId } from '../onnx/index.ts';
import { fewNodeIndex } from '../../../tests/helpers/graphIndex.ts';
import type { LayerRow } from '../metrics/layerwise.ts';
import type { TensorPair } from '../metrics/layerwiseTensors.ts';
import { buildReport, type ReportInput } from './build.ts';
import { renderHtml } from './html.ts';
import { formatJump } from './htmlText.ts';
import { headlineFigure } from './headlineFigure.ts';
import { parseReportNumber, renderJson } from './json.ts';

/** Tags opened and closed in order (void elements and self-closed SVG elements aside); returns the first mismatch or null. */
function unbalancedTag(html: string): string | null {
  const voids = new Set(['meta', 'link', 'br', 'hr', 'img', 'input', '!doctype']);
  const stack: string[] = [];
  const body = html.replace(/<style>[\s\S]*?<\/style>/, '<style></style>');
  for (const m of body.matchAll(/<(\/?)([a-zA-Z!][\w-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, rawName, , selfClosed] = m;
    const name = rawName.toLowerCase();
    if (voids.has(name) || selfClosed) continue;
    if (!closing) stack.push(name);
    else if (stack.pop() !== name) return `</${name}> at ${m.index}`;
  }
  return stack.length ? `<${stack[stack.length - 1]}> never closed` : null;
}

// A three-node chain with hostile names: x → "A<b>" → a → "B&c" → b → "C" → out.
const index = fewNodeIndex({
  nodes: [
    makeNode('Conv', ['x'], ['a<1>'], 'A<b>'),
    makeNode('Mul', ['a<1>'], ['b"2'], 'B&c'),
    makeNode('Sigmoid', ['b"2'], ['out'], 'C'),
  ],
  inputs: ['x'],
  outputs: ['out'],
});
const row = (tensor: string, node: string | null, opType: string, sqnr: number, cosine: number): LayerRow => ({
  tensor,
  node: node as NodeId | null,
  opType,
  source: 'dequantized',
  cosine,
  sqnr,
  worstSampleCosine: cosine - 0.01,
  valueCosine: cosine,
  valueSqnr: sqnr + 0.5,
  dequantizedCosine: cosine,
  dequantizedSqnr: sqnr,
  samples: 3,
  elementsPerSample: 10,
});
const rows = [
  row('x', null, 'input', 47.46, 0.99999),
  row('a<1>', 'A<b>', 'Conv', 12.42, 0.9737),
  row('b"2', 'B&c', 'Mul', -1.3, 0.2515),
  row('out', 'C', 'Sigmoid', Infinity, 1),
];
const pairs: TensorPair[] = rows.map((r) => ({
  tensor: r.tensor,
  node: r.node,
  opType: r.opType,
  value: r.tensor,
  dequantized: `${r.tensor}_dq`,
}));

const input: ReportInput = {
  createdAt: '2026-11-24T10:00:00Z',
  floatModel: { name: 'yolox-nano.onnx', sha256: 'ab'.repeat(32), bytes: 3660092 },
  quantizedModel: { name: 'yolox <q>.onnx', sha256: null, bytes: 1106684 },
  config: { name: 'XINT8', settings: { activationType: 'int8', nodesToExclude: ['B&c'] } },
  exclusions: [{ rule: 'node B&c', ids: ['B&c'] }],
  quantization: { nodes: 3, quantized: 2, float: 1 },
  samples: 3,
  dataSource: '/data/coco & more',
  outputs: [
    {
      output: 'out',
      metrics: {
        cosine: { count: 3, mean: 0.8273957, min: 0.7877319, max: 0.85 },
        l2: { count: 3, mean: 97.97711, min: 90, max: 108.4101 },
        psnr: { count: 3, mean: 25.679688, min: 24.382547, max: 27 },
      },
    },
  ],
  layers: { rows, index, pairs, missing: ['folded'] },
  jumpThresholdDb: 3,
  grids: new Map([['b"2', { type: 'int8', scale: 0.125, zeroPoint: 0, min: -16, max: 15.875 }]]),
  histograms: new Map([['b"2', { min: -16, max: 16, counts: [1, 4, 9, 4, 1] }]]),
  timings: [{ label: 'float model runs', seconds: 1.25 }],
  suggest: {
    target: 0.99,
    reached: false,
    stopped: 'max-steps',
    steps: [
      { step: 0, candidate: null, cosine: 0.8274, kept: true, bestCosine: 0.8274, seconds: 15.5 },
      {
        step: 1,
        kept: false,
        bestCosine: 0.8274,
        seconds: 8.2,
        cosine: 0.8215,
        candidate: {
          kind: 'node',
          node: 'A<b>' as NodeId,
          layer: { node: 'A<b>' as NodeId, opType: 'Conv', sqnr: 18.63, drop: 28.83 },
        },
      },
      {
        step: 2,
        kept: true,
        bestCosine: 0.83,
        seconds: 7.1,
        cosine: 0.83,
        candidate: {
          kind: 'subgraph',
          node: 'C' as NodeId,
          nodes: 2,
          subgraph: { starts: ['C'], ends: ['C'] },
          layer: { node: 'C' as NodeId, opType: 'Sigmoid', sqnr: 0, drop: 9.5 },
        },
      },
    ],
  },
  notes: ['a note with <markup> & "quotes"'],
};

describe('buildReport', () => {
  const report = buildReport(input);

  it('ranks the worst layers and finds the jumps', () => {
    expect(report.layers!.worst.map((r) => r.tensor)).toEqual(['b"2', 'a<1>', 'x', 'out']);
    expect(report.layers!.jumps.map((j) => [j.node, j.drop])).toEqual([
      ['A<b>', expect.closeTo(35.04, 10)],
      ['B&c', expect.closeTo(13.72, 10)],
    ]);
    expect(report.fidelity).toEqual({ meanCosine: 0.8273957, undefinedOutputs: 0 });
  });

  it('attaches ranges to the worst layers from the quantized grid, with histograms', () => {
    expect(report.ranges).toEqual([
      {
        tensor: 'b"2',
        node: 'B&c',
        min: -16,
        max: 15.875,
        source: 'grid',
        grid: { type: 'int8', scale: 0.125, zeroPoint: 0, min: -16, max: 15.875 },
        histogram: { min: -16, max: 16, counts: [1, 4, 9, 4, 1] },
      },
    ]);
    const calibrated = buildReport({ ...input, ranges: new Map([['a<1>', { min: -3, max: 5 }]]) });
    expect(calibrated.ranges.find((r) => r.tensor === 'a<1>')).toMatchObject({
      min: -3,
      max: 5,
      source: 'calibration',
      grid: null,
    });
  });
});

describe('renderHtml', () => {
  const html = renderHtml(buildReport(input));

  it('is one complete document whose tags balance', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(unbalancedTag(html)).toBeNull();
  });

  it('makes no request: no URLs, no src or href, no script, no external CSS', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\s(src|href|xlink:href|srcset|action)\s*=/i);
    expect(html).not.toMatch(/<script|<link|<iframe|<img|<object|@import|url\(/i);
  });

  it("says which onnxruntime judged the figures: 'basic' unless the caller says 'all' (HTML and JSON)", () => {
    expect(html).toContain(
      '<dt>Judged by</dt><dd data-graph-optimization="basic">onnxruntime at graph optimization &#39;basic&#39;: the model&#39;s own Q/DQ arithmetic, every QuantizeLinear and DequantizeLinear run as written</dd>',
    );
    expect(JSON.parse(renderJson(buildReport(input))).graphOptimization).toBe('basic');
    const cpu = buildReport({ ...input, graphOptimization: 'all' });
    expect(renderHtml(cpu)).toContain('data-graph-optimization="all"');
    expect(renderHtml(cpu)).toContain('its default in onnxruntime-node, -python and onnxruntime-web');
    expect(JSON.parse(renderJson(cpu)).graphOptimization).toBe('all');
  });

  it("puts the figure at the runtime's default options ('all') first and the model's own arithmetic ('basic') beside it, labelled", () => {
    const atAll = input.outputs.map((o) => ({
      ...o,
      metrics: { ...o.metrics, cosine: { ...o.metrics.cosine!, mean: 0.5, min: 0.5, max: 0.5 } },
    }));
    const both = buildReport({ ...input, atDefault: { runtime: 'onnxruntime-node', outputs: atAll } });
    const page = renderHtml(both);
    expect(unbalancedTag(page)).toBeNull();
    expect(page).toContain(
      '<dt>Judged first by</dt><dd data-graph-optimization="all" data-at-default>onnxruntime-node at its default options',
    );
    expect(page).toContain('<dt>And beside it by</dt><dd data-graph-optimization="basic">');
    const first = page.indexOf('data-card="at-default"');
    const beside = page.indexOf('data-card="own-arithmetic"');
    expect(first).toBeGreaterThan(0);
    expect(beside).toBeGreaterThan(first);
    expect(page.slice(first, beside)).toContain('0.500000');
    expect(page.indexOf('<section id="at-default">')).toBeLessThan(
      page.indexOf('Output metrics, the model&#39;s own Q/DQ arithmetic (&#39;basic&#39;)'),
    );
    const json = JSON.parse(renderJson(both));
    expect(json.atDefault).toMatchObject({
      runtime: 'onnxruntime-node',
      graphOptimization: 'all',
      fidelity: { meanCosine: 0.5 },
    });
    // A report without it reads as before: one figure, 'Judged by'.
    expect(html).not.toContain('data-card="at-default"');
  });

  it('shows the numbers: metrics, layer SQNRs, the search steps, the hash', () => {
    for (const text of [
      '0.827396',
      '0.787732',
      '97.98',
      '25.68',
      '−1.30',
      '12.42',
      '47.46',
      '28.83',
      '0.821500',
      '15.88',
      'ab'.repeat(32),
      '3.5 MB',
    ]) {
      expect(html).toContain(text);
    }
    // Quark's printed layout, verbatim.
    expect(html).toContain('Mean cos similarity: 0.8273957\nMin cos similarity: 0.7877319');
    expect(html).toContain('<svg class="chart"');
  });

  it('escapes every name it shows', () => {
    expect(html).not.toContain('A<b>');
    expect(html).toContain('A&lt;b&gt;');
    expect(html).toContain('B&amp;c');
    expect(html).toContain('b&quot;2');
    expect(html).toContain('yolox &lt;q&gt;.onnx');
    expect(html).not.toContain('<markup>');
  });

  it('labels the figure as written and the one as the NPU runs it apart, each with its own numbers', () => {
    const npuOutputs = input.outputs.map((o) => ({
      ...o,
      metrics: { ...o.metrics, cosine: { ...o.metrics.cosine!, mean: 0.5123456 } },
    }));
    const both = buildReport({ ...input, npu: { floatNodes: 7, activations: 9, weights: 2, outputs: npuOutputs } });
    expect(both.npu!.fidelity.meanCosine).toBeCloseTo(0.5123456, 7);
    const page = renderHtml(both);
    expect(unbalancedTag(page)).toBeNull();
    expect(page).toContain('Mean output cosine, as written');
    expect(page).toContain('Mean output cosine, as the NPU runs it');
    expect(page).toContain('0.512346');
    expect(page).toContain('float parts in BF16: 7 node(s), 9 activation(s) and 2 weight(s) rounded');
    expect(page).toContain('<h2>As the NPU runs it</h2>');
    expect(html).not.toContain('As the NPU runs it'); // only when asked for
    expect(JSON.parse(renderJson(both)).npu.floatNodes).toBe(7);
  });

  it("names each node's precision in the worst-layer table and lists the nodes outside 8 bits (HTML and JSON)", () => {
    const precisions = {
      'A<b>': { label: 'A16W8', class: 'act16' as const },
      'B&c': { label: 'A8', class: 'int8' as const },
      C: { label: 'float', class: 'float' as const },
    };
    const report = buildReport({ ...input, precisions });
    const page = renderHtml(report);
    expect(unbalancedTag(page)).toBeNull();
    expect(page).toContain('<th>Precision</th>');
    expect(page).toMatch(/A&lt;b&gt;<\/td><td>Conv<\/td><td class="mono">A16W8<\/td>/);
    expect(page).toContain('<h3>Precision per node</h3>');
    expect(page).toMatch(
      /<tr data-precision="act16"><td>16-bit activation<\/td><td class="num">1<\/td><td class="name mono">A&lt;b&gt; \(A16W8\)<\/td>/,
    );
    expect(page).toMatch(
      /<tr data-precision="float"><td>float \(excluded or not quantized\)<\/td><td class="num">1<\/td>/,
    );
    expect(JSON.parse(renderJson(report)).precisions['A<b>']).toEqual({ label: 'A16W8', class: 'act16' });
    // Fields measured beside the report are written by the same rules: NaN as "NaN", never null.
    expect(
      JSON.parse(renderJson(report, { cpuKernels: { outputs: [{ cosine: NaN }] } })).cpuKernels.outputs[0].cosine,
    ).toBe('NaN');
    expect(renderHtml(buildReport(input))).not.toContain('Precision per node');
  });

  it('renders a report without layers, ranges or a search', () => {
    const bare = renderHtml(
      buildReport({ floatModel: { name: 'm.onnx', sha256: null, bytes: null }, samples: 0, outputs: [] }),
    );
    expect(unbalancedTag(bare)).toBeNull();
    expect(bare).toContain('m.onnx');
  });
  it('says under each cosine card on how many samples the quantized output was all zeros, as the CLI does', () => {
    const collapsed = input.outputs.map((o) => ({ ...o, allZero: { samples: 2, of: 3 } }));
    const page = renderHtml(
      buildReport({
        ...input,
        outputs: collapsed,
        atDefault: { runtime: 'onnxruntime-node', outputs: collapsed },
        npu: { floatNodes: 0, activations: 0, weights: 0, outputs: input.outputs },
      }),
    );
    expect(unbalancedTag(page)).toBeNull();
    const note =
      '<div class="all-zero" data-all-zero="2/3">⚠ quantized output is all zeros on 2 of 3 samples (cosine counts each as 0)</div>';
    expect(page.split(note)).toHaveLength(3);
    const npuCard = page.slice(page.indexOf('as the NPU runs it</div>'));
    expect(npuCard.slice(0, npuCard.indexOf('</div></div>'))).not.toContain('all-zero');
    expect(html).not.toContain('class="all-zero"');
  });
});

describe('renderJson', () => {
  it('writes non-finite numbers as strings that read back', () => {
    const json = JSON.parse(renderJson(buildReport(input)));
    expect(json.schema).toBe('quant-studio/report@1');
    const out = json.layers.rows.find((r: { tensor: string }) => r.tensor === 'out');
    expect(out.sqnr).toBe('Infinity');
    expect(parseReportNumber(out.sqnr)).toBe(Infinity);
    expect(parseReportNumber(json.outputs[0].metrics.cosine.mean)).toBe(0.8273957);
    expect(json.ranges[0].histogram.counts).toEqual([1, 4, 9, 4, 1]);
  });
});

describe('an error jump from exact inputs (a node that reads only weights: a Reshape of a quantized weight, an If)', () => {
  // The graph input is not compared: the Conv reads nothing compared, so its drop is infinite.
  const report = buildReport({ ...input, layers: { rows: rows.slice(1), index, pairs: pairs.slice(1), missing: [] } });

  it('is named by the SQNR its output fell to, not by an infinite drop, in the headline and the CLI text', () => {
    expect(report.layers!.jumps[0]).toMatchObject({ node: 'A<b>', drop: Infinity, sqnr: 12.42 });
    const html = renderHtml(report);
    expect(html).toContain('<div class="value">exact inputs → 12.42 dB</div>');
    expect(html).not.toMatch(/−∞ dB/);
    expect(formatJump(report.layers!.jumps[0])).toBe('exact inputs → 12.42 dB');
    expect(formatJump(report.layers!.jumps[1])).toBe('−13.72 dB');
  });
});

describe("the headline of a model judged by decisions (one number a sample: openwakeword-js's hello_deepa)", () => {
  const decision = { count: 10, mean: 0.9, min: 0, max: 1 };
  const absError = { count: 10, mean: 0.01, min: 0, max: 0.2 };
  const report = buildReport({
    ...input,
    outputs: [{ output: '39', metrics: { decision, absError } }],
    layers: undefined,
  });

  it('reads the mean decision agreement, not a cosine of n/a; a model with a cosine keeps it', () => {
    expect(Number.isNaN(report.fidelity.meanCosine)).toBe(true);
    expect(headlineFigure(report.outputs, report.fidelity.meanCosine)).toEqual({
      label: 'Mean decision agreement',
      value: 0.9,
      text: '0.9000',
    });
    const html = renderHtml(report);
    expect(html).toMatch(
      /<div class="label">Mean decision agreement[^<]*<\/div><div class="value [a-z]+">0\.9000<\/div>/,
    );
    expect(html).not.toMatch(/Mean output cosine[^<]*<\/div><div class="value[^"]*">n\/a/);
    expect(headlineFigure(buildReport(input).outputs, 0.8273957).label).toBe('Mean output cosine');
  });
});

describe('task pictures', () => {
  it('embed each photo once: the first panel holds it, the others draw it by reference', () => {
    const photo =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const picture = (name: string, k: number) => ({
      name,
      width: 4 + k,
      height: 3,
      agreement: 0.5,
      image: `${photo}#${k}`,
      float: { boxes: [] },
      quantized: { boxes: [] },
      labels: { boxes: [] },
    });
    const html = renderHtml(
      buildReport({
        ...input,
        task: {
          task: 'detect',
          head: 'boxes',
          images: 2,
          scoreThreshold: 0.3,
          agreement: { map: 1 } as never,
          changes: null,
          labels: null,
          perImage: [],
          pictures: [picture('a.jpg', 0), picture('b.jpg', 1)],
        },
      }),
    );
    for (const k of [0, 1]) {
      expect(html.split(`${photo}#${k}`)).toHaveLength(2);
      expect(html.split(`<use href="#task-photo-${k}"/>`)).toHaveLength(3);
    }
    expect(unbalancedTag(html)).toBeNull();
  });
});

describe('the worst layer beside the output (UltraFace: a red 7.47 dB layer beside a green 0.99995 cosine)', () => {
  const card = (outputCosine: number) => {
    const html = renderHtml(
      buildReport({
        ...input,
        outputs: [
          {
            output: 'out',
            metrics: { cosine: { count: 3, mean: outputCosine, min: outputCosine, max: outputCosine } },
          },
        ],
      }),
    );
    return /<div class="card" data-card="worst-layer">(.*?)<\/div><\/div>/.exec(html)?.[1] ?? '';
  };

  it('says the layer is one tensor inside, not the output, and that the later layers absorbed its error', () => {
    const good = card(0.99995);
    expect(good).toContain('−1.30 dB');
    expect(good).toContain('one tensor inside the model, not its output');
    expect(good).toContain('the layers after it absorb this error');
  });

  it('does not say the error was absorbed where the output is off too', () => {
    const poor = card(0.8274);
    expect(poor).toContain('one tensor inside the model, not its output');
    expect(poor).not.toContain('absorb');
  });
});
