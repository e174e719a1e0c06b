/**
 * imgly's ISNet background remover (tests/helpers/npmModels.ts, float16, 1024 × 1024) judged as a segmentation model:
 * quantized by the command line with <preset> (and any further quantize arguments) on 4 COCO photos, then `qstudio evaluate --task segment` on 4 other
 * photos (held out): the mask output thresholded at 0.5 (the segmentation head, core/task), mIoU of the quantized
 * model's mask against the float model's (background and foreground), at onnxruntime's default options ('all') and at
 * 'basic', with the foreground IoU and the mean output cosine beside it. Usage: isnetMask.ts <preset> [quantize args...].
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NPM_MODELS, npmModelPath } from '../../tests/helpers/npmModels.ts';

const [preset = 'A8W8', ...quantizeArgs] = process.argv.slice(2);
const model = npmModelPath(NPM_MODELS.find((x) => x.name === 'isnet_fp16')!);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-bench-isnet-mask-'));
const bin = path.join(import.meta.dirname, '../../bin/qstudio.js');
const qstudio = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });

const photos = path.join(import.meta.dirname, '../../../shared/fixtures/images/coco');
const files = fs
  .readdirSync(photos)
  .filter((f) => /\.(png|jpe?g)$/i.test(f))
  .sort();
const [CALIBRATION, HELD_OUT] = [4, 4];
const calib = path.join(tmp, 'calib');
const held = path.join(tmp, 'held');
for (const [dir, list] of [
  [calib, files.slice(0, CALIBRATION)],
  [held, files.slice(CALIBRATION, CALIBRATION + HELD_OUT)],
] as const) {
  fs.mkdirSync(dir);
  for (const f of list) fs.copyFileSync(path.join(photos, f), path.join(dir, f));
}

const out = path.join(tmp, `isnet.${preset}.onnx`);
const t0 = performance.now();
const q = qstudio(
  'quantize',
  model,
  '--calib',
  calib,
  '--preprocess',
  'auto',
  '--config',
  preset,
  ...quantizeArgs,
  '-o',
  out,
);
const quantizeSeconds = (performance.now() - t0) / 1000;
if (q.status !== 0) throw new Error(`quantize failed: ${q.stderr.trim().split('\n').pop()}`);
const t1 = performance.now();
const e = qstudio('evaluate', model, out, '--data', held, '--preprocess', 'auto', '--task', 'segment', '--json');
const evaluateSeconds = (performance.now() - t1) / 1000;
if (e.status !== 0) throw new Error(`evaluate failed: ${e.stderr.trim().split('\n').pop()}`);
const report = JSON.parse(e.stdout);
const summary = JSON.parse(fs.readFileSync(out.replace(/\.onnx$/, '.json'), 'utf8'));

type Figures = { miou?: number; classes?: { label: number; iou?: number }[] };
/** The foreground's IoU (class 1 of the thresholded mask). */
const foreground = (f: Figures | undefined) => f?.classes?.find((c) => c.label === 1)?.iou ?? null;
const round = (v: number | null | undefined, digits = 5) => (typeof v === 'number' ? +v.toFixed(digits) : null);
const meanCosine = (outputs: { metrics: Record<string, { mean?: number }> }[]) => {
  const values = outputs.map((o) => o.metrics.cosine?.mean).filter((v): v is number => Number.isFinite(v));
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
};
const basic: Figures | undefined = report.task?.agreement;
const all: Figures | undefined = report.atDefaultOptions?.task?.agreement;
console.log(
  JSON.stringify({
    model: 'isnet_fp16',
    preset,
    ...(quantizeArgs.length ? { args: quantizeArgs.join(' ') } : {}),
    head: report.task?.head ?? null,
    data: `COCO photos ${CALIBRATION} / ${HELD_OUT} (held out: ${files.slice(CALIBRATION, CALIBRATION + HELD_OUT).join(', ')})`,
    quantized: `${summary.counts.quantized} of ${summary.counts.nodes}`,
    miouAll: round(all?.miou),
    miouBasic: round(basic?.miou),
    perImageBasic: (report.task?.perImage ?? [])
      .map((i: { name: string; agreement: number }) => `${i.name} ${round(i.agreement, 3)}`)
      .join(', '),
    foregroundIouAll: round(foreground(all)),
    foregroundIouBasic: round(foreground(basic)),
    cosineAll: round(meanCosine(report.atDefaultOptions?.outputs ?? [])),
    cosineBasic: round(meanCosine(report.outputs ?? [])),
    quantizeSeconds: +quantizeSeconds.toFixed(1),
    evaluateSeconds: +evaluateSeconds.toFixed(1),
  }),
);
// The evaluation's JSON stays for inspection; the models go.
fs.writeFileSync(path.join(tmp, 'evaluate.json'), e.stdout);
for (const f of fs.readdirSync(tmp)) if (f.endsWith('.onnx')) fs.rmSync(path.join(tmp, f));
process.stderr.write(`evaluation JSON: ${path.join(tmp, 'evaluate.json')}\n`);
