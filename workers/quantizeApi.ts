/**
 * What the model worker does with the model it holds, beyond showing it: hand a copy of its bytes to a
 * calibration worker, and quantize it with calibrated ranges. It lives in the model worker because the
 * decoded float model is already there (ARCHITECTURE, example 8: handles, not payloads); quantizing is
 * pure CPU work, so no runtime is loaded for it.
 *
 * Plain object like modelApi: no comlink, no DOM. Every buffer it returns is freshly allocated, so the
 * worker entry may transfer it without detaching the held model's bytes (its tensors are views into them).
 */
import { encodeParts, type ModelProto } from '../src/core/onnx/index.ts';
import { quantizeBf16 } from '../src/core/precision/bf16Preset.ts';
import { validateConfig, type QuantConfig } from '../src/core/quantize/config.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { rangesFromTable, type RangeTable } from '../src/core/calibrate/rangeTable.ts';
import type { QuantizeReport } from '../src/core/quantize/report.ts';
import { heldModel, type ModelApi } from './modelApi.ts';

/** Copies of a model's file and of its external-data files, for another worker. */
export interface ModelBytesCopy {
  fileName: string;
  bytes: ArrayBuffer;
  externalFiles: Record<string, ArrayBuffer>;
}

export interface QuantizeOutput {
  /** The quantized model as consecutive parts (their concatenation is the .onnx file): `new Blob(parts)`. */
  parts: ArrayBuffer[];
  byteLength: number;
  report: QuantizeReport;
  /** Wall time of quantizing and encoding, in seconds. */
  seconds: number;
}

export type { RangeTable } from '../src/core/calibrate/rangeTable.ts';

const copyOf = (view: Uint8Array): ArrayBuffer => view.slice().buffer as ArrayBuffer;

export const quantizeApi = {
  /** Fresh copies of the held model's bytes (calibration workers decode their own copy, then end). */
  modelBytes(handle: string): ModelBytesCopy {
    const held = heldModel(handle);
    const externalFiles = Object.fromEntries([...held.externalFiles].map(([name, view]) => [name, copyOf(view)]));
    return { fileName: held.opened.summary.fileName, bytes: copyOf(held.bytes), externalFiles };
  },

  /**
   * Quantizes the held float model. `config` is validated again here (it crossed a boundary).
   * Throws the core's named errors (UnsupportedModelError, ConfigError, ExclusionError).
   */
  quantize(handle: string, ranges: RangeTable, config: QuantConfig, configName: string): QuantizeOutput {
    const start = performance.now();
    const held = heldModel(handle);
    const { model, report } = quantizeModel(held.opened.model, rangesFromTable(ranges), validateConfig(config), configName);
    return encoded(model, report, start);
  },

  /** The BF16 preset's with-cast model of the held float model (core quantizeBf16); no ranges. */
  quantizeBf16(handle: string): QuantizeOutput {
    const start = performance.now();
    const { model, report } = quantizeBf16(heldModel(handle).opened.model);
    return encoded(model, report, start);
  },
};

/** A written model as fresh parts for the page, with its report and the time since `start`. */
function encoded(model: ModelProto, report: QuantizeReport, start: number): QuantizeOutput {
  const parts = encodeParts(model).map(copyOf);
  const byteLength = parts.reduce((n, p) => n + p.byteLength, 0);
  return { parts, byteLength, report, seconds: (performance.now() - start) / 1000 };
}

export type QuantizeApi = typeof quantizeApi;

/** Everything the model worker exposes. */
export type ModelWorkerApi = ModelApi & QuantizeApi;
