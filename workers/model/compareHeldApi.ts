/**
 * The open model beside another file, compared in the model worker that already holds it decoded: two .onnx files
 * dropped together open the first as the model, and the split view then takes that decoded graph as it is instead of
 * decoding the file a second time in the comparison worker. The comparison itself is the comparison worker's code
 * (workers/compare/compareApi.ts: fold, mapping, both layouts), run here on the held graph.
 *
 * Plain object: tests call it directly; model.worker.ts only exposes it. No comlink, no DOM.
 */
import { compareApi, type CompareProgress, type CompareSource, type ComparisonResult } from '../compare/compareApi.ts';
import { heldModel } from './modelApi.ts';

export const compareHeldApi = {
  /** The model held under `handle` (shown as `name`) on side a, `other` (a file, decoded here) on side b. */
  compareWithHeld(
    handle: string,
    name: string,
    other: CompareSource,
    onProgress?: CompareProgress,
  ): Promise<ComparisonResult> {
    const graph = heldModel(handle).opened.model.graph!;
    return compareApi.compare({ name, graph }, other, onProgress);
  },
};

export type CompareHeldApi = typeof compareHeldApi;
