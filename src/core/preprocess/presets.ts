/**
 * Named preprocessing specs for the model families people quantize most, each matching the
 * preprocessing its authors' reference code applies (cited per preset).
 *
 * A preset is only a starting point: it is a full `PreprocessSpec`, so the page shows it in the
 * form and the user edits any field; what is recorded and exported is the spec, never the name.
 * Presets carry no `dims` (those belong to a model, not to a family).
 */
import { PreprocessError } from './errors.ts';
import { DEFAULT_PREPROCESS, type PreprocessSpec } from './spec.ts';

export const PRESET_NAMES = [
  'imagenet',
  'unit',
  'yolo',
  'ultralytics',
  'ultraface',
  'y-channel',
  'bgr-255',
  'paddleocr-det',
  'paddleocr-rec',
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** One line per preset, for menus and `--help`. */
export const PRESET_DESCRIPTIONS: Readonly<Record<PresetName, string>> = {
  imagenet: 'RGB 0–1, ImageNet mean/std, short side resized then center crop (torchvision classifiers)',
  unit: 'RGB 0–1, stretched to the input size, no mean/std',
  yolo: 'BGR 0–255, letterbox at top-left padded with 114, no normalisation (YOLOX)',
  ultralytics: 'RGB 0–1, letterbox centered padded with 114 (Ultralytics YOLOv5/v8/11)',
  ultraface: 'RGB (x − 127) / 128, stretched (UltraFace face detector)',
  'y-channel': 'Y of YCbCr in 0–1 for one-channel inputs, stretched (super-resolution)',
  'bgr-255': 'BGR 0–255, stretched, no normalisation (OpenCV-style detectors such as YuNet)',
  'paddleocr-det': 'BGR 0–1, ImageNet mean/std, stretched (PaddleOCR text detector)',
  'paddleocr-rec': 'BGR (x/255 − 0.5) / 0.5, stretched (PaddleOCR text recognizer and direction classifier)',
};

const PRESETS: Readonly<Record<PresetName, Partial<PreprocessSpec>>> = {
  // torchvision's ImageNet recipe: Resize + CenterCrop, ToTensor (x / 255), Normalize(mean, std).
  // torchvision resizes the short side to 256 before a 224 crop; 'crop' here fills the input exactly.
  imagenet: {
    resize: 'crop',
    channelOrder: 'RGB',
    scale: 1 / 255,
    mean: [0.485, 0.456, 0.406],
    std: [0.229, 0.224, 0.225],
  },
  unit: {},
  // YOLOX `preproc` (yolox/data/data_augment.py): cv2 BGR image, resized by min ratio with
  // INTER_LINEAR into a 114-filled canvas at (0, 0), HWC → CHW float, no scaling (legacy=False).
  yolo: {
    resize: 'letterbox',
    letterboxAlign: 'topLeft',
    padValue: 114,
    channelOrder: 'BGR',
    scale: 1,
    mean: [0],
    std: [1],
  },
  // UltraFace's ONNX demo: cv2.resize to 320×240, RGB, (x − 127) / 128.
  ultraface: { resize: 'stretch', channelOrder: 'RGB', scale: 1, mean: [127], std: [128] },
  // ONNX model zoo super-resolution-10: PIL resize, convert('YCbCr'), Y plane, ToTensor (x / 255).
  'y-channel': { resize: 'stretch', colorSpace: 'Y', scale: 1 / 255, mean: [0], std: [1] },
  // OpenCV's FaceDetectorYN feeds YuNet a BGR 0–255 image resized to the input size.
  'bgr-255': { resize: 'stretch', channelOrder: 'BGR', scale: 1, mean: [0], std: [1] },
  // Ultralytics `LetterBox` (ultralytics/data/augment.py): centered, padded with 114, BGR→RGB, / 255.
  ultralytics: {
    resize: 'letterbox',
    letterboxAlign: 'center',
    padValue: 114,
    channelOrder: 'RGB',
    scale: 1 / 255,
    mean: [0],
    std: [1],
  },
  // PaddleOCR det (`DetResizeForTest` + `NormalizeImage`, tools/infer/predict_det.py): the cv2 BGR image,
  // resized to multiples of 32, x / 255 then ImageNet's mean/std, which PaddleOCR applies to B, G, R as
  // they come (its configs list the RGB values; the images are never converted).
  'paddleocr-det': {
    resize: 'stretch',
    channelOrder: 'BGR',
    scale: 1 / 255,
    mean: [0.485, 0.456, 0.406],
    std: [0.229, 0.224, 0.225],
  },
  // PaddleOCR rec and cls (`resize_norm_img`, tools/infer/predict_rec.py, predict_cls.py): BGR,
  // x / 255, − 0.5, / 0.5. PaddleOCR keeps the aspect ratio and pads the right with zeros; the
  // calibration crops are made at the input size, so stretching them is the same resize.
  'paddleocr-rec': { resize: 'stretch', channelOrder: 'BGR', scale: 1 / 255, mean: [0.5], std: [0.5] },
};

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** A fresh copy of a preset's full spec (safe to edit); throws PreprocessError for an unknown name. */
export function getPreprocessPreset(name: string): PreprocessSpec {
  if (!isPresetName(name)) {
    throw new PreprocessError(`Unknown preprocessing preset "${name}"; the presets are ${PRESET_NAMES.join(', ')}.`);
  }
  const spec: PreprocessSpec = { ...DEFAULT_PREPROCESS, ...PRESETS[name] };
  return { ...spec, mean: [...spec.mean], std: [...spec.std], dims: { ...spec.dims } };
}
