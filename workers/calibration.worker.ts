/**
 * The calibration worker's entry: wiring only. The API lives in calibrationApi.ts (tests build it with
 * a Node runtime); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the
 * progress callback the page passed as a Comlink.proxy is released when its run ends.
 */
import { expose, releaseProxy, type Remote } from 'comlink';
import { createCalibrationApi, type CalibrationApi, type ProgressCallback } from './calibrationApi.ts';
import { decodeWithCanvas } from './calibration/decodeImage.ts';
import { createWebRuntime } from './runtime/ort.ts';

const api = createCalibrationApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas });

const wired: CalibrationApi = {
  ...api,
  async run(handle, request, onProgress) {
    try {
      return await api.run(handle, request, onProgress);
    } finally {
      (onProgress as Remote<ProgressCallback> | undefined)?.[releaseProxy]?.();
    }
  },
};

expose(wired);
