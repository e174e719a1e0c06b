/**
 * The model worker's entry: wiring only. The APIs live in modelApi.ts, quantizeApi.ts, paneApi.ts and compareHeldApi.ts, where tests
 * import them; the buffers they return are fresh copies, transferred here rather than cloned.
 */
import { expose, releaseProxy, transfer, type Remote } from 'comlink';
import { comparisonBuffers, type CompareProgress } from '../compare/compareApi.ts';
import { paneBuffers, type PaneProgress } from '../compare/laidOutPane.ts';
import { compareHeldApi } from './compareHeldApi.ts';
import { paneApi } from './paneApi.ts';
import { modelApi } from './modelApi.ts';
import { quantizeApi, type ModelWorkerApi } from './quantizeApi.ts';

const api: ModelWorkerApi = {
  ...modelApi,
  modelBytes(handle) {
    const copy = quantizeApi.modelBytes(handle);
    return transfer(copy, [copy.bytes]); // the data files are Files: cloned by reference
  },
  quantize(...args) {
    const out = quantizeApi.quantize(...args);
    return transfer(out, [...out.parts, ...(out.data?.parts ?? [])]);
  },
  quantizeBf16(...args) {
    const out = quantizeApi.quantizeBf16(...args);
    return transfer(out, [...out.parts, ...(out.data?.parts ?? [])]);
  },
  graphPane(handle, options, onProgress) {
    try {
      const out = paneApi.graphPane(handle, options, onProgress);
      return transfer(out, paneBuffers(out.view, out.layout));
    } finally {
      (onProgress as Remote<PaneProgress> | undefined)?.[releaseProxy]?.();
    }
  },
  async compareWithHeld(handle, name, other, onProgress) {
    try {
      const out = await compareHeldApi.compareWithHeld(handle, name, other, onProgress);
      return transfer(out, comparisonBuffers(out));
    } finally {
      (onProgress as Remote<CompareProgress> | undefined)?.[releaseProxy]?.();
    }
  },
};

expose(api);
