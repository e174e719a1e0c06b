/** The fixture detectors as the benchmarks use them: preprocessing, and the post-processing tail to exclude. */
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';

export interface Detector {
  preprocess: PreprocessSpec;
  /** Quark subgraphs_to_exclude entry for the output tail the reference advises keeping in float. */
  tail: { starts: string[]; ends: string[] };
}

export const DETECTORS: Record<string, Detector> = {
  'ultraface-rfb-320.onnx': {
    preprocess: getPreprocessPreset('ultraface'),
    tail: { starts: ['Slice_217', 'Slice_224'], ends: ['Concat_241'] },
  },
  'ultraface-rfb-320-nopost.onnx': {
    preprocess: getPreprocessPreset('ultraface'),
    // The same network without its box-decoding tail: nothing to exclude.
    tail: { starts: [], ends: [] },
  },
  'yolox-nano.onnx': {
    preprocess: getPreprocessPreset('yolo'),
    tail: { starts: ['Concat_331', 'Concat_364', 'Concat_397'], ends: ['Transpose_423'] },
  },
  'yunet-n-dynamic.onnx': {
    preprocess: validatePreprocess({
      ...getPreprocessPreset('bgr-255'),
      resize: 'stretch',
      dims: { batch: 1, height: 320, width: 320 },
    }),
    // YuNet has no joint tail: its 12 outputs leave the heads directly; nothing to exclude.
    tail: { starts: [], ends: [] },
  },
};
