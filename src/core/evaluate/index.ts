/** Judging a quantization: running both models on the same samples, and searching for exclusions. Public face of src/core/evaluate. */
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
export { rankLayers, tailSubgraph, type RankBy, type RankedLayer, type Tail } from './candidates.ts';
export {
  suggestExclusions,
  withCandidate,
  type Candidate,
  type Measurement,
  type StopReason,
  type SuggestOptions,
  type SuggestResult,
  type SuggestStep,
} from './suggest.ts';
export { qdqGrids, type QdqGrid } from './qdqGrids.ts';
export { EvaluationCancelledError, NoEvaluationDataError } from './errors.ts';
