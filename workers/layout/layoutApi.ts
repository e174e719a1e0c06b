/**
 * The layout worker's API: lays a graph view out off the main thread, so a 20,000-box graph never
 * freezes the page (the page shows the progress this reports). The algorithm is the core's pure
 * layeredLayout; this object only adapts it to a worker: typed arrays in, typed arrays out (the entry
 * transfers them), progress through a callback.
 *
 * Plain object: tests call it directly; layout.worker.ts only exposes it. No comlink, no DOM.
 */
import { layeredLayout, type LayoutInput, type LayoutResult } from '../../src/core/graph/layeredLayout.ts';

export type { LayoutInput, LayoutResult };

/** Progress of one layout: a fraction 0…1 and the phase ('ranks', 'ordering', 'positions', 'done'). */
export type LayoutProgress = (fraction: number, phase: string) => void;

export const layoutApi = {
  /** Box centres for the boxes and edges given; `onProgress` is called a handful of times. */
  async layout(input: LayoutInput, onProgress?: LayoutProgress): Promise<LayoutResult & { seconds: number }> {
    const start = performance.now();
    const result = layeredLayout(input, { onProgress: onProgress ? (f, p) => void onProgress(f, p) : undefined });
    return { ...result, seconds: (performance.now() - start) / 1000 };
  },
};

export type LayoutApi = typeof layoutApi;
