/**
 * The model worker's entry: wiring only. The APIs live in modelApi.ts, quantizeApi.ts, paneApi.ts and compareHeldApi.ts, where tests
 * import them; the buffers they return are fresh copies, transferred here rather than cloned.
 */
import { expose, transfer } from 'comlink';
import { toWire, wireBuffers } from '../compare/comparisonWire.ts';
import { paneBuffers } from '../compare/laidOutPane.ts';
import { releaseProgress, releasingProgress } from '../runtime/progressProxy.ts';
import { compareHeldApi } from './compareHeldApi.ts';
import { paneApi } from './paneApi.ts';
import { modelApi } from './modelApi.ts';
import { quantizeApi, type ModelWorkerApi, type QuantizeOutput } from './quantizeApi.ts';

/** A written model's parts (and its data file's) move to the page instead of being copied. */
const transferred = (out: QuantizeOutput) => transfer(out, [...out.parts, ...(out.data?.parts ?? [])]);

const api: ModelWorkerApi = {
  ...modelApi,
  modelBytes(handle) {
    const copy = quantizeApi.modelBytes(handle);
    return transfer(copy, [copy.bytes]); // the data files are Files: cloned by reference
  },
  quantize: (...args) => transferred(quantizeApi.quantize(...args)),
  quantizeBf16: (...args) => transferred(quantizeApi.quantizeBf16(...args)),
  graphPane(handle, options, onProgress) {
    try {
      const out = paneApi.graphPane(handle, options, onProgress);
      return transfer(out, paneBuffers(out.view, out.layout));
    } finally {
      releaseProgress(onProgress);
    }
  },
  compareWithHeld: (handle, name, other, onProgress) =>
    releasingProgress(onProgress, async () => {
      const wire = toWire(await compareHeldApi.compareWithHeld(handle, name, other, onProgress));
      return transfer(wire, wireBuffers(wire));
    }),
};

expose(api);
