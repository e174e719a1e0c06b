/**
 * The ONNX layer's public face: decode and encode, the model types, tensor codecs, the graph index
 * and the summary. Code outside src/core/onnx imports from here.
 */
export * from './model.ts';
export * from './errors.ts';
export { decode, decodeTensor, externalDataNames, type DecodeOptions } from './decode.ts';
export { encode, encodeParts } from './encode.ts';
export * from './externalize.ts';
export * from './elementTypes.ts';
export * from './tensorData.ts';
export { type ExternalFiles, externalLocation, isExternal } from './externalData.ts';
export { buildGraphIndex, tensorsReadBy, weightOf, type GraphIndex } from './graphIndex.ts';
export { inferElementTypes, type TensorElementTypes } from './elementTypeInference.ts';
export { assignNodeIds } from './nodeIds.ts';
export { constantNodeTensor } from './constantNode.ts';
export { forEachGraph, forEachTensor, subgraphsOf } from './walk.ts';
export {
  summarize,
  tensorSummary,
  type ModelSummary,
  type TensorSummary,
  type OpCount,
  type QuantizationState,
} from './modelSummary.ts';
export { openModel, type OpenedModel } from './openModel.ts';
