/**
 * Empirical bias correction (Nagel et al. 2019, "Data-Free Quantization Through Weight Equalization and Bias
 * Correction", §4.2 and its empirical variant): the quantized layer's expected output shift on the calibration
 * data, E[x_f·w_f + b_f] − E[x_q·ŵ + b̂] per output channel, is added to its bias. Because the layer data is
 * gathered from the partially corrected model stage by stage (quantizeWithRecovery.ts), a layer whose upstream
 * layers were corrected in earlier stages also makes up the shift its inputs still carry; one corrected in the
 * same stage as an upstream layer takes the 'local' target (its own weights' shift only). Needs only the column
 * means of the gathered rows. Pure.
 */
import type { NodeId } from '../onnx/model.ts';
import type { LayerRows } from './layerData.ts';
import type { ReconstructionTarget } from './layerProblem.ts';

export interface BiasCorrection {
  readonly id: NodeId;
  /** Root mean square over channels of the mean output shift before correction, in output units. */
  readonly shiftBefore: number;
  /** The corrected bias in real units (before rounding to the bias grid). */
  readonly bias: Float32Array;
}

/**
 * Mean output shift per channel of a layer on its gathered rows (float layer minus quantized layer); with the
 * 'local' target the float layer reads the quantized input too (only the layer's own error, see layerProblem.ts).
 */
export function meanOutputShift(data: LayerRows, target: ReconstructionTarget = 'float'): Float64Array {
  const { layer, rows, width } = data;
  const floatRows = target === 'float' ? data.floatRows : data.quantRows;
  const meanF = new Float64Array(width);
  const meanQ = new Float64Array(width);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < width; i++) {
      meanF[i] += floatRows[r * width + i];
      meanQ[i] += data.quantRows[r * width + i];
    }
  }
  for (let i = 0; i < width; i++) {
    meanF[i] /= Math.max(1, rows);
    meanQ[i] /= Math.max(1, rows);
  }
  const outPerGroup = layer.outChannels / layer.groups;
  const shift = new Float64Array(layer.outChannels);
  for (let m = 0; m < layer.outChannels; m++) {
    const base = Math.floor(m / outPerGroup) * layer.inPerGroup;
    const s = layer.scaleOf(m);
    const z = layer.zeroPointOf(m);
    let f = layer.floatBias[m];
    let q = layer.bias[m];
    for (let i = 0; i < layer.inPerGroup; i++) {
      const at = layer.weightIndex(m, i);
      f += meanF[base + i] * layer.floatWeight[at];
      q += meanQ[base + i] * (layer.codes[at] - z) * s;
    }
    shift[m] = f - q;
  }
  return shift;
}

/** The bias that cancels the layer's mean output shift on its rows. */
export function correctBias(data: LayerRows, target: ReconstructionTarget = 'float'): BiasCorrection {
  const shift = meanOutputShift(data, target);
  const bias = Float32Array.from(data.layer.bias, (b, m) => b + shift[m]);
  const rms = Math.sqrt(shift.reduce((a, s) => a + s * s, 0) / Math.max(1, shift.length));
  return { id: data.layer.id, shiftBefore: rms, bias };
}
