/**
 * The task figures of an evaluation (boxes, classes, masks, text: quantized against float, and against labels when
 * given) and its pictures, the worst images embedded as data URLs so the page and the downloaded report show the
 * same. Reads the outputs an evaluation kept: runs no model.
 */
import { picturePhotoUrl } from './picturePhoto.ts';
import type { TensorSummary } from '../../src/core/onnx/index.ts';
import type { ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import type { ReportTask } from '../../src/core/report/index.ts';
import {
  evaluateTask,
  readLabelSource,
  taskReport,
  type RunOutputs,
  type TaskHead,
  type TaskSample,
} from '../../src/core/task/index.ts';
import type { EvaluationFeeds } from './feeds.ts';
import { taskSample } from './taskRuns.ts';
import type { EvaluationRequest } from './evaluationTypes.ts';

/** Images shown with their boxes or masks: the worst ones. */
const PICTURES = 8;

/** The task figures of an evaluation and its pictures (the 8 worst images), each photo embedded. */
export async function taskFigures(
  given: TaskHead,
  request: EvaluationRequest,
  data: EvaluationFeeds,
  outputs: readonly { float: RunOutputs; quant: RunOutputs }[],
  modelOutputs: readonly TensorSummary[],
  decodeImage: ImageDecoder,
): Promise<ReportTask> {
  // The page's files as the core's reader takes them (the CLI lists a folder the same way).
  const read = request.labels
    ? await readLabelSource(
        request.labels.name,
        request.labels.files.map(({ path, file }) => ({
          path,
          read: async () => new Uint8Array(await file.arrayBuffer()),
        })),
        given,
        modelOutputs,
        data.names.map((name, i) => ({ name, width: data.sizes[i]?.width ?? 0, height: data.sizes[i]?.height ?? 0 })),
        (_path, bytes) => decodeImage(new Blob([bytes as BlobPart], { type: 'image/png' })),
      )
    : null;
  const labels = read?.labels ?? null;
  // A recognizer's dictionary found among the labels' files decodes its text.
  const head = read?.head ?? given;
  const samples: TaskSample[] = data.feeds.map((_, i) => {
    const sample = taskSample(data, request.spec!, i, outputs[i]);
    return labels ? { ...sample, label: labels.get(sample.name) } : sample;
  });
  const evaluation = evaluateTask(head, samples);
  const photos = new Map<string, string>();
  for (const r of evaluation.perImage.slice(0, PICTURES)) {
    const sample = request.samples[data.indices[r.index]];
    if (sample?.kind === 'image') photos.set(r.name, await picturePhotoUrl(sample.file));
  }
  return taskReport(evaluation, (name) => photos.get(name) ?? null, PICTURES);
}
