/**
 * The recovery worker's entry: wiring only. The API lives in recoveryApi.ts (tests call it with a runtime
 * of their choosing); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the progress
 * callback the page passed as a Comlink.proxy is released when its run ends.
 */
import { expose, releaseProxy, transfer, type Remote } from 'comlink';
import { createRecoveryApi, type RecoveryApi, type RecoveryWorkerProgressCallback } from './recoveryApi.ts';
import { decodeWithCanvas } from '../calibration/decodeImage.ts';
import { createWebRuntime } from '../runtime/ort.ts';

const api = createRecoveryApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas });

const release = (callback: RecoveryWorkerProgressCallback | undefined) =>
  (callback as Remote<RecoveryWorkerProgressCallback> | undefined)?.[releaseProxy]?.();

const wired: RecoveryApi = {
  ...api,
  async recover(handle, request, onProgress) {
    try {
      return await api.recover(handle, request, onProgress);
    } finally {
      release(onProgress);
    }
  },
  async ladder(handle, request, onProgress) {
    try {
      return await api.ladder(handle, request, onProgress);
    } finally {
      release(onProgress);
    }
  },
  pick(rungHandle) {
    const picked = api.pick(rungHandle);
    return transfer(picked, [picked.bytes]);
  },
};

expose(wired);
