/**
 * The model worker's entry: wiring only. The API lives in modelApi.ts, where tests import it.
 */
import { expose } from 'comlink';
import { modelApi } from './modelApi.ts';

expose(modelApi);
