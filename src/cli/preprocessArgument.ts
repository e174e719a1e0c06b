/**
 * `--preprocess <auto|preset|file.json>`: the model's recognised preprocessing (`auto`, which prints
 * what it chose and why), a preset name, or the JSON the page exports. Without it, the recognised
 * preprocessing is used, as the page's form starts from it (a model of no known family gets 'unit', RGB
 * scaled to 0–1), and the note says so. In every case the model's symbolic input dimensions the spec
 * leaves open get a value (the recognised family's usual size, else a default; core defaultDims.ts),
 * and the note says which.
 */
import { buildGraphIndex, summarize, type ModelProto } from '../core/onnx/index.ts';
import { defaultImageDims } from '../core/preprocess/defaultDims.ts';
import { getPreprocessPreset, isPresetName, PRESET_NAMES } from '../core/preprocess/presets.ts';
import {
  describeGuess,
  MODEL_FAMILIES,
  recognizePreprocess,
  type PreprocessGuess,
} from '../core/preprocess/recognize.ts';
import { parsePreprocess, type PreprocessSpec } from '../core/preprocess/spec.ts';
import { readInputFile } from './usage.ts';
import { NotAnImageModelError } from '../core/calibrate/errors.ts';
import { TENSOR_CONVENTION } from './data/dataFolder.ts';

/** The --preprocess option's --help lines, as the commands that read images show them. */
export const PREPROCESS_USAGE = `  --preprocess <preset|file> how images become input tensors: auto (the default: recognised from the model, printed),
                             imagenet, unit, yolo, ultralytics, ultraface, y-channel, bgr-255, paddleocr-det,
                             paddleocr-rec, or the JSON the studio exports`;

function guessFor(model: ModelProto, fileName?: string): PreprocessGuess {
  const summary = summarize(model, buildGraphIndex(model.graph!), { name: fileName });
  return recognizePreprocess(summary);
}

/** Values for the symbolic dimensions the spec leaves open; the names and values set, or null. */
function completeDims(spec: PreprocessSpec, model: ModelProto, guess: PreprocessGuess): string | null {
  const input = guessInputShape(model);
  if (!input) return null;
  const familySize = guess.family ? MODEL_FAMILIES[guess.family].size : null;
  const { dims, source } = defaultImageDims(input, spec.layout, { familySize });
  const added = Object.entries(dims).filter(([k]) => spec.dims[k] === undefined);
  if (added.length === 0) return null;
  for (const [k, v] of added) spec.dims[k] = v;
  const from =
    source === 'family'
      ? ` (${guess.label}'s usual size)`
      : source === 'fallback'
        ? ' (a default: set "dims" in a --preprocess file to change it)'
        : '';
  return `symbolic dimensions ${added.map(([k, v]) => `${k}=${v}`).join(', ')}${from}`;
}

function guessInputShape(model: ModelProto): (number | string)[] | null {
  const summary = summarize(model, buildGraphIndex(model.graph!));
  return summary.inputs.find((i) => i.shape && (i.shape.length === 3 || i.shape.length === 4))?.shape ?? null;
}

/**
 * The spec images are preprocessed with. A model whose inputs are not images (recognize.ts `notImage`: audio,
 * spectrogram frames, token ids, sequences, states) is refused with NotAnImageModelError saying to give tensors,
 * unless a preset or a spec file is named: then the user has said how photos become its input.
 */
export function loadPreprocessArgument(
  argument: string | undefined,
  model: ModelProto,
  fileName?: string,
): { spec: PreprocessSpec; note?: string } {
  const guess = guessFor(model, fileName);
  if (guess.notImage && (!argument || argument === 'auto')) {
    const n = guess.notImage;
    throw new NotAnImageModelError(
      `the model's input is not an image (${n.kind}: ${n.evidence}), so photos would calibrate or judge it on data it never sees. ` +
        `Give a folder of .npy/.npz tensors instead: ${TENSOR_CONVENTION}. (To feed images anyway, name a --preprocess preset or file.)`,
    );
  }
  const notes: string[] = [];
  let spec: PreprocessSpec;
  const recognised = !argument || argument === 'auto';
  if (recognised) {
    spec = { ...guess.spec, dims: { ...guess.spec.dims } };
    notes.push(
      argument
        ? `--preprocess auto: ${describeGuess(guess)}`
        : `no --preprocess given: using the recognised preprocessing, as the page does (name a preset to change it: ${PRESET_NAMES.join(', ')}, or a file): ${describeGuess(guess)}`,
    );
  } else if (isPresetName(argument)) {
    spec = getPreprocessPreset(argument);
  } else {
    spec = parsePreprocess(new TextDecoder().decode(readInputFile(argument)));
  }
  const dims = recognised ? null : completeDims(spec, model, guess);
  if (dims) notes.push(dims);
  return { spec, note: notes.length > 0 ? notes.join('\nnote: ') : undefined };
}
