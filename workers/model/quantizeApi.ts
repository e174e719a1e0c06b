/**
 * What the model worker does with the model it holds, beyond showing it: hand a copy of its bytes to a
 * calibration worker, and quantize it with calibrated ranges. It lives in the model worker because the
 * decoded float model is already there (docs/ARCHITECTURE.md, principle 8: handles, not payloads); quantizing is
 * pure CPU work, so no runtime is loaded for it.
 *
 * Plain object like modelApi: no comlink, no DOM. Every buffer it returns is freshly allocated, so the
 * worker entry may transfer it without detaching the held model's bytes (its tensors are views into them).
 */
import { encodeParts, externalDataLayout, needsExternalData, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeBf16 } from '../../src/core/quantize/bf16Preset.ts';
import { validateConfig, type QuantConfig } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { rangesFromTable, type RangeTable } from '../../src/core/calibrate/run/rangeTable.ts';
import type { QuantizeReport } from '../../src/core/quantize/quantizeReport.ts';
import { heldModel, type ModelApi } from './modelApi.ts';
import type { CompareHeldApi } from './compareHeldApi.ts';
import type { PaneApi } from './paneApi.ts';
import type { ComparisonWire } from '../compare/comparisonWire.ts';
import { modelStem } from '../../src/core/onnx/fileName.ts';

/**
 * A model for another worker: a copy of its .onnx file (the small protobuf when it has external data), and
 * its external-data files as the user's Files, which cross to a worker by reference and are read there.
 */
export interface ModelBytesCopy {
  fileName: string;
  bytes: ArrayBuffer;
  externalFiles: Record<string, Blob>;
}

export interface QuantizeOutput {
  /** The quantized model as consecutive parts (their concatenation is the .onnx file): `new Blob(parts)`. */
  parts: ArrayBuffer[];
  byteLength: number;
  report: QuantizeReport;
  /** Wall time of quantizing and encoding, in seconds. */
  seconds: number;
  /**
   * The external data file (`dataFileName`) when the model is written with one: the source had external data,
   * or the result is too large for one protobuf. `parts` is then the .onnx that refers to it.
   */
  data?: { parts: ArrayBuffer[]; byteLength: number };
}

export type { RangeTable } from '../../src/core/calibrate/run/rangeTable.ts';

const copyOf = (view: Uint8Array): ArrayBuffer => view.slice().buffer as ArrayBuffer;

export const quantizeApi = {
  /** A fresh copy of the held model's .onnx bytes, and its data files as given (other workers read those themselves). */
  modelBytes(handle: string): ModelBytesCopy {
    const held = heldModel(handle);
    return {
      fileName: held.opened.summary.fileName,
      bytes: copyOf(held.bytes),
      externalFiles: { ...held.externalBlobs },
    };
  },

  /**
   * Quantizes the held float model. `config` is validated again here (it crossed a boundary). A source with
   * external data gives a result with external data too, in a file named `dataFileName` (by default the
   * source's name + `.quant.onnx.data`). Throws the core's named errors (UnsupportedModelError, ConfigError, ExclusionError).
   */
  quantize(
    handle: string,
    ranges: RangeTable,
    config: QuantConfig,
    configName: string,
    dataFileName?: string,
  ): QuantizeOutput {
    return quantizedHeld(handle, 'quant', dataFileName, (float) =>
      quantizeModel(float, rangesFromTable(ranges), validateConfig(config), configName),
    );
  },

  /** The BF16 preset's with-cast model of the held float model (core quantizeBf16); no ranges. */
  quantizeBf16(handle: string, dataFileName?: string): QuantizeOutput {
    return quantizedHeld(handle, 'bf16', dataFileName, (float) => quantizeBf16(float));
  },
};

/**
 * The held model of `handle` through `quantize`, as fresh parts for the page; a source with external data gives
 * external data named `dataFileName`, by default the source's name + `.<kind>.onnx.data`.
 */
function quantizedHeld(
  handle: string,
  kind: 'quant' | 'bf16',
  dataFileName: string | undefined,
  quantize: (float: ModelProto) => { model: ModelProto; report: QuantizeReport },
): QuantizeOutput {
  const start = performance.now();
  const held = heldModel(handle);
  const { model, report } = quantize(held.opened.model);
  return encoded(
    model,
    report,
    start,
    held.externalFiles.size > 0,
    dataFileName ?? `${modelStem(held.opened.summary.fileName)}.${kind}.onnx.data`,
  );
}

/**
 * A written model as fresh parts for the page, with its report and the time since `start`; with external data
 * (`external`: the source had it, or the model is too large for one protobuf) the .onnx refers to `dataFileName`,
 * whose parts come as `data`.
 */
function encoded(
  model: ModelProto,
  report: QuantizeReport,
  start: number,
  external: boolean,
  dataFileName: string,
): QuantizeOutput {
  const total = (parts: ArrayBuffer[]) => parts.reduce((n, p) => n + p.byteLength, 0);
  if (external || needsExternalData(model)) {
    const layout = externalDataLayout(model, dataFileName);
    const parts = encodeParts(layout.model).map(copyOf);
    const data = layout.dataParts.map(copyOf);
    return {
      parts,
      byteLength: total(parts),
      report,
      seconds: (performance.now() - start) / 1000,
      data: { parts: data, byteLength: total(data) },
    };
  }
  const parts = encodeParts(model).map(copyOf);
  return { parts, byteLength: total(parts), report, seconds: (performance.now() - start) / 1000 };
}

export type QuantizeApi = typeof quantizeApi;

/** Everything the model worker exposes (its comparison sent in columns, workers/compare/comparisonWire.ts). */
export type ModelWorkerApi = ModelApi &
  QuantizeApi &
  PaneApi & {
    compareWithHeld(...args: Parameters<CompareHeldApi['compareWithHeld']>): Promise<ComparisonWire>;
  };
