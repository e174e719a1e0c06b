/**
 * The data the page exchanges with its workers (requests, progress, results), named for the rest of the
 * page. ui/remote is the only code that knows workers exist: the store, the persistence and the components
 * take these types from here, never from workers/, so a worker's API can move (into core, into another
 * worker) by changing this file alone. Types only: nothing here starts or imports a worker at run time.
 */
export type {
  CalibrationProgress,
  CalibrationRequest,
  CalibrationResult,
  CalibrationSample,
} from '../../../workers/calibration/calibrationApi.ts';
export type {
  EvaluationLabels,
  EvaluationProgress,
  EvaluationRequest,
  EvaluationResult,
  ParityRequest,
  ReportContext,
  SuggestOutcome,
  SuggestRequest,
  TensorHistogramRequest,
  TensorHistograms,
} from '../../../workers/evaluation/evaluationApi.ts';
export type { WeightStatistics } from '../../../workers/model/modelApi.ts';
export type { ParityResult, ParityRow, PartingPoint } from '../../core/evaluate/parity.ts';
export type { ModelBytesCopy, RangeTable } from '../../../workers/model/quantizeApi.ts';
export type {
  LadderOutcome,
  LadderRequest,
  LadderSoFar,
  LayerCurve,
  PickedModel,
  RecoveryOutcome,
  RecoveryWorkerProgress,
  RecoveryRequest,
  RungSummary,
  SensitiveSummary,
} from '../../../workers/recovery/recoveryApi.ts';
