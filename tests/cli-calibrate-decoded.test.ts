/**
 * `quantize --mixed-precision` decodes its --calib folder once: calibrateDecoded on the decoded samples gives the ranges
 * calibrateFolder gives decoding the folder itself (same images, same preprocessing), and names the skipped file too.
 */
import { describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calibrateDecoded, calibrateFolder } from '../src/cli/calibration/calibrateFolder.ts';
import { folderFeeds } from '../src/cli/data/dataFeeds.ts';
import { readModelFile } from '../src/cli/modelFile.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-decoded-'));
const calib = path.join(tmp, 'calib');
fs.mkdirSync(calib);
for (const f of ['grace_hopper.jpg', 'astronaut.png'])
  fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
fs.writeFileSync(path.join(calib, 'broken.jpg'), 'not an image');

describe('calibrateDecoded', () => {
  it('gives calibrateFolder ranges from the samples decoded once', async () => {
    const model = readModelFile(path.join(MODELS, 'ultraface-rfb-320.onnx')).model;
    const config = getPreset('A8W8');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const folder = await calibrateFolder(model, calib, config, 'ultraface');
      const decoded = await calibrateDecoded(model, folderFeeds(model, calib, 'ultraface'), config);
      expect(decoded.images).toBe(2);
      expect(decoded.ranges.size).toBe(folder.ranges.size);
      for (const [tensor, r] of folder.ranges) expect(decoded.ranges.get(tensor), tensor).toEqual(r);
      expect(decoded.skipped.map((s) => s.file)).toEqual(folder.skipped.map((s) => s.file));
    } finally {
      stderr.mockRestore();
    }
  });
});
