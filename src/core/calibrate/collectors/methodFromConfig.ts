/**
 * Which collector, with which options, calibrates activations for a quantization configuration
 * (Quark's mapping of calibrate_method × scale type, and its extra options such as Percentile,
 * NumBins, CalibMovingAverage).
 */
import type { QuantConfig } from '../../quantize/config.ts';
import { activationCollectorMethod, createState, type CollectorState } from './registry.ts';
import type { CalibrationMethod } from './types.ts';

/** A fresh collector state for one activation tensor under `config`. */
export function activationState(config: QuantConfig): CollectorState {
  const x = config.extraOptions;
  const method = activationCollector(config);
  // The histogram options Percentile and LayerwisePercentile share.
  const histogram = { numBins: x.NumBins, symmetric: x.CalibTensorRangeSymmetric };
  switch (method) {
    case 'MinMax':
    case 'NonOverflow':
      return createState(method, { movingAverage: x.CalibMovingAverage, symmetric: x.CalibTensorRangeSymmetric });
    case 'Percentile':
      return createState(method, { percentile: x.Percentile, ...histogram });
    case 'Entropy':
      return createState(method, { numBins: x.NumBins, numQuantizedBins: x.NumQuantizedBins });
    case 'PowerOfTwoMinMSE':
      return createState(method, { quantType: config.activationType });
    case 'MinMSE':
    case 'ConsumerMSE':
      return createState(method, { quantType: config.activationType, symmetric: x.ActivationSymmetric });
    case 'LayerwisePercentile':
      return createState(method, { quantType: config.activationType, ...histogram });
    default:
      return createState(method);
  }
}

/**
 * The calibration method a configuration uses, for reports, statistics files and calibration caches: the collector's
 * name, except Sequential, which runs Entropy's collector on the partly quantized model and so gives other ranges.
 */
export function activationMethodName(config: QuantConfig): string {
  if (config.calibrationMethod === 'Sequential') return 'Sequential';
  return activationCollector(config);
}

/** The collector that calibrates activations under `config`: its calibrate_method read with its scale type. */
export function activationCollector(config: QuantConfig): CalibrationMethod {
  return activationCollectorMethod(
    config.calibrationMethod,
    config.scaleType === 'powerOfTwo' ? 'PowerOf2' : 'Float32',
  );
}
