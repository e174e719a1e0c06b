/**
 * Files the user gives as calibration data, sorted out: images (by extension or MIME type), .npy
 * tensors grouped into samples, and everything else rejected with a reason.
 *
 * .npy samples: with one model input, every .npy file is a sample. With several inputs, a file belongs
 * to the input its name starts with (the longest such input name) and the rest of its path names the
 * sample, so `input_ids_0.npy` and `attention_mask_0.npy` (or `s0/input_ids.npy` and
 * `s0/attention_mask.npy`) form sample "0" (or "s0/"). Each array is checked against its input with
 * the core's npy checks when it is added, so a bad file is named at once rather than mid-run.
 */
import type { TensorSummary } from '../../../core/onnx/index.ts';
import { checkNpyInput, parseNpy } from '../../../core/preprocess/npy.ts';
import type { DataRejection, NpySample } from '../../store/index.ts';
import { displayName } from '../../store/samples.ts';

const IMAGE_EXTENSIONS = /\.(png|jpe?g|webp|bmp|gif|avif)$/i;
const NPY = /\.npy$/i;

export const isImageFile = (f: File) => IMAGE_EXTENSIONS.test(f.name) || (f.type.startsWith('image/') && !/svg/.test(f.type));
export const isNpyFile = (f: File) => NPY.test(f.name);

export interface SortedFiles {
  images: File[];
  npy: File[];
  rejected: DataRejection[];
}

/** Images, .npy files and the rest (hidden files such as .DS_Store in folders are dropped silently). */
export function sortFiles(files: readonly File[]): SortedFiles {
  const out: SortedFiles = { images: [], npy: [], rejected: [] };
  for (const f of files) {
    if (f.name.startsWith('.')) continue;
    if (isNpyFile(f)) out.npy.push(f);
    else if (isImageFile(f)) out.images.push(f);
    else out.rejected.push({ file: displayName(f), reason: 'not an image (PNG, JPEG, WebP, BMP, GIF) or a .npy tensor' });
  }
  out.images.sort((a, b) => displayName(a).localeCompare(displayName(b), undefined, { numeric: true }));
  return out;
}

/** The input a .npy path belongs to and the sample key, or null when its name starts with no input name. */
export function npyTarget(path: string, inputs: readonly string[]): { input: string; sample: string } | null {
  if (inputs.length === 1) return { input: inputs[0], sample: path };
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const base = path.slice(slash + 1).replace(NPY, '');
  const input = inputs.filter((name) => base.startsWith(name)).sort((a, b) => b.length - a.length)[0];
  if (input === undefined) return null;
  const rest = base.slice(input.length).replace(/^[._-]+/, '');
  return { input, sample: `${dir}${rest}` || '(unnamed)' };
}

/** Reads, parses and checks .npy files against the model's inputs; groups them into samples. */
export async function npySamples(
  files: readonly File[],
  inputs: readonly TensorSummary[],
  dims: Readonly<Record<string, number>>,
): Promise<{ samples: NpySample[]; rejected: DataRejection[] }> {
  const rejected: DataRejection[] = [];
  const groups = new Map<string, Record<string, File>>();
  const names = inputs.map((i) => i.name);
  for (const file of files) {
    const path = displayName(file);
    const target = npyTarget(path, names);
    if (!target) {
      rejected.push({ file: path, reason: `its name starts with none of the model's inputs (${names.join(', ')})` });
      continue;
    }
    const input = inputs.find((i) => i.name === target.input)!;
    try {
      const array = parseNpy(new Uint8Array(await file.arrayBuffer()), path);
      checkNpyInput(array, input, path, dims);
    } catch (e) {
      rejected.push({ file: path, reason: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      continue;
    }
    const group = groups.get(target.sample) ?? {};
    group[target.input] = file;
    groups.set(target.sample, group);
  }
  const samples: NpySample[] = [];
  for (const [name, group] of groups) {
    const missing = names.filter((n) => !group[n]);
    if (missing.length > 0) rejected.push({ file: name, reason: `sample has no .npy file for input${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` });
    else samples.push({ name, files: group });
  }
  return { samples, rejected };
}
