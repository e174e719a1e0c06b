/**
 * The studio's one store, combined from slices (ARCHITECTURE, example 10): the model, the calibration
 * (data, preprocessing, ranges) and the run (quantization settings and the quantized model).
 * Middleware, when some is needed, goes on this combined store only. Services are injected so tests
 * build a store with fakes and read it through getState().
 *
 * One rule spans slices and lives here: when the open model changes, calibration results and the
 * quantized model of the old one are dropped (and its calibration workers ended), and so are its
 * exclusions (they name the old model's nodes; a session restore or import sets them after the open).
 */
import { create } from 'zustand';
import { createModelSlice, type ModelService, type ModelSlice } from './modelSlice.ts';
import { createCalibrationSlice, type CalibrationService, type CalibrationSlice } from './calibrationSlice.ts';
import { createRunSlice, type QuantizeService, type RunSlice } from './runSlice.ts';
import { createExclusionSlice, type ExclusionSlice } from './exclusionSlice.ts';
import { createGraphSlice, type GraphSlice } from './graphSlice.ts';
import { createEvaluationSlice, type EvaluationService, type EvaluationSlice } from './evaluationSlice.ts';
import { createRecoverySlice, type RecoveryService, type RecoverySlice } from './recoverySlice.ts';
import { createSampleSlice, type SampleService, type SampleSlice } from './sampleSlice.ts';

export type StudioState = ModelSlice & CalibrationSlice & RunSlice & ExclusionSlice & GraphSlice & EvaluationSlice & RecoverySlice & SampleSlice;

export interface StudioServices {
  model: ModelService;
  /** Calibration and quantization; tests of the model slice alone may leave them out. */
  calibration?: CalibrationService;
  quantize?: QuantizeService;
  evaluation?: EvaluationService;
  recovery?: RecoveryService;
  /** The embedded sample and its drawn images. */
  sample?: SampleService;
}

const unavailable = (what: string) => () => Promise.reject(Object.assign(new Error(`${what} is not available here`), { name: 'WorkerError' }));

const noCalibration: CalibrationService = { calibrate: unavailable('Calibration'), cancel: () => undefined, release: () => undefined };
const noQuantize: QuantizeService = { quantize: unavailable('Quantization'), quantizeBf16: unavailable('Quantization') };
const noEvaluation: EvaluationService = { evaluate: unavailable('Evaluation'), suggest: unavailable('Evaluation'), cancel: () => undefined, release: () => undefined };
const noSample: SampleService = {
  fileName: '',
  source: () => ({ fileName: 'sample', byteLength: null, read: unavailable('The sample') }),
  preset: 'unit',
  size: { height: 1, width: 1 },
  counts: { calibration: 0, heldOut: 0 },
  images: unavailable('The sample'),
};
const noRecovery: RecoveryService = { recover: unavailable('Recovery'), ladder: unavailable('Recovery'), pick: unavailable('Recovery'), ladderReport: unavailable('Recovery'), cancel: () => undefined, release: () => undefined };

/** A new store; the page makes one (index.ts), tests make as many as they like. */
export function createStudioStore(services: StudioServices) {
  const store = create<StudioState>()((...a) => ({
    ...createModelSlice<StudioState>(services.model)(...a),
    ...createCalibrationSlice<StudioState>(services.calibration ?? noCalibration)(...a),
    ...createRunSlice<StudioState>(services.quantize ?? noQuantize)(...a),
    ...createExclusionSlice<StudioState>()(...a),
    ...createGraphSlice<StudioState>()(...a),
    ...createEvaluationSlice<StudioState>(services.evaluation ?? noEvaluation)(...a),
    ...createRecoverySlice<StudioState>(services.recovery ?? noRecovery)(...a),
    ...createSampleSlice<StudioState>(services.sample ?? noSample)(...a),
  }));
  store.subscribe((state, previous) => {
    if (state.model.handle === previous.model.handle) return;
    state.resetCalibrationForModel(state.model.summary);
    state.clearRunResult();
    if (state.exclusions.entries.length > 0) state.replaceExclusions([]);
    state.resetGraph();
    state.resetEvaluation();
    state.resetRecovery();
    state.resetSample();
  });
  return store;
}

export type StudioStore = ReturnType<typeof createStudioStore>;
