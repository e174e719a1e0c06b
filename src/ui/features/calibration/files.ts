/**
 * Files the user gives as calibration data, sorted out: images (by extension or MIME type), .npy
 * tensors grouped into samples, and everything else rejected with a reason.
 *
 * .npy samples follow the core's convention (core/preprocess/npySamples.ts, which the command line shares). Each array is checked against its input with
 * the core's npy checks when it is added, so a bad file is named at once rather than mid-run.
 */
import type { TensorSummary } from '../../../core/onnx/index.ts';
import { checkNpyInput, parseNpy } from '../../../core/preprocess/npy.ts';
import { npyTarget } from '../../../core/preprocess/npySamples.ts';
import type { DataRejection, NpySample } from '../../store/index.ts';
import { displayName } from '../../store/samples.ts';

export { npyTarget };

const IMAGE_EXTENSIONS = /\.(png|jpe?g|webp|bmp|gif|avif)$/i;
const NPY = /\.npy$/i;

export const isImageFile = (f: File) =>
  IMAGE_EXTENSIONS.test(f.name) || (f.type.startsWith('image/') && !/svg/.test(f.type));
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
    else
      out.rejected.push({ file: displayName(f), reason: 'not an image (PNG, JPEG, WebP, BMP, GIF) or a .npy tensor' });
  }
  out.images.sort((a, b) => displayName(a).localeCompare(displayName(b), undefined, { numeric: true }));
  return out;
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
    if (missing.length > 0)
      rejected.push({
        file: name,
        reason: `sample has no .npy file for input${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
      });
    else samples.push({ name, files: group });
  }
  return { samples, rejected };
}
