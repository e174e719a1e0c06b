/**
 * The page's store, wired to the real workers. Components import `useStudio` from here and select
 * narrowly (`useStudio((s) => s.model.status)`); tests use createStudioStore with fake services.
 */
import { calibrationRemote } from '../remote/calibrationRemote.ts';
import { modelRemote, quantizeRemote } from '../remote/modelRemote.ts';
import { evaluationRemote } from '../remote/evaluationRemote.ts';
import { recoveryRemote } from '../remote/recoveryRemote.ts';
import { sampleService } from '../services/sampleService.ts';
import { createStudioStore } from './createStudioStore.ts';

export const useStudio = createStudioStore({
  model: modelRemote,
  calibration: calibrationRemote,
  quantize: quantizeRemote,
  evaluation: evaluationRemote,
  recovery: recoveryRemote,
  sample: sampleService,
});

export type { StudioState } from './createStudioStore.ts';
export type { ModelError, ModelSource, ModelState, ModelStatus, ModelBytes } from './modelSlice.ts';
export type {
  CalibrationState,
  CalibrationStatus,
  CalibrationOutcome,
  NpySample,
  DataRejection,
} from './calibrationSlice.ts';
export type { RunState, RunResult } from './runSlice.ts';
export type { ExclusionEntry, ExclusionState, NewExclusion } from './exclusionSlice.ts';
export { currentConfig, exportedConfig, rangesAreCurrent } from './selectors.ts';
export type { GraphHeat, GraphState, PickMode, PickRole } from './graphSlice.ts';
export type { EvaluationState, EvaluationStatus, EvaluationOutcome, SuggestState } from './evaluationSlice.ts';
export type { RecoveryState, RecoveryStatus, RungSummary } from './recoverySlice.ts';
export { isLost as isLostRung } from './recoverySlice.ts';
export type { SampleState, SampleStage, SampleStatus } from './sampleSlice.ts';
