/** `qstudio evaluate` as a user runs it (UltraFace against its A8W8 quantization, on two photos), and `qstudio suggest` on MNIST. */
import { beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { validateConfig } from '../src/core/quantize/config.ts';
import { fixtureRanges } from './helpers/calibration.ts';
import { COCO_EVAL } from './helpers/evaluation.ts';
import { MODELS } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-evaluate-'));
const data = path.join(tmp, 'data');
const floatPath = path.join(MODELS, 'ultraface-rfb-320.onnx');
const quantPath = path.join(tmp, 'ultraface-a8w8.onnx');

beforeAll(async () => {
  fs.mkdirSync(data);
  for (const f of COCO_EVAL.slice(0, 2)) fs.copyFileSync(f, path.join(data, path.basename(f)));
  const { model, ranges } = await fixtureRanges('ultraface-rfb-320.onnx', getPreset('A8W8'));
  const { model: quantized, report } = quantizeModel(model, ranges, getPreset('A8W8'), 'A8W8');
  fs.writeFileSync(quantPath, encode(quantized));
  // The summary `qstudio quantize` writes beside the model: evaluate reads the configuration from it.
  fs.writeFileSync(path.join(tmp, 'ultraface-a8w8.json'), JSON.stringify(report));
});

describe('qstudio evaluate', () => {
  it("prints Quark's summary per output, the worst layers, and writes a self-contained HTML report", () => {
    const html = path.join(tmp, 'report.html');
    const r = qstudio(
      'evaluate',
      floatPath,
      quantPath,
      '--data',
      data,
      '--preprocess',
      'ultraface',
      '--layers',
      '--report',
      html,
    );
    expect(r.stderr).toMatch(/compared on 2 images/);
    expect(r.code).toBe(0);
    // UltraFace has two outputs: a header for each, Quark's lines under it; onnxruntime's default options first, labelled.
    expect(r.stdout).toMatch(
      /^At onnxruntime's default options \(onnxruntime at graph optimization 'all'[^\n]*\):\n\[scores\]\nMean cos similarity: 0\.99\d*\nMin cos similarity: 0\.99\d*\nMean l2 distance: [\d.]+\nMax l2 distance: [\d.]+\nMean psnr: [\d.]+\nMin psnr: [\d.]+\n\n\[boxes\]\nMean cos similarity: /,
    );
    expect(r.stdout).toMatch(/Worst layers/);
    const rows = r.stdout.split('\n').filter((l) => /^\s+\d+\s+-?[\d.]+\s+[\d.]+/.test(l));
    expect(rows.length).toBe(20);
    // Each node's precision, read from the summary beside the model (issue 15: a column in the layer table).
    expect(r.stdout).toMatch(/op {18}precision {2}node \/ tensor/);
    expect(rows.every((l) => /\s(A8W8|A8|float|—)\s/.test(l))).toBe(true);

    const page = fs.readFileSync(html, 'utf8');
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(page).not.toMatch(/https?:\/\//i);
    expect(page).not.toMatch(/\s(src|href)\s*=|<script|<link|@import|url\(/i);
    expect(page).toContain('ultraface-rfb-320.onnx');
    expect(page).toContain('A8W8');
    expect(page).toMatch(/[0-9a-f]{64}/); // the SHA-256 of the files
    expect(page).toContain('Mean cos similarity: 0.99');
  });

  it('prints the whole report as JSON with --json', () => {
    const r = qstudio(
      'evaluate',
      floatPath,
      quantPath,
      '--data',
      data,
      '--preprocess',
      'ultraface',
      '--json',
      '--limit',
      '1',
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.schema).toBe('quant-studio/report@1');
    expect(json.data.samples).toBe(1);
    expect(json.outputs.map((o: { output: string }) => o.output)).toEqual(['scores', 'boxes']);
    expect(json.fidelity.meanCosine).toBeGreaterThan(0.99);
    expect(json.floatModel.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(json.layers).toBeNull();
  });

  it('qstudio suggest measures each step, prints it, and writes the best configuration', () => {
    const out = path.join(tmp, 'suggested.json');
    const r = qstudio(
      'suggest',
      path.join(MODELS, 'mnist.onnx'),
      '--calib',
      data,
      '--preprocess',
      'unit',
      '--config',
      'XINT8',
      '--target',
      '1',
      '--max-steps',
      '2',
      '-o',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^step 0: starting configuration → cosine 0\.9\d+/m);
    expect(r.stdout).toMatch(/^step 2: exclude (node|subgraph) \S+ .*→ cosine [\d.]+ (kept|not kept)/m);
    expect(r.stdout).toMatch(/did not reach target cosine 1: best cosine [\d.]+ .*stopped: max-steps, 2 step\(s\)/);
    const config = validateConfig(JSON.parse(fs.readFileSync(out, 'utf8')));
    expect(config.scaleType).toBe('powerOfTwo');
  });

  it.each([
    [['evaluate', 'a.onnx'], 1, /give the float model and the quantized model/],
    [['evaluate', 'a.onnx', 'b.onnx'], 1, /--data <dir> is required/],
    [['evaluate', floatPath, quantPath, '--data', path.join(tmp, 'nope')], 2, /DataFolderError/],
  ])('refuses %j with a clear message', (args, code, message) => {
    const r = qstudio(...args);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });
});
