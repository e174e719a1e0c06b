import { describe, expect, it } from 'vitest';
import { paritySection } from './paritySection.ts';
import type { ParityRow } from '../evaluate/parity.ts';

const row = (p: Partial<ParityRow>): ParityRow => ({
  runtime: 'wasm',
  label: 'WASM (reference)',
  model: 'float',
  cosine: 1,
  agreement: 1,
  flagged: false,
  parting: null,
  error: null,
  seconds: 0.1,
  ...p,
});

describe("the report's parity section", () => {
  it('is empty without a check; lists every runtime, the flagged one with where it parts, escaped, and the missing runtimes', () => {
    expect(paritySection(null)).toBe('');
    const html = paritySection({
      samples: 2,
      unavailable: [{ id: 'webnn', label: 'WebNN', reason: 'this browser exposes no WebNN (navigator.ml)' }],
      rows: [
        row({}),
        row({
          runtime: 'webgpu-jsep',
          label: 'WebGPU, JSEP <build>',
          model: 'quantized',
          cosine: -0.19,
          agreement: -0.18,
          flagged: true,
          parting: {
            tensor: 'w_dq',
            node: 'w_DequantizeLinear',
            opType: 'DequantizeLinear',
            relativeError: 1.5,
            floatNodeId: 'n1',
            floatNodeName: 'Conv_1',
          },
        }),
        row({ runtime: 'webgpu', label: 'WebGPU', model: 'float', error: 'no adapter' }),
      ],
    });
    expect(html).toContain('<h2>Parity across runtimes</h2>');
    expect(html).toContain('WebGPU, JSEP &lt;build&gt; (quantized)');
    expect(html).toContain('first parts at <code>w_DequantizeLinear</code> (DequantizeLinear');
    expect(html).toContain('feeding <code>Conv_1</code>');
    expect(html).toContain('did not run: no adapter');
    expect(html).toContain('WebNN: this browser exposes no WebNN');
  });
});
