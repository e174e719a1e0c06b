/**
 * The user's files as the workers' samples: the calibration data (images and .npy samples) and the
 * evaluation set of their own, how a file is named to the user, and when two drops hold the same file.
 * Shared by the calibration, evaluation and recovery slices and the components that show the files;
 * pure (no store, no React), so every slice reaches it without importing another slice.
 */
import type { CalibrationSample } from '../remote/workerTypes.ts';

/** A file's name as the user knows it: its path inside a chosen folder, else its name. */
export function displayName(file: File): string {
  return (file as File & { webkitRelativePath?: string }).webkitRelativePath || file.name;
}

/** Same name, size and date: the same file dropped twice. */
export const fileKey = (f: File) => `${displayName(f)}|${f.size}|${f.lastModified}`;

/** `list` followed by the items of `more` whose key is in neither (the first of a repeated key wins). */
export function appendNew<T>(list: readonly T[], more: readonly T[], key: (item: T) => string): T[] {
  const known = new Set(list.map(key));
  return [...list, ...more.filter((item) => !known.has(key(item)) && (known.add(key(item)), true))];
}

/** Image files as samples. */
export function imageSamples(files: readonly File[]): CalibrationSample[] {
  return files.map((file) => ({ kind: 'image', name: displayName(file), file }));
}

/** The samples of the calibration data: its images, then its .npy samples. */
export function samplesOf(data: {
  readonly images: readonly File[];
  readonly npy: readonly { name: string; files: Record<string, File> }[];
}): CalibrationSample[] {
  const npy: CalibrationSample[] = data.npy.map((s) => ({ kind: 'npy', name: s.name, files: s.files }));
  return [...imageSamples(data.images), ...npy];
}

/** The samples an evaluation runs on (the own evaluation set, or the calibration data), and how the report names them. */
export function evaluationSamples(state: {
  readonly evaluation: { readonly source: 'calibration' | 'own' } & Parameters<typeof samplesOf>[0];
  readonly calibration: Parameters<typeof samplesOf>[0];
}): { samples: CalibrationSample[]; source: string } {
  if (state.evaluation.source === 'own') {
    const samples = samplesOf(state.evaluation);
    const kind = state.evaluation.npy.length > 0 ? 'evaluation sample' : 'evaluation image';
    return { samples, source: `${samples.length} ${kind}${samples.length === 1 ? '' : 's'}` };
  }
  const samples = samplesOf(state.calibration);
  return { samples, source: `${samples.length} calibration sample${samples.length === 1 ? '' : 's'}` };
}
