/**
 * The calibration folder the sharding CLI tests share: five real photos (a JPEG and four PNGs) copied into a
 * fresh temporary folder, MNIST as the model (small enough for many calibrations), and a gray preprocessing file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES, MODELS } from './fixtures.ts';

export function shardFolder(prefix: string): { tmp: string; calib: string; model: string; preprocess: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const calib = path.join(tmp, 'calib');
  fs.mkdirSync(calib);
  for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png', 'chelsea.png', 'coffee.png'])
    fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
  const preprocess = path.join(tmp, 'gray.json');
  fs.writeFileSync(preprocess, '{"colorSpace": "gray"}');
  return { tmp, calib, model: path.join(MODELS, 'mnist.onnx'), preprocess };
}
