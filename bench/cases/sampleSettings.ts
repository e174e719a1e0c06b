/**
 * Which quantization the sample's one click should run: each candidate configuration on the sample's own data, held
 * out. The scenes are drawn by the page's own sample service in Chromium (through a Vite dev server on `devPort`):
 * the 12 calibration scenes, and 30 held-out scenes (the first 6 are the ones the page judges on). Each configuration
 * is calibrated and quantized by `qstudio quantize` and judged by `qstudio evaluate --task detect` (onnxruntime-node,
 * at 'all' and 'basic'): the output cosine, PSNR, and the text boxes against the float model's (mAP, found/lost/added).
 * Usage: sampleSettings.ts <devPort> <label> <qstudio quantize options...>; the scenes are drawn on the first call
 * (bench/tmp/sample-settings, which the suite empties first) and reused by the next.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'vite';
import { withStudioPage } from './browser.ts';
import { TEXT_DETECTOR, textDetectorPreprocess } from './textScenes.ts';

const [devPort, label, ...args] = process.argv.slice(2);
const root = path.resolve(import.meta.dirname, '../..');
const work = path.join(root, 'bench/tmp/sample-settings');
const SETS = [
  ['calibration', 12, 'calib'],
  ['heldOut', 6, 'held-6'],
  ['heldOut', 30, 'held-30'],
] as const;

const sizeFile = path.join(work, 'size.json');
if (!fs.existsSync(sizeFile)) await drawScenes();
const size = JSON.parse(fs.readFileSync(sizeFile, 'utf8')) as { height: number; width: number };

/** The sample's scenes as PNG files, drawn by the page's own code in Chromium. */
async function drawScenes(): Promise<void> {
  const server = await createServer({ root, logLevel: 'error', server: { port: Number(devPort), strictPort: true } });
  await server.listen();
  try {
    await withStudioPage(`http://localhost:${devPort}/`, async (p) => {
      for (const [set, count, dir] of SETS) {
        const drawn = await p.evaluate(
          async ([set, count]) => {
            const { sampleService } = await import('/src/ui/services/sampleService.ts' as string);
            const files: File[] = await sampleService.images(set, count);
            return {
              size: sampleService.size as { height: number; width: number },
              files: await Promise.all(
                files.map(async (f) => ({ name: f.name, bytes: Array.from(new Uint8Array(await f.arrayBuffer())) })),
              ),
            };
          },
          [set, count] as const,
        );
        fs.mkdirSync(path.join(work, dir), { recursive: true });
        for (const f of drawn.files) fs.writeFileSync(path.join(work, dir, f.name), Buffer.from(f.bytes));
        fs.writeFileSync(sizeFile, JSON.stringify(drawn.size));
      }
    });
  } finally {
    await server.close();
  }
}
const preprocess = path.join(work, 'preprocess.json');
fs.writeFileSync(preprocess, JSON.stringify(textDetectorPreprocess(size.height, size.width)));

const float = TEXT_DETECTOR.model;
const qstudio = (args: string[]) =>
  execFileSync(process.execPath, [path.join(root, 'bin/qstudio.js'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 28,
  });

const pct = (v: number) => +(v * 100).toFixed(2);
{
  const out = path.join(work, `${label.replace(/[^\w]+/g, '_')}.onnx`);
  const load = os.loadavg()[0];
  const t0 = performance.now();
  qstudio(['quantize', float, '--calib', path.join(work, 'calib'), '--preprocess', preprocess, '-o', out, ...args]);
  const quantizeSeconds = (performance.now() - t0) / 1000;
  const judged = (dir: string) =>
    JSON.parse(
      qstudio([
        'evaluate',
        float,
        out,
        '--data',
        path.join(work, dir),
        '--preprocess',
        preprocess,
        '--task',
        'detect',
        '--json',
      ]),
    );
  const six = judged('held-6');
  const thirty = judged('held-30');
  const ch = thirty.task.changes;
  console.log(
    JSON.stringify({
      config: label,
      quantizeSeconds: +quantizeSeconds.toFixed(1),
      loadAverage: +load.toFixed(1),
      cosine6All: +six.atDefault.fidelity.meanCosine.toFixed(5),
      cosine6Basic: +six.fidelity.meanCosine.toFixed(5),
      cosine30All: +thirty.atDefault.fidelity.meanCosine.toFixed(5),
      cosine30Basic: +thirty.fidelity.meanCosine.toFixed(5),
      psnr30: +thirty.outputs[0].metrics.psnr.mean.toFixed(2),
      map50_30: pct(thirty.task.agreement.map50),
      map5095_30: pct(thirty.task.agreement.map5095),
      boxes30: `${ch.found} of ${ch.reference} found, ${ch.lost} lost, ${ch.added} added`,
    }),
  );
}
