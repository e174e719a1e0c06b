/**
 * The model worker's API: open a model from its bytes, keep it here, hand back a handle and its
 * summary; close it again. Decoding a large model takes the main thread's time and memory, so the page
 * does it here and keeps only the handle and the summary (docs/ARCHITECTURE.md, principles 7 and 8).
 *
 * This object is plain: tests call it directly, and model.worker.ts only exposes it. It must not
 * import comlink or touch the DOM. Errors are thrown as the core's named errors (NotOnnxError, …), whose
 * `name` survives the trip to the page.
 */
import {
  encode,
  openModel,
  weightOf,
  type GraphProto,
  type ModelSummary,
  type OpenedModel,
} from '../../src/core/onnx/index.ts';
import { tinyModel } from '../../src/core/onnx/tinyModel.ts';
import { structurePart, weightlessGraph } from '../../src/core/graph/structure.ts';
import { tensorStatistics, type TensorStatistics } from '../../src/core/graph/tensorStatistics.ts';
import { HandleTable } from '../runtime/handles.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';

/** A model kept in the worker: the decoded model, the buffers its tensors are views into, and the user's data files. */
export interface HeldModel {
  opened: OpenedModel;
  bytes: Uint8Array;
  externalFiles: ReadonlyMap<string, Uint8Array>;
  /** The external-data files as given (Files): what other workers get, by reference, to read for themselves. */
  externalBlobs: Readonly<Record<string, Blob>>;
  /** The weight-less structure while the page takes it in parts (graphStructurePart). */
  structure?: GraphProto;
}

export interface OpenResult {
  /** Id of the model inside this worker, for later calls. */
  handle: string;
  summary: ModelSummary;
  /**
   * The weight-less graph, sent along for models of up to STRUCTURE_WITH_OPEN_NODES nodes: the graph view then
   * starts without another round trip. Larger graphs are asked for by the page as soon as open() answers (made
   * here while the page renders the summary), so their summary is not held up by the copy.
   */
  structure?: GraphProto;
}

/** How the page asks for an open. */
export interface OpenOptions {
  /**
   * The handle to keep the model under, chosen by the page when it opened the model itself for the first
   * picture (ui/remote/openOnPage.ts): it has the summary and the structure already, so neither comes back.
   */
  handle?: string;
}

/** Up to this many nodes, open() returns the graph structure too. */
export const STRUCTURE_WITH_OPEN_NODES = 3000;

/** A weight's statistics, or why there are none (external data not given, strings, …). */
export type WeightStatistics = { name: string; statistics: TensorStatistics } | { name: string; error: string };

const models = new HandleTable<HeldModel>('model');

export const modelApi = {
  /**
   * Decodes a model. `bytes` is the .onnx file (transfer it: the decoded tensors are views into it);
   * `externalFiles` are its external-data files (the user's Files) by file name, read here
   * (runtime/externalFiles.ts). Throws the core's named errors.
   */
  async open(
    bytes: ArrayBuffer,
    fileName: string,
    externalFiles: Readonly<Record<string, Blob>> = {},
    options: OpenOptions = {},
  ): Promise<OpenResult> {
    const data = new Uint8Array(bytes);
    const external = await readExternalFiles(externalFiles);
    const opened = openModel(data, { fileName, externalData: external });
    const held: HeldModel = { opened, bytes: data, externalFiles: external, externalBlobs: { ...externalFiles } };
    if (options.handle) return { handle: models.put(options.handle, held), summary: opened.summary };
    const handle = models.add(held);
    const graph = opened.model.graph!;
    return {
      handle,
      summary: opened.summary,
      ...(graph.node.length <= STRUCTURE_WITH_OPEN_NODES ? { structure: weightlessGraph(graph) } : {}),
    };
  },

  /** Forgets a model and its buffers. Closing an unknown handle is not an error (it may be closed already). */
  close(handle: string): void {
    models.delete(handle);
  },

  /** The open model's graph without the weights' bytes: what the graph view draws and resolves on. */
  graphStructure(handle: string): GraphProto {
    return weightlessGraph(models.get(handle).opened.model.graph!);
  },

  /**
   * The same structure in parts (core/graph/structure.ts structurePart), each its own message: the page takes a
   * large graph's structure as several short tasks instead of one long structured clone. Made once, at part 0.
   */
  graphStructurePart(handle: string, part: number): { graph: GraphProto; parts: number } {
    const held = models.get(handle);
    if (part === 0 || !held.structure) held.structure = weightlessGraph(held.opened.model.graph!);
    const out = structurePart(held.structure, part);
    if (part === out.parts - 1) delete held.structure;
    return out;
  },

  /** Value statistics of weights (initializers or Constant outputs) by tensor name, for the node inspector. */
  weightStatistics(handle: string, names: readonly string[]): WeightStatistics[] {
    const { index } = models.get(handle).opened;
    return names.map((name) => {
      const tensor = weightOf(index, name);
      if (!tensor) return { name, error: 'not a weight of this model' };
      try {
        return { name, statistics: tensorStatistics(tensor) };
      } catch (e) {
        return { name, error: e instanceof Error ? e.message : String(e) };
      }
    });
  },

  /**
   * Opens and drops a two-node model, so that the first real model does not also pay for compiling the decoder,
   * the summary and the graph structure code (the idle page calls this once it has started the worker). Returns
   * the tiny model's bytes: the page warms its own open path on them (it cannot encode: protobufjs's encoder
   * compiles code, which the page's content security policy forbids).
   */
  warmUp(): ArrayBuffer {
    const bytes = encode(tinyModel());
    const opened = openModel(bytes, { fileName: 'warm-up.onnx' });
    weightlessGraph(opened.model.graph!);
    return bytes.slice().buffer;
  },

  /** How many models this worker holds (for tests and diagnostics). */
  openCount(): number {
    return models.size;
  },
};

export type ModelApi = typeof modelApi;

/** For other worker modules of the same worker: the model behind a handle (throws UnknownHandleError). */
export function heldModel(handle: string): HeldModel {
  return models.get(handle);
}
