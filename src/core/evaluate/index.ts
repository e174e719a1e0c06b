/**
 * Judging a quantization: running both models on the same samples and comparing them. The searches that measure
 * candidates with it are in src/core/search. Public face of src/core/evaluate.
 */
export {
  compareModels,
  ComparisonError,
  type Comparison,
  type ComparisonRuntime,
  type CompareOptions,
  type LayerwiseResult,
  type RunTensor,
  type SampleSession,
} from './compareModels.ts';
export {
  isClassifierLike,
  isImageLike,
  meanOutputCosine,
  outputMetrics,
  type MetricSwitch,
  type OutputMetricOptions,
} from './outputMetrics.ts';
export { qdqGrids, type QdqGrid } from './qdqGrids.ts';
export { EvaluationCancelledError, NoEvaluationDataError } from './errors.ts';
