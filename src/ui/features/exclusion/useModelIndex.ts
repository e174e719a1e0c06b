/**
 * The open model's graph index on the page (structure only, no weight bytes), for what the exclusion
 * list resolves and the snippets name. Fetched from the model worker once per model and shared by every
 * component that asks; a failure is reported, never thrown into React.
 */
import { useEffect, useState } from 'react';
import { buildGraphIndexInSlices, type GraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { GraphProto } from '../../../core/onnx/model.ts';
import { graphStructure } from '../../remote/modelRemote.ts';
import { nextTask } from '../../components/nextTask.ts';
import { useStudio } from '../../store/index.ts';

export type ModelIndexState =
  { status: 'none' | 'loading' } | { status: 'ready'; index: GraphIndex } | { status: 'error'; message: string };

// One model is open at a time: keep the newest handle's structure and index only.
let cached: { handle: string; structure: Promise<GraphProto>; promise: Promise<GraphIndex> } | null = null;

function fetched(handle: string) {
  if (cached?.handle !== handle) {
    const structure = graphStructure(handle);
    // The index is built in slices, each a task of its own (not in the one that received the structure): a large
    // graph's index is never one long task.
    cached = { handle, structure, promise: structure.then((s) => buildGraphIndexInSlices(s, nextTask)) };
  }
  return cached;
}

/** The index of the model behind `handle` (fetched once, then shared). */
export function modelIndex(handle: string): Promise<GraphIndex> {
  return fetched(handle).promise;
}

/**
 * The weight-less structure of the model behind `handle`, on the page (the same fetch as modelIndex's): settled once
 * it has arrived, before its index is built.
 */
export function modelStructure(handle: string): Promise<GraphProto> {
  return fetched(handle).structure;
}

/** The open model's index, as React state. */
export function useModelIndex(): ModelIndexState {
  const handle = useStudio((s) => s.model.handle);
  const [state, setState] = useState<ModelIndexState & { handle?: string }>({ status: 'none' });
  useEffect(() => {
    if (!handle) return;
    let live = true;
    modelIndex(handle).then(
      (index) => live && setState({ status: 'ready', index, handle }),
      (e: unknown) => live && setState({ status: 'error', message: (e as Error)?.message ?? String(e), handle }),
    );
    return () => {
      live = false;
    };
  }, [handle]);
  if (!handle) return { status: 'none' };
  return state.handle === handle ? state : { status: 'loading' };
}
