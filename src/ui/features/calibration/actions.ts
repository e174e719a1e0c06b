/**
 * The calibration step's user actions as one-liners the components call: adding files (sorted into
 * images, each decoded once to check it, and .npy samples, checked against the model's inputs), and
 * exporting the ranges.
 */
import { formatPreprocess } from '../../../core/preprocess/spec.ts';
import { downloadText } from '../../components/useObjectUrl.ts';
import { useStudio } from '../../store/index.ts';
import { npySamples, sortFiles } from './files.ts';
import { readableImages } from './readableImages.ts';
import { modelStem } from '../../../core/onnx/fileName.ts';

/**
 * Dropped or picked files as data for the open model: the images that decode, the .npy samples that fit its inputs,
 * and every other file named with why it was left out. Calibration data and the evaluation set read files alike.
 */
export async function readDataFiles(files: Iterable<File> | ArrayLike<File> | null | undefined) {
  const list = files ? Array.from(files) : [];
  const { model, calibration } = useStudio.getState();
  const sorted = sortFiles(list);
  const checked = await readableImages(sorted.images);
  let rejected = [...sorted.rejected, ...checked.rejected];
  let npy: Awaited<ReturnType<typeof npySamples>>['samples'] = [];
  if (sorted.npy.length > 0 && model.summary) {
    const arrays = await npySamples(sorted.npy, model.summary.inputs, calibration.spec.dims);
    npy = arrays.samples;
    rejected = [...rejected, ...arrays.rejected];
  }
  return { images: checked.images, npy, rejected };
}

/** Adds dropped or picked files as calibration data. */
export async function addDataFiles(files: Iterable<File> | ArrayLike<File> | null | undefined): Promise<void> {
  if (!files || Array.from(files).length === 0) return;
  useStudio.getState().addCalibrationData(await readDataFiles(files));
}

/** `<model>.ranges.json`: the ranges as `qstudio quantize --ranges` reads them, with how they were made. */
export function downloadRanges(): void {
  const { model, calibration } = useStudio.getState();
  const result = calibration.result;
  if (!result || !model.fileName) return;
  const json = {
    model: model.fileName,
    method: result.method,
    samples: result.used,
    preprocess: JSON.parse(formatPreprocess(calibration.spec)),
    ranges: result.ranges,
  };
  downloadText(`${JSON.stringify(json, null, 2)}\n`, `${modelStem(model.fileName)}.ranges.json`);
}
