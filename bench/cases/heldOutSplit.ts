/**
 * The held-out splits the preset benchmarks judge on, each with its judge at either onnxruntime level: 'all'
 * (onnxruntime's default: Q/DQ fused into the CPU provider's int8 kernels) or 'basic' (the model's own Q/DQ
 * arithmetic). The PP-OCRv4 text detector on textScenes' 16 calibration / 21 held-out scenes (mean output cosine;
 * `ppocr-det-photos` calibrates on 19 photos without text instead, as the issue that found the fold's loss did);
 * the PP-OCRv4 recognizer on text lines 00–15 / 16–31 (lines decoding to the float text, CER, step top-1); the
 * fixture detectors on COCO 1–16 / 17–24 (mean output cosine). The float model is judged at the same level.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode, type ModelProto } from '../../src/core/onnx/index.ts';
import { cosineSimilarity } from '../../src/core/metrics/index.ts';
import { createSession, float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import { TEXT_DETECTOR, textSceneFeeds } from './textScenes.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { DETECTORS } from './detectors.ts';

export const HELD_OUT_TARGETS = ['ppocr-det', 'ppocr-det-photos', 'ppocr-rec', ...Object.keys(DETECTORS)] as const;

export interface Split {
  model: ModelProto;
  calib: Feeds[];
  /** Scores a written model at a level: { cosine } or the recognizer's text figures. */
  judge: (bytes: Uint8Array, level: GraphOptimization) => Promise<Record<string, number | string>>;
  images: string;
}

/** Mean output cosine of `bytes` against the float model over `feeds` at `level` (the float model at the same level). */
function cosineJudge(floatBytes: Uint8Array, feeds: Feeds[]): Split['judge'] {
  const references = new Map<GraphOptimization, Float32Array[][]>();
  const outputs = async (bytes: Uint8Array, level: GraphOptimization) => {
    const s = await createSession(bytes, 0, level);
    const out: Float32Array[][] = [];
    for (const f of feeds) out.push(Object.values(await s.run(f)).map((t) => t.data as Float32Array));
    await s.release();
    return out;
  };
  return async (bytes, level) => {
    if (!references.has(level)) references.set(level, await outputs(floatBytes, level));
    const ref = references.get(level)!;
    const got = await outputs(bytes, level);
    let sum = 0,
      n = 0;
    // An output that is all zeros in both models (YuNet's heads on an image without faces) has no cosine: left out.
    let undefinedCosines = 0;
    got.forEach((outs, i) =>
      outs.forEach((o, k) => {
        const c = cosineSimilarity(ref[i][k], o);
        if (Number.isFinite(c)) {
          sum += c;
          n++;
        } else undefinedCosines++;
      }),
    );
    return { cosine: +(sum / n).toFixed(5), ...(undefinedCosines > 0 ? { undefinedCosines } : {}) };
  };
}

/** The split of `target` (one of HELD_OUT_TARGETS). */
export function heldOutSplit(target: string): Split {
  if (target === 'ppocr-det' || target === 'ppocr-det-photos') {
    const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
    const asFeeds = (set: 'calib' | 'judge') => textSceneFeeds(set).map((t) => ({ x: float32Tensor(t.data, t.dims) }));
    const judge = cosineJudge(encode(model), asFeeds('judge'));
    if (target === 'ppocr-det')
      return { model, calib: asFeeds('calib'), judge, images: 'textScenes 16 calibration / 21 held-out scenes' };
    // The way: calibrated on photos (no text pasted), judged on the text scenes.
    const images = path.resolve(import.meta.dirname, '../../../shared/fixtures/images');
    const photos = [
      ...listImageFiles(path.join(images, 'photos')).files,
      ...listImageFiles(path.join(images, 'coco')).files.slice(0, 6),
    ];
    return {
      model,
      calib: imageFeeds(model, { files: photos }, TEXT_DETECTOR.preprocess).feeds,
      judge,
      images: `${photos.length} photos (13 photos, COCO 1–6) calibration / 21 held-out text scenes`,
    };
  }
  if (target === 'ppocr-rec') {
    const model = decode(fs.readFileSync(RECOGNIZER_PATH));
    const { calibration, evaluation } = textLineFiles();
    const judges = new Map<GraphOptimization, ReturnType<typeof createTextJudge>>();
    return {
      model,
      calib: calibration.map((f) => ({ x: textLineTensor(f) })),
      judge: async (bytes, level) => {
        if (!judges.has(level)) judges.set(level, createTextJudge(encode(model), evaluation, level));
        const { kl: _kl, ...text } = await (await judges.get(level)!)(bytes);
        return text;
      },
      images: 'text lines 00–15 / 16–31',
    };
  }
  if (!DETECTORS[target]) throw new Error(`unknown target "${target}": give one of ${HELD_OUT_TARGETS.join(', ')}`);
  const model = decode(fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/models', target)));
  const files = listImageFiles(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/coco')).files;
  const feeds = (list: string[]) => imageFeeds(model, { files: list }, DETECTORS[target].preprocess).feeds;
  return {
    model,
    calib: feeds(files.slice(0, 16)),
    judge: cosineJudge(encode(model), feeds(files.slice(16, 24))),
    images: 'COCO 1–16 / 17–24',
  };
}
