/**
 * One real model from an npm package (tests/helpers/npmModels.ts) through the command line as a user runs it:
 * calibrate and quantize with <preset> on 16 samples (tensors for audio models, text-line photos for PaddleOCR,
 * --preprocess auto), the written model loaded at onnxruntime's default options and 'basic' (quantize refuses to
 * report otherwise), then judged on 8 held-out samples at 'basic' and 'all' (evaluate --cpu-kernels): the mean
 * output cosine over outputs. Usage: npmCorpus.ts <model name> <preset>.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NPM_MODELS, npmModelPath, writeTensorFolder } from '../../tests/helpers/npmModels.ts';

const [name, preset] = process.argv.slice(2);
const m = NPM_MODELS.find((x) => x.name === name)!;
const model = npmModelPath(m);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `qs-bench-npm-${name}-`));
const bin = path.join(import.meta.dirname, '../../bin/qstudio.js');
const qstudio = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

let calib: string;
let held: string;
const images = name.startsWith('ppocr') || name.startsWith('isnet');
if (images) {
  // Text lines for PaddleOCR; COCO photos for the background-removal model.
  const lines = path.join(
    import.meta.dirname,
    '../../../shared/fixtures/images',
    name.startsWith('isnet') ? 'coco' : 'textlines',
  );
  const files = fs
    .readdirSync(lines)
    .filter((f) => /\.(png|jpe?g)$/i.test(f))
    .sort();
  calib = path.join(tmp, 'calib');
  held = path.join(tmp, 'held');
  // At 1024 × 1024 ISNet calibrates on 4 photos and is judged on 2 (minutes a photo on 2 shared cores).
  const [c, h] = name.startsWith('isnet') ? [4, 2] : [16, 8];
  for (const [dir, list] of [
    [calib, files.slice(0, c)],
    [held, files.slice(c, c + h)],
  ] as const) {
    fs.mkdirSync(dir);
    for (const f of list) fs.copyFileSync(path.join(lines, f), path.join(dir, f));
  }
} else {
  calib = await writeTensorFolder(m, path.join(tmp, 'calib'), 0, 16);
  held = await writeTensorFolder(m, path.join(tmp, 'held'), 100, 8);
}
const pre = images ? ['--preprocess', 'auto'] : [];
const out = path.join(tmp, `${name}.${preset}.onnx`);
const t0 = performance.now();
const q = qstudio('quantize', model, '--calib', calib, ...pre, '--config', preset, '-o', out);
const seconds = (performance.now() - t0) / 1000;
const summary = q.status === 0 ? JSON.parse(fs.readFileSync(out.replace(/\.onnx$/, '.json'), 'utf8')) : null;
// ISNet's first output is the mask; the other eleven are side outputs and decoder features the package never reads,
// which the mean over outputs weighs eleven times more: ISNet is evaluated once, in JSON, and its mask judged alone.
const isnet = name.startsWith('isnet');
const e = q.status === 0 && !isnet ? qstudio('evaluate', model, out, '--data', held, ...pre, '--cpu-kernels') : null;
const maskJson =
  q.status === 0 && isnet ? qstudio('evaluate', model, out, '--data', held, ...pre, '--cpu-kernels', '--json') : null;
type Stat = { mean: unknown; min: unknown };
type OutputFigures = { output: string; metrics: Record<string, Stat | undefined> };
const maskReport =
  maskJson?.status === 0
    ? (JSON.parse(maskJson.stdout) as { outputs: OutputFigures[]; atDefaultOptions?: { outputs: OutputFigures[] } })
    : null;
/** The mean over outputs of one metric's mean (as the text path's means), from the JSON report. */
const meanOver = (outputs: OutputFigures[] | undefined, metric: string, digits: number) => {
  const values = (outputs ?? []).map((o) => o.metrics[metric]?.mean).filter((v): v is number => Number.isFinite(v));
  return values.length ? +(values.reduce((a, b) => a + b, 0) / values.length).toFixed(digits) : null;
};
/** The mask output's figures: cosine at 'all' and 'basic' (mean and worst sample), PSNR and SSIM at 'basic'. */
const maskAlone = (() => {
  if (!maskJson) return '';
  const report = maskReport;
  if (!report) return '';
  const maskName = report.outputs[0].output;
  const basic = report.outputs[0].metrics;
  const all = report.atDefaultOptions?.outputs.find((o) => o.output === maskName)?.metrics;
  const n = (v: unknown, digits = 5) => (typeof v === 'number' ? v.toFixed(digits) : String(v));
  return (
    `${maskName}: cosine ${n(all?.cosine?.mean)} all (worst ${n(all?.cosine?.min)}), ${n(basic.cosine?.mean)} basic; ` +
    `PSNR ${n(basic.psnr?.mean, 2)} dB, SSIM ${n(basic.ssim?.mean, 4)} basic`
  );
})();
/** Mean of the defined "Mean cos similarity" lines of one block of evaluate's text (an all-zero output has none: Quark's 0/0). */
const meanCosine = (text: string) => {
  const values = [...text.matchAll(/Mean cos similarity: ([-\w.]+)/g)].map((x) => Number(x[1])).filter(Number.isFinite);
  return values.length ? +(values.reduce((a, b) => a + b, 0) / values.length).toFixed(5) : null;
};
/** The first "Mean <label>: x" of a block (single-probability outputs: decision agreement at 0.5, absolute error). */
const first = (text: string, label: string) => {
  const x = new RegExp(`Mean ${label}: ([-\\w.]+)`).exec(text);
  return x ? +Number(x[1]).toPrecision(5) : null;
};
const meanPsnr = (text: string) => {
  const values = [...text.matchAll(/Mean psnr: ([-\w.]+)/g)].map((x) => Number(x[1])).filter(Number.isFinite);
  return values.length ? +(values.reduce((a, b) => a + b, 0) / values.length).toFixed(2) : null;
};
// evaluate --cpu-kernels prints the default-options ('all') block, then the model's own arithmetic ('basic').
const text = e?.status === 0 ? e.stdout : '';
const [allText, basicText] = text.includes("The model's own arithmetic")
  ? text.split("The model's own arithmetic")
  : ['', text];
console.log(
  JSON.stringify({
    model: name,
    kind: m.kind,
    preset,
    data: name.startsWith('isnet') ? 'COCO photos 4 / 2' : images ? 'text-line photos 16 / 8' : 'tensors 16 / 8',
    quantized: summary
      ? `${summary.counts.quantized} of ${summary.counts.nodes}`
      : `refused: ${(q.stderr || '').trim().split('\n').pop()}`,
    subgraphNodes: summary?.subgraphs ? `${summary.subgraphs.quantized ?? 0} of ${summary.subgraphs.nodes}` : '',
    loads: q.status === 0 ? 'all, basic' : 'no',
    cosineBasic: maskReport ? meanOver(maskReport.outputs, 'cosine', 5) : meanCosine(basicText),
    cosineAll: maskReport ? meanOver(maskReport.atDefaultOptions?.outputs, 'cosine', 5) : meanCosine(allText),
    psnrBasic: maskReport ? meanOver(maskReport.outputs, 'psnr', 2) : meanPsnr(basicText),
    decisionAll: first(allText, 'decision agreement'),
    absErrorAll: first(allText, 'absolute error'),
    maskAlone,
    evaluate: [e, maskJson].every((x) => x === null)
      ? 'not run'
      : [e, maskJson].every((x) => x === null || x.status === 0)
        ? 'ok'
        : ((e ?? maskJson)!.stderr || '').trim().split('\n').pop(),
    quantizeSeconds: +seconds.toFixed(1),
  }),
);
