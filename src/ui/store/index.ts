/**
 * The page's store, wired to the real model worker. Components import `useStudio` from here and select
 * narrowly (`useStudio((s) => s.model.status)`); tests use createStudioStore with fake services.
 */
import { modelRemote } from '../remote/modelRemote.ts';
import { createStudioStore } from './createStudioStore.ts';

export const useStudio = createStudioStore({ model: modelRemote });

export type { StudioState } from './createStudioStore.ts';
export type { ModelError, ModelSource, ModelState, ModelStatus, ModelBytes } from './modelSlice.ts';
