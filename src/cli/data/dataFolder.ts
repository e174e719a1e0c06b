/**
 * A data folder given to --calib or --data, as the command line reads it: images (.jpg, .png, directly inside),
 * or tensors (.npy and .npz, with the page's convention: core/preprocess/npySamples.ts). With one model input
 * every .npy or .npz file is a sample; with several, `<input>_<k>.npy` files side by side or `<sample>/<input>.npy`
 * in subfolders form sample k, and an .npz file is one sample whose arrays are named as the inputs
 * (np.savez(f, input=a, state=s, sr=r)). Each array is checked against its input (shape, element type) and fed as
 * the element type the input declares (float16 inputs as float32, as the studio runs float16 models). A folder holding tensors is read as
 * tensors and the images in it are named as ignored; a folder holding neither is an error that says what it holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StudioError } from '../../core/onnx/errors.ts';
import type { TensorSummary } from '../../core/onnx/modelSummary.ts';
import { checkNpyInput, parseNpy, type NpyArray } from '../../core/preprocess/npy.ts';
import { npyTarget } from '../../core/preprocess/npySamples.ts';
import { ortTensor, type Feeds, type OrtTensor } from '../runtime/ortNode.ts';
import { isImageFileName, readFolderEntries } from '../images/listImages.ts';
import { readNpz } from './npz.ts';

/** A data folder holds nothing the model can be fed: no images, no tensors. Says what it holds. */
export class NoDataError extends StudioError {
  override readonly name = 'NoDataError';
}

/** How a tensor folder is laid out, for --help texts and error messages. */
export const TENSOR_CONVENTION =
  'one .npy or .npz file per sample for a one-input model; for several inputs <input>_<k>.npy side by side, ' +
  '<sample>/<input>.npy in subfolders, or one .npz per sample with arrays named as the inputs (np.savez(f, input=a, state=s))';

/**
 * What a --calib or --data folder may hold, as the commands' --help continues the option's line: indented to the
 * option text's column (29 in most commands' help).
 */
export function dataFolderUsage(column = 29): string {
  return [
    '(.jpg, .png) or tensors (.npy, .npz, any element type the inputs declare: one',
    'file per sample for one input; <input>_<k>.npy, <sample>/<input>.npy or one',
    '.npz per sample with arrays named as the inputs for several)',
  ]
    .map((line) => ' '.repeat(column) + line)
    .join('\n');
}

export interface FolderListing {
  /** Image paths directly inside the folder, sorted. */
  images: string[];
  /** .npy and .npz paths, relative to the folder with '/' (subfolders one level deep), sorted. */
  tensors: string[];
  /** Everything else, relative, sorted. */
  other: string[];
}

const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
const TENSOR_FILE = /\.(npy|npz)$/i;

/** The folder's images, tensor files and other entries; DataFolderError when it cannot be listed. */
export function listDataFolder(dir: string): FolderListing {
  const out: FolderListing = { images: [], tensors: [], other: [] };
  const entries = readFolderEntries(dir, 'data');
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(full);
    } catch {
      stat = undefined; // a dangling link
    }
    if (stat?.isDirectory()) {
      for (const inner of fs.readdirSync(full)) {
        if (inner.startsWith('.')) continue;
        (TENSOR_FILE.test(inner) ? out.tensors : out.other).push(`${entry.name}/${inner}`);
      }
    } else if (stat?.isFile() && TENSOR_FILE.test(entry.name)) out.tensors.push(entry.name);
    else if (stat?.isFile() && isImageFileName(entry.name)) out.images.push(full);
    else out.other.push(entry.name);
  }
  out.images.sort(byName);
  out.tensors.sort(byName);
  out.other.sort(byName);
  return out;
}

/** "a, b, c and 4 more". */
export function someNames(names: readonly string[], count = 3): string {
  const shown = names.slice(0, count).join(', ');
  return names.length > count ? `${shown} and ${names.length - count} more` : shown;
}

/**
 * The array as the tensor its input takes: integer and bool inputs their declared type, float64 as float64; a
 * float16 input as float32, as the studio runs float16 models (calibration on their float32 form, comparisons
 * through a float32 interface: core/halfFloat/float16.ts).
 */
export function npyAsTensor(array: NpyArray, input: TensorSummary): OrtTensor {
  const dims = array.dims;
  switch (input.elemType) {
    case 'float16':
      return ortTensor({ type: 'float32', data: array.data as Float32Array, dims });
    case 'float64':
      return ortTensor({ type: 'float64', data: Float64Array.from(array.data as Float32Array), dims });
    default:
      return ortTensor({ type: input.elemType, data: array.data, dims } as never);
  }
}

export interface TensorSamples {
  feeds: Feeds[];
  /** Each sample's name (its file, or its key with several inputs). */
  names: string[];
  /** Files or samples not used, with the reason. */
  skipped: { file: string; reason: string }[];
}

/** The tensor samples of a folder's .npy/.npz files (listed by listDataFolder), for the model's `inputs`. */
export function readTensorSamples(
  dir: string,
  files: readonly string[],
  inputs: readonly TensorSummary[],
  limit = Infinity,
): TensorSamples {
  const names = inputs.map((i) => i.name);
  const skipped: TensorSamples['skipped'] = [];
  const groups = new Map<string, Record<string, OrtTensor>>();
  const order: string[] = [];
  const put = (sample: string, input: string, tensor: OrtTensor) => {
    if (!groups.has(sample)) {
      groups.set(sample, {});
      order.push(sample);
    }
    groups.get(sample)![input] = tensor;
  };
  const read = (bytes: Uint8Array, label: string, input: TensorSummary): OrtTensor => {
    const array = parseNpy(bytes, label);
    checkNpyInput(array, input, label, {});
    return npyAsTensor(array, input);
  };
  for (const file of files) {
    if (order.length >= limit && !groups.has(file)) break;
    const full = path.join(dir, file);
    try {
      if (/\.npz$/i.test(file)) {
        const arrays = readNpz(new Uint8Array(fs.readFileSync(full)), file);
        const members = [...arrays.keys()];
        const missing = names.filter((n) => !arrays.has(n));
        if (inputs.length === 1 && !arrays.has(names[0]) && members.length === 1) {
          put(file, names[0], read(arrays.get(members[0])!, `${file}:${members[0]}`, inputs[0]));
        } else if (missing.length > 0) {
          skipped.push({
            file,
            reason: `it has no array named ${missing.join(', ')} (it holds ${members.join(', ') || 'no .npy arrays'}); save it with np.savez(f, ${names.map((n) => `${n}=…`).join(', ')})`,
          });
        } else {
          // Every array read before any is kept: a bad one skips the sample once, under its own reason.
          const tensors = inputs.map((input) => read(arrays.get(input.name)!, `${file}:${input.name}`, input));
          inputs.forEach((input, k) => put(file, input.name, tensors[k]));
        }
        continue;
      }
      const target = npyTarget(file, names);
      if (!target) {
        skipped.push({ file, reason: `its name starts with none of the model's inputs (${names.join(', ')})` });
        continue;
      }
      put(
        target.sample,
        target.input,
        read(
          new Uint8Array(fs.readFileSync(full)),
          file,
          inputs.find((i) => i.name === target.input)!,
        ),
      );
    } catch (e) {
      if (!(e instanceof StudioError)) throw e;
      skipped.push({ file, reason: `${e.name}: ${e.message}` });
    }
  }
  const feeds: Feeds[] = [];
  const used: string[] = [];
  for (const sample of order) {
    const group = groups.get(sample)!;
    const missing = names.filter((n) => !group[n]);
    if (missing.length > 0) {
      skipped.push({
        file: sample,
        reason: `the sample has no tensor for input${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      });
      continue;
    }
    if (feeds.length >= limit) break;
    feeds.push(group);
    used.push(sample);
  }
  return { feeds, names: used, skipped };
}
