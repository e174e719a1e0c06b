/**
 * The studio's one store, combined from slices (ARCHITECTURE, example 10). Later steps add their
 * slices here (calibration, exclusion, run); middleware, when some is needed, goes on this combined
 * store only. Services are injected so tests build a store with fakes and read it through getState().
 */
import { create } from 'zustand';
import { createModelSlice, type ModelService, type ModelSlice } from './modelSlice.ts';

export type StudioState = ModelSlice;

export interface StudioServices {
  model: ModelService;
}

/** A new store; the page makes one (index.ts), tests make as many as they like. */
export function createStudioStore(services: StudioServices) {
  return create<StudioState>()((...a) => ({
    ...createModelSlice<StudioState>(services.model)(...a),
  }));
}

export type StudioStore = ReturnType<typeof createStudioStore>;
