/**
 * The model worker as the store sees it: a ModelService. Model bytes are transferred, not copied (the
 * page keeps none of them); the worker keeps the decoded model and answers with a handle and a summary.
 */
import { transfer } from 'comlink';
import type { ModelApi } from '../../../workers/modelApi.ts';
import type { ModelService } from '../store/modelSlice.ts';
import { WorkerConnection } from './workerConnection.ts';

const connection = new WorkerConnection<ModelApi>(
  () => new Worker(new URL('../../../workers/model.worker.ts', import.meta.url), { type: 'module', name: 'model' }),
  'model worker',
);

export const modelRemote: ModelService = {
  open(fileName, { bytes, externalFiles }) {
    const external = transfer(externalFiles, Object.values(externalFiles));
    return connection.call((api) => api.open(transfer(bytes, [bytes]), fileName, external));
  },
  async close(handle) {
    await connection.call((api) => api.close(handle));
  },
};
