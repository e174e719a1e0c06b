/**
 * Graph preparation before quantization: public face of src/core/prepare. Every transform takes a
 * ModelProto and returns a new one with the same float outputs, plus a NodeOrigin record that maps the new
 * nodes to the input model's (nodeOrigin.ts).
 */
export { prepare, type PrepareOptions, type PrepareResult, type PrepareSummary } from './prepare.ts';
export { constantsToInitializers, type ConstantsResult } from './constantsToInitializers.ts';
export { removeInitializerInputs, type InitializerInputsResult } from './removeInitializerInputs.ts';
export { foldBatchNorm, type FoldResult } from './foldBatchNorm.ts';
export {
  upgradeOpset,
  OpsetUpgradeError,
  MAX_TARGET_OPSET,
  type OpsetChange,
  type UpgradeResult,
} from './upgradeOpset.ts';
export { minIrVersionForOpset } from './irVersion.ts';
export { carryNodeIds, composeOrigins, identityOrigin, type NodeOrigin } from './nodeOrigin.ts';
