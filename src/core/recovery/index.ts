/** Accuracy recovery around quantization: CLE, bias correction, AdaRound, AdaQuant, and the pipeline that runs them. */
export {
  crossLayerEqualize,
  findClePairs,
  type ClePair,
  type CleOptions,
  type CleReport,
  type SkippedPair,
} from './cle.ts';
export { gatherLayerRows, RecoveryError, type CancelSignal, type LayerRows } from './layerData.ts';
export { findLinearLayers, applyLayerUpdates, type LinearLayer, type LayerUpdate } from './linearLayers.ts';
export { buildLayerProblem, layerLoss, type GramProduct, type GramProductFactory } from './layerProblem.ts';
export { incrementalObjective, type IncrementalObjective } from './incrementalObjective.ts';
export { adaround } from './adaround.ts';
export { adaquant } from './adaquant.ts';
export { correctBias, meanOutputShift } from './biasCorrection.ts';
export {
  quantizeWithRecovery,
  prepareNamed,
  type RecoveryOptions,
  type RecoveryProgress,
  type RecoveryReport,
  type RecoveryResult,
} from './quantizeWithRecovery.ts';
export type { TuneOptions, LayerTuning, CurvePoint } from './tuning.ts';
export { NoRecoveryDataError, RecoveryCancelledError } from './errors.ts';
