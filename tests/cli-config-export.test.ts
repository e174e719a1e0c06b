/** `qstudio quantize --config <file>` with the configuration file the page exports, exclusions included. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDocumentToJSON } from '../src/core/export/index.ts';
import { decode, encode } from '../src/core/onnx/index.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { CONV_RELU_RANGES, convReluModel } from '../src/core/quantize/testModels.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-config-export-'));
const modelPath = path.join(tmp, 'tiny.onnx');
const rangesPath = path.join(tmp, 'ranges.json');
fs.writeFileSync(modelPath, encode(convReluModel()));
fs.writeFileSync(
  rangesPath,
  JSON.stringify({ ranges: Object.fromEntries([...CONV_RELU_RANGES].map(([k, r]) => [k, [r.min, r.max]])) }),
);

describe('the exported configuration on the command line', () => {
  it('quantizes with the file as is, leaving its picks float', () => {
    const configPath = path.join(tmp, 'tiny.qstudio.json');
    // convReluModel's nodes have no names: the picks are the studio's ids Conv_0, Relu_1.
    fs.writeFileSync(
      configPath,
      configDocumentToJSON(getPreset('U8S8'), {
        model: 'tiny.onnx',
        settings: { preset: 'U8S8', perChannel: false, useRandomData: false },
        exclusions: [{ kind: 'nodes', name: 'first conv', nodes: ['Conv_0'] }],
      }),
    );
    const out = path.join(tmp, 'tiny.quant.onnx');
    const r = qstudio('quantize', modelPath, '--ranges', rangesPath, '--config', configPath, '-o', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(fs.readFileSync(path.join(tmp, 'tiny.quant.json'), 'utf8'));
    expect(summary.exclusions).toEqual([{ rule: 'node Conv_0', ids: ['Conv_0'] }]);
    expect(summary.float.map((f: { id: string }) => f.id)).toContain('Conv_0');
    // The written Conv reads its float weight directly: no DequantizeLinear feeds it.
    const written = decode(fs.readFileSync(out));
    const conv = written.graph!.node.find((n) => n.name === 'Conv_0')!;
    expect(conv.input[1]).toBe('w');
  });

  it('names the file and the entry when a pick names no node of the model', () => {
    const configPath = path.join(tmp, 'bad.json');
    fs.writeFileSync(
      configPath,
      configDocumentToJSON(getPreset('U8S8'), {
        model: null,
        settings: null,
        exclusions: [{ kind: 'nodes', name: 'typo', nodes: ['Conv_7'] }],
      }),
    );
    const r = qstudio(
      'quantize',
      modelPath,
      '--ranges',
      rangesPath,
      '--config',
      configPath,
      '-o',
      path.join(tmp, 'bad.onnx'),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ExclusionError|Conv_7/);
  });
});
