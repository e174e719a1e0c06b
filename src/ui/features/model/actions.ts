/**
 * The user's ways of opening a model, as one-liners the components call: files (dropped anywhere or
 * picked) and the sample model. They build a ModelSource and hand it to the store.
 */
import { useStudio } from '../../store/index.ts';
import { SAMPLE_MODEL, sourceFromFiles, sourceFromUrl } from './sources.ts';

/** Opens dropped or picked files (the .onnx is the model, the rest its external data). */
export function openFiles(files: Iterable<File> | ArrayLike<File> | null | undefined): void {
  const source = sourceFromFiles(files ? Array.from(files) : []);
  if (source) void useStudio.getState().openModel(source);
}

/** Downloads the bundled sample model from this site and opens it. */
export function openSample(): void {
  void useStudio.getState().openModel(sourceFromUrl(SAMPLE_MODEL.url, SAMPLE_MODEL.fileName));
}
