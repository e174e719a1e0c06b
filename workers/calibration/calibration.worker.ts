/**
 * The calibration worker's entry: wiring only. The API lives in calibrationApi.ts (tests build it with
 * a Node runtime); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the
 * progress callback the page passed as a Comlink.proxy is released when its run ends, and the collector states a
 * share returns are transferred, not copied.
 */
import { expose, transfer } from 'comlink';
import { stateBuffers } from '../../src/core/calibrate/run/statistics.ts';
import { createCalibrationApi, type CalibrationApi } from './calibrationApi.ts';
import { decodeWithCanvas } from './decodeImage.ts';
import { createWebRuntime } from '../runtime/ort.ts';
import { releasingProgress } from '../runtime/progressProxy.ts';

const api = createCalibrationApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas });

const wired: CalibrationApi = {
  ...api,
  run: (handle, request, onProgress) =>
    releasingProgress(onProgress, async () => {
      const result = await api.run(handle, request, onProgress);
      // A share's states go to the page to be merged: their bins move instead of being copied (the worker keeps none).
      return result.states ? transfer(result, stateBuffers(result.states)) : result;
    }),
};

expose(wired);
