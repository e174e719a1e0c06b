/**
 * The model worker as the store sees it: a ModelService, and the QuantizeService (the worker holds the
 * decoded float model, so quantizing happens there). Model bytes are transferred, not copied (the page
 * keeps none of them); the worker keeps the decoded model and answers with a handle and a summary. A small
 * model is opened on the page first (openOnPage.ts; performance mark model:opened-on-page), for its first picture,
 * while the worker opens it too; not when the caller needs no first picture (open's onPage: false). A quantized model comes back as transferred parts, which become one Blob to download.
 */
import { proxy, transfer } from 'comlink';
import type { CompareSource, ComparisonResult } from '../../../workers/compare/compareApi.ts';
import { fromWire } from '../../../workers/compare/comparisonWire.ts';
import type { GraphPane } from '../../../workers/model/paneApi.ts';
import type { GraphViewOptions } from '../../core/graph/graphView.ts';
import type { ModelBytesCopy, ModelWorkerApi, QuantizeOutput } from '../../../workers/model/quantizeApi.ts';
import type { ModelService } from '../store/modelSlice.ts';
import type { GraphProto } from '../../core/onnx/model.ts';
import type { WeightStatistics } from '../../../workers/model/modelApi.ts';
import type { QuantizedModel, QuantizeService } from '../store/runSlice.ts';
import { WorkerConnection } from './workerConnection.ts';
import { StudioError } from '../../core/onnx/errors.ts';
import { openOnPage, type OpenedOnPage } from './openOnPage.ts';
import { joinStructureParts } from '../../core/graph/structure.ts';

const connection = new WorkerConnection<ModelWorkerApi>(
  () =>
    new Worker(new URL('../../../workers/model/model.worker.ts', import.meta.url), { type: 'module', name: 'model' }),
  'model worker',
);

/**
 * Starts the model worker ahead of the first model (its script takes about a second to load on 2 cores) and has
 * it open a tiny model, so the first real one finds its code compiled; the page then opens the tiny model's bytes
 * itself, for the same reason. Resolves with what the page opened (for the first screen's warm-up), or null.
 */
export function warmModelWorker(): Promise<OpenedOnPage | null> {
  connection.warm();
  return connection
    .call((api) => api.warmUp())
    .then((tiny) => openOnPage(tiny, 'warm-up.onnx', {}))
    .catch(() => null); // a failure shows on the first real open
}

/**
 * Graph structures by handle, until the model is closed: made on the page for a model it opened itself, sent with
 * open() for small graphs; for larger ones asked for as soon as open() answers, so the worker makes it while the
 * page renders the summary instead of after.
 */
const structures = new Map<string, GraphProto | Promise<GraphProto>>();

/**
 * Opens of models the page opened itself (openOnPage.ts), by handle, until the worker has them: every call about
 * such a model waits for it, and fails with the worker's error if the worker could not open it.
 */
const opening = new Map<string, Promise<void>>();
let pageOpens = 0;

/** Resolves once the worker holds `handle`'s model (at once for a model the worker opened itself). */
function whenHeld(handle: string): Promise<void> {
  return opening.get(handle) ?? Promise.resolve();
}

export const modelRemote: ModelService = {
  async open(fileName, { bytes, externalFiles }, { onPage = true } = {}) {
    let here = null;
    try {
      here = onPage ? openOnPage(bytes, fileName, externalFiles) : null;
    } catch (e) {
      // A named error is the one the worker would give (the same code reads the file there); anything else is
      // left to the worker to judge.
      if (e instanceof StudioError) throw e;
    }
    if (here) {
      performance.mark('model:opened-on-page', { detail: fileName });
      // The page has the summary and the structure: the worker opens the model under the page's handle meanwhile.
      const handle = `page-model-${++pageOpens}`;
      structures.set(handle, here.structure);
      const held = connection
        .call((api) => api.open(transfer(bytes, [bytes]), fileName, externalFiles, { handle }))
        .then(() => undefined);
      held.catch(() => undefined); // observed through `settled` and by every later call about the model
      opening.set(handle, held);
      held.then(
        () => opening.delete(handle),
        () => undefined,
      );
      return { handle, summary: here.summary, settled: held };
    }
    // The data files go as the user's Files (by reference, any size); the worker reads them.
    const { structure, ...opened } = await connection.call((api) =>
      api.open(transfer(bytes, [bytes]), fileName, externalFiles),
    );
    if (structure) structures.set(opened.handle, structure);
    else {
      const asked = structureInParts(opened.handle);
      asked.catch(() => undefined); // the graph view awaits it and shows its error
      structures.set(opened.handle, asked);
    }
    return opened;
  },
  async close(handle) {
    structures.delete(handle);
    const held = whenHeld(handle);
    opening.delete(handle);
    if (
      await held.then(
        () => true,
        () => false,
      )
    )
      await connection.call((api) => api.close(handle));
  },
};

/** A fresh copy of the open model's .onnx bytes (transferred on from the caller) and its data Files, for another worker. */
export async function modelBytes(handle: string): Promise<ModelBytesCopy> {
  await whenHeld(handle);
  return connection.call((api) => api.modelBytes(handle));
}

/** The open model's graph without weight bytes, for the graph view. */
export async function graphStructure(handle: string): Promise<GraphProto> {
  const sent = structures.get(handle);
  if (sent) return sent;
  await whenHeld(handle);
  return structureInParts(handle);
}

/** A large model's structure, part by part: each part's structured clone is a short task of its own on the page. */
async function structureInParts(handle: string): Promise<GraphProto> {
  const first = await connection.call((api) => api.graphStructurePart(handle, 0));
  const parts = [first.graph];
  for (let k = 1; k < first.parts; k++)
    parts.push((await connection.call((api) => api.graphStructurePart(handle, k))).graph);
  return joinStructureParts(parts);
}

/** The structure sent with open() for `handle`, without waiting; undefined for a large model (ask graphStructure). */
export function structureAtHand(handle: string): GraphProto | undefined {
  const sent = structures.get(handle);
  return sent instanceof Promise ? undefined : sent;
}

/**
 * The open model (shown as `name`) beside `other`, compared where the model is held decoded: the model worker runs the
 * comparison worker's code on it (workers/model/compareHeldApi.ts), so the open model's file is not decoded again.
 */
export async function compareWithOpenModel(
  handle: string,
  name: string,
  other: CompareSource,
  onProgress: (fraction: number, phase: string) => void,
): Promise<ComparisonResult> {
  await whenHeld(handle);
  return fromWire(await connection.call((api) => api.compareWithHeld(handle, name, other, proxy(onProgress))));
}

/**
 * The graph step's pane of the open model, made in the model worker (workers/model/paneApi.ts): its view without the
 * graph index (a QDQ model's Q/DQ folded there) and its layout, with the worker's phases as it goes.
 */
export async function graphPane(
  handle: string,
  options: GraphViewOptions,
  onProgress: (fraction: number, phase: string) => void,
): Promise<GraphPane> {
  await whenHeld(handle);
  return connection.call((api) => api.graphPane(handle, options, proxy(onProgress)));
}

/** Value statistics of the named weights, for the node inspector. */
export async function weightStatistics(handle: string, names: readonly string[]): Promise<WeightStatistics[]> {
  await whenHeld(handle);
  return connection.call((api) => api.weightStatistics(handle, names));
}

/** The worker's parts as the page's Blobs (the .onnx, and its data file when it has one). */
function quantizedModel(out: QuantizeOutput, dataFileName: string | undefined): QuantizedModel {
  const blob = (parts: ArrayBuffer[]) => new Blob(parts, { type: 'application/octet-stream' });
  const data =
    out.data && dataFileName
      ? { fileName: dataFileName, blob: blob(out.data.parts), byteLength: out.data.byteLength }
      : undefined;
  return {
    blob: blob(out.parts),
    byteLength: out.byteLength,
    report: out.report,
    seconds: out.seconds,
    ...(data ? { data } : {}),
  };
}

export const quantizeRemote: QuantizeService = {
  async quantize(handle, ranges, config, configName, dataFileName) {
    await whenHeld(handle);
    return quantizedModel(
      await connection.call((api) => api.quantize(handle, ranges, config, configName, dataFileName)),
      dataFileName,
    );
  },
  async quantizeBf16(handle, dataFileName) {
    await whenHeld(handle);
    return quantizedModel(await connection.call((api) => api.quantizeBf16(handle, dataFileName)), dataFileName);
  },
};
