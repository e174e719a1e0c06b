/**
 * Comparison metrics between a float model's output and its quantized model's output.
 *
 * Pure functions over typed arrays, defined as AMD Quark's evaluation tool
 * (quark/onnx/tools/evaluate.py) defines them, plus classifier agreement and the summary report.
 * Running models and reading files happen elsewhere (workers, CLI); this folder only does arithmetic.
 */

export { MetricInputError, type FloatArray } from './input.ts';
export { cosineSimilarity, definedCosine, zeroSide } from './cosine.ts';
export { l2Distance } from './l2.ts';
export { maxOf, meanSquaredError, psnr, psnrFromMse, PSNR_EPSILON, type PsnrOptions } from './psnr.ts';
export { ssim, SSIM_EPSILON, type SsimOptions, type SsimVariant } from './ssim.ts';
export { defaultLayout, imagePlanes, type ImageLayout, type Plane } from './planes.ts';
export { gaussianBlur, gaussianKernel, reflect101, SSIM_SIGMA, SSIM_WINDOW } from './gaussian.ts';
export { argmax, classifierAgreement, topKMatches, type Agreement } from './agreement.ts';
export { editDistance } from '../editDistance.ts';
export { characterErrorRate, ctcGreedyDecode, sequenceAgreement, type SequenceAgreement } from './sequence.ts';
export {
  EMPTY_STAT,
  finishStat,
  foldValue,
  mergeStats,
  METRIC_NAMES,
  PSNR_PARTS,
  ZERO_OUTPUT,
  allZeroLines,
  allZeroNote,
  renderSummary,
  summarizeSamples,
  summarizeValues,
  type MetricName,
  type MetricStat,
  type OutputSummary,
  type RenderOptions,
  type RunningStat,
  type SampleMetrics,
  type SampleRecord,
} from './metricSummary.ts';
export { numpyFloat32Text } from './numpyText.ts';
export * from './layerwise.ts';
export * from './layerwiseJumps.ts';
export * from './layerwiseTensors.ts';
