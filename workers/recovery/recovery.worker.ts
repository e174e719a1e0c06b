/**
 * The recovery worker's entry: wiring only. The API lives in recoveryApi.ts (tests call it with a runtime
 * of their choosing); here it gets onnxruntime-web and the OffscreenCanvas image decoder, and the progress
 * callback the page passed as a Comlink.proxy is released when its run ends.
 */
import { expose, transfer } from 'comlink';
import { createRecoveryApi, type RecoveryApi } from './recoveryApi.ts';
import { decodeWithCanvas } from '../calibration/decodeImage.ts';
import { createWebRuntime } from '../runtime/ort.ts';
import { releasingProgress } from '../runtime/progressProxy.ts';

const api = createRecoveryApi({ runtime: createWebRuntime, decodeImage: decodeWithCanvas });

const wired: RecoveryApi = {
  ...api,
  recover: (handle, request, onProgress) =>
    releasingProgress(onProgress, () => api.recover(handle, request, onProgress)),
  ladder: (handle, request, onProgress) => releasingProgress(onProgress, () => api.ladder(handle, request, onProgress)),
  pick(rungHandle) {
    const picked = api.pick(rungHandle);
    return transfer(picked, [picked.bytes]);
  },
};

expose(wired);
