/**
 * The text scenes the calibration bench judges the PP-OCRv4 detector on (bench/cases/textScenes.ts): the
 * calibration and held-out sets share no line and no background, the PNG files hold exactly the in-memory
 * pixels, the same scene comes out identical twice, and the float detector sees the pasted text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_DETECTOR, textScenes, textSceneSources, writeTextScenes } from '../bench/cases/textScenes.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { imageToTensor } from '../src/core/preprocess/toTensor.ts';

describe('text scenes', () => {
  it('calibration and held-out sets share no text line and no background', () => {
    const calib = textSceneSources('calib');
    const judge = textSceneSources('judge');
    expect(calib.backgrounds).toHaveLength(16);
    expect(judge.backgrounds).toHaveLength(21);
    expect(calib.lines.filter((l) => judge.lines.includes(l))).toEqual([]);
    expect(calib.backgrounds.filter((b) => judge.backgrounds.includes(b))).toEqual([]);
  });

  it('is deterministic, and its PNG files decode to the same pixels', () => {
    const [a] = textScenes('calib', 1);
    const [b] = textScenes('calib', 1);
    expect(Buffer.from(a.image.data).equals(Buffer.from(b.image.data))).toBe(true);
    expect(a.lines.length).toBeGreaterThanOrEqual(4);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'text-scenes-'));
    try {
      writeTextScenes('judge', dir);
      const [first] = textScenes('judge', 1);
      const read = decodeImageFile(path.join(dir, first.name));
      expect(Buffer.from(read.data).equals(Buffer.from(first.image.data))).toBe(true);
      expect(fs.readdirSync(dir)).toHaveLength(21);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the float detector finds the pasted lines (text map far higher inside them than outside)', async () => {
    const [scene] = textScenes('judge', 1);
    const t = imageToTensor(scene.image, TEXT_DETECTOR.inputShape, TEXT_DETECTOR.preprocess);
    const session = await createSession(fs.readFileSync(TEXT_DETECTOR.model));
    const out = Object.values(await session.run({ [session.inputNames[0]]: float32Tensor(t.data, t.dims) }))[0];
    await session.release();
    const map = out.data as Float32Array;
    const inside = new Uint8Array(map.length);
    for (const b of scene.lines)
      for (let y = b.y; y < b.y + b.height; y++) inside.fill(1, y * 640 + b.x, y * 640 + b.x + b.width);
    let sumIn = 0,
      nIn = 0,
      sumOut = 0;
    for (let i = 0; i < map.length; i++)
      if (inside[i]) {
        sumIn += map[i];
        nIn++;
      } else sumOut += map[i];
    const meanIn = sumIn / nIn;
    const meanOut = sumOut / (map.length - nIn);
    expect(meanIn).toBeGreaterThan(0.05);
    expect(meanIn).toBeGreaterThan(10 * meanOut);
  });
});
