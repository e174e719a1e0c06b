/**
 * The user's ways of opening a model, as one-liners the components call: files (dropped anywhere or
 * picked) and the sample model (whose store action also brings its images and runs it).
 */
import { useStudio } from '../../store/index.ts';
import { sourceFromFiles } from '../../store/modelSources.ts';
import type { OpenOptions } from '../../store/modelSlice.ts';

/** Opens dropped or picked files (the .onnx is the model, the rest its external data); resolves when the open ends. */
export function openFiles(
  files: Iterable<File> | ArrayLike<File> | null | undefined,
  options?: OpenOptions,
): Promise<void> {
  const source = sourceFromFiles(files ? Array.from(files) : []);
  return source ? useStudio.getState().openModel(source, options) : Promise.resolve();
}

/** Downloads the bundled sample model from this site and opens it with its images and preprocessing. */
export function openSample(): void {
  void useStudio.getState().openSample();
}

/** The sample in one click: open, calibrate, quantize, evaluate, and land on the report. */
export function quantizeSample(): void {
  void useStudio.getState().quantizeSample();
}
