/**
 * docs/NOTES.md's held-out protocol as folders the command line can read: the first 16 COCO images to calibrate (and tune) on,
 * the last 8 to judge on, linked into bench/tmp; and a detector's preprocessing as a file `--preprocess` takes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { cosineSimilarity } from '../../src/core/metrics/index.ts';
import { DETECTORS } from './detectors.ts';

const root = path.resolve(import.meta.dirname, '../..');
const coco = path.resolve(root, '../shared/fixtures/images/coco');

function linkFolder(name: string, files: readonly string[]): string {
  const dir = path.join(root, 'bench/tmp', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of files) fs.symlinkSync(f, path.join(dir, path.basename(f)));
  return dir;
}

/** The held-out split's image files: COCO 1–16 to calibrate (and tune) on, 17–24 to judge on, in name order. */
export function heldOutFiles(): { calibration: string[]; evaluation: string[] } {
  const files = listImageFiles(coco).files;
  return { calibration: files.slice(0, 16), evaluation: files.slice(16, 24) };
}

/** { calib, judge } folders of heldOutFiles. */
export function heldOutFolders(): { calib: string; judge: string } {
  const { calibration, evaluation } = heldOutFiles();
  return { calib: linkFolder('coco-calib', calibration), judge: linkFolder('coco-judge', evaluation) };
}

/** The detector's preprocessing written as a JSON file for `--preprocess`. */
export function preprocessFile(model: string): string {
  const file = path.join(root, 'bench/tmp', `${model}.preprocess.json`);
  fs.writeFileSync(file, JSON.stringify(DETECTORS[model].preprocess));
  return file;
}

type Outputs = Readonly<Record<string, { readonly data: unknown }>>;

/**
 * The judge's score of one sample: Quark's mean output cosine of `quantized` to `float` over the outputs
 * where it is defined. An output that is all zeros on either side has no cosine (0/0: a face detector's
 * objectness on a photo without faces can quantize to zeros); those are counted apart, never averaged in.
 */
export function sampleCosine(float: Outputs, quantized: Outputs): { cosine: number | null; undefinedOutputs: number } {
  const perOutput = outputCosines(float, quantized);
  const defined = perOutput.filter(Number.isFinite);
  return {
    cosine: defined.length ? defined.reduce((x, y) => x + y, 0) / defined.length : null,
    undefinedOutputs: perOutput.length - defined.length,
  };
}

/** Each output's cosine of `quantized` to `float`, in the float outputs' order; NaN where it is undefined (all zeros). */
export function outputCosines(float: Outputs, quantized: Outputs): number[] {
  return Object.keys(float).map((k) =>
    cosineSimilarity(float[k].data as Float32Array, quantized[k].data as Float32Array),
  );
}

/**
 * Mean over samples of the mean cosine over the outputs defined in both `a` and `b` (per sample, per output;
 * null marks an undefined one): two methods judged on the same outputs even when each quantizes different
 * ones to all zeros. Null when no sample has an output defined in both.
 */
export function sharedMeanCosine(
  a: readonly (readonly (number | null)[])[],
  b: readonly (readonly (number | null)[])[],
): number | null {
  const means: number[] = [];
  a.forEach((outputs, i) => {
    const both = outputs.filter((c, k): c is number => c !== null && b[i]?.[k] != null);
    if (both.length) means.push(both.reduce((x, y) => x + y, 0) / both.length);
  });
  return means.length ? means.reduce((x, y) => x + y, 0) / means.length : null;
}
