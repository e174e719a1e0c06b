/**
 * The evaluation worker's entry: wiring only. The API lives in evaluationApi.ts (tests build it with
 * a Node runtime); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the
 * progress callback the page passed as a Comlink.proxy is released when its run ends.
 */
import { expose } from 'comlink';
import { createEvaluationApi, type EvaluationApi } from './evaluationApi.ts';
import { decodeWithCanvas } from '../calibration/decodeImage.ts';
import { createWebRuntime, parityRuntimes } from '../runtime/ort.ts';
import { releasingProgress } from '../runtime/progressProxy.ts';

const api = createEvaluationApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas, parityRuntimes });

const wired: EvaluationApi = {
  ...api,
  evaluate: (handle, request, onProgress) =>
    releasingProgress(onProgress, () => api.evaluate(handle, request, onProgress)),
  parity: (handle, request, onProgress) => releasingProgress(onProgress, () => api.parity(handle, request, onProgress)),
  suggest: (handle, request, onProgress) =>
    releasingProgress(onProgress, () => api.suggest(handle, request, onProgress)),
};

expose(wired);
