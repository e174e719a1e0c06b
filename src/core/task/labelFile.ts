/**
 * One labels file, read by its name and text into a LabelSet for a head: a lines file (image<TAB>text) or a
 * CSV for a recognizer, a COCO JSON for a detector, a CSV (image,class) for a classifier. The CLI's --labels
 * and the page's labels file both come here, so a file is read and refused the same way in both.
 */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import { TaskLabelError } from './errors.ts';
import { headClassCount } from './headClasses.ts';
import type { TaskHead } from './heads.ts';
import { csvPairs, readClassLabels, readCocoLabels, type ImageSizeByName, type LabelSet } from './labels.ts';
import { readTextLabels } from './textLabels.ts';

export function readLabelFile(
  file: string,
  text: string,
  head: TaskHead,
  outputs: readonly TensorSummary[],
  images: readonly ImageSizeByName[],
): LabelSet {
  if (head.task === 'text') {
    if (!/\.(txt|tsv|csv)$/i.test(file))
      throw new TaskLabelError(`${file}: text labels are a lines file (image<TAB>text) or a CSV (image,text)`);
    if (!head.dictionary)
      throw new TaskLabelError(
        "text labels are compared as characters: give the recognizer's dictionary with --dict <keys.txt>",
      );
    return readTextLabels(file, text, images);
  }
  const classCount = headClassCount(head, outputs);
  if (classCount === null)
    throw new TaskLabelError(
      `${file}: the model's class count is not fixed in its output shape, so labels cannot be checked`,
    );
  const names = head.classNames;
  if (/\.json$/i.test(file)) {
    if (head.task !== 'detect') throw new TaskLabelError(`${file}: COCO JSON holds boxes; this head is ${head.task}`);
    return readCocoLabels(file, text, images, names, classCount);
  }
  if (/\.csv$/i.test(file)) {
    if (head.task !== 'classify') throw new TaskLabelError(`${file}: a CSV holds classes; this head is ${head.task}`);
    return readClassLabels(file, csvPairs(text), images, names, classCount);
  }
  throw new TaskLabelError(
    `${file}: give a COCO .json, a .csv, or a folder (YOLO .txt files, a folder per class, PNG masks)`,
  );
}
