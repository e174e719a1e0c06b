/**
 * The evaluation worker's entry: wiring only. The API lives in evaluationApi.ts (tests build it with
 * a Node runtime); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the
 * progress callback the page passed as a Comlink.proxy is released when its run ends.
 */
import { expose, releaseProxy, type Remote } from 'comlink';
import { createEvaluationApi, type EvaluationApi, type EvaluationProgressCallback } from './evaluationApi.ts';
import { decodeWithCanvas } from '../calibration/decodeImage.ts';
import { createWebRuntime, parityRuntimes } from '../runtime/ort.ts';

const api = createEvaluationApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas, parityRuntimes });

const release = (callback: EvaluationProgressCallback | undefined) =>
  (callback as Remote<EvaluationProgressCallback> | undefined)?.[releaseProxy]?.();

const wired: EvaluationApi = {
  ...api,
  async evaluate(handle, request, onProgress) {
    try {
      return await api.evaluate(handle, request, onProgress);
    } finally {
      release(onProgress);
    }
  },
  async parity(handle, request, onProgress) {
    try {
      return await api.parity(handle, request, onProgress);
    } finally {
      release(onProgress);
    }
  },
  async suggest(handle, request, onProgress) {
    try {
      return await api.suggest(handle, request, onProgress);
    } finally {
      release(onProgress);
    }
  },
};

expose(wired);
