/**
 * The studio's one store, combined from slices (docs/ARCHITECTURE.md, principle 10): the model, the calibration
 * (data, preprocessing, ranges) and the run (quantization settings and the quantized model).
 * Middleware, when some is needed, goes on this combined store only. Services are injected so tests
 * build a store with fakes and read it through getState().
 *
 * One rule spans slices and lives here: when the open model changes, calibration results and the
 * quantized model of the old one are dropped (and its calibration workers ended); its exclusions (they name
 * the old model's nodes) are put aside for when it is reopened, and the new model's own come back. Data the
 * user gave for the old model is never carried over silently: it is offered ("keep these images for this
 * model?"), and the sample's drawn scenes, which fit no other model, are cleared and said to be.
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
import { createParitySlice, type ParitySlice } from './paritySlice.ts';
import { modelKey } from './selectors.ts';

export type StudioState = ModelSlice &
  CalibrationSlice &
  RunSlice &
  ExclusionSlice &
  GraphSlice &
  EvaluationSlice &
  RecoverySlice &
  SampleSlice &
  ParitySlice;

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

const unavailable = (what: string) => () =>
  Promise.reject(Object.assign(new Error(`${what} is not available here`), { name: 'WorkerError' }));

const noCalibration: CalibrationService = {
  calibrate: unavailable('Calibration'),
  cancel: () => undefined,
  release: () => undefined,
};
const noQuantize: QuantizeService = {
  quantize: unavailable('Quantization'),
  quantizeBf16: unavailable('Quantization'),
};
const noEvaluation: EvaluationService = {
  evaluate: unavailable('Evaluation'),
  suggest: unavailable('Evaluation'),
  cancel: () => undefined,
  release: () => undefined,
};
const noSample: SampleService = {
  fileName: '',
  source: () => ({ fileName: 'sample', byteLength: null, read: unavailable('The sample') }),
  preset: 'unit',
  size: { height: 1, width: 1 },
  counts: { calibration: 0, heldOut: 0 },
  images: unavailable('The sample'),
  settings: { preset: 'XINT8', perChannel: false, calibrationMethod: 'MinMax' },
};
const noRecovery: RecoveryService = {
  recover: unavailable('Recovery'),
  ladder: unavailable('Recovery'),
  pick: unavailable('Recovery'),
  ladderReport: unavailable('Recovery'),
  cancel: () => undefined,
  release: () => undefined,
};

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
    ...createParitySlice<StudioState>(services.evaluation ?? noEvaluation)(...a),
  }));
  const sampleName = services.sample?.fileName || null;
  store.subscribe((state, previous) => {
    if (state.model.handle === previous.model.handle) return;
    const leaving = previous.model.summary;
    const arriving = state.model.summary;
    state.resetCalibrationForModel(arriving);
    state.clearRunResult();
    state.switchExclusionModel(modelKey(leaving), modelKey(arriving));
    carryData(leaving?.fileName ?? null, arriving?.fileName ?? null);
    state.resetGraph();
    state.resetEvaluation();
    state.resetRecovery();
    state.resetSample();
    state.resetParity();
    if (leaving && leaving.fileName === sampleName && arriving?.fileName !== sampleName) state.leaveSample();
  });

  /** The data of the model left behind: offered to the new one, or cleared when it was the sample's. */
  function carryData(from: string | null, to: string | null): void {
    const s = store.getState();
    const calibration = s.calibration.images.length + s.calibration.npy.length;
    const evaluation = s.evaluation.images.length + s.evaluation.npy.length;
    // Back to the model the data came from (a failed open gives the old model back): nothing to ask.
    if (s.calibration.carried && s.calibration.carried.from === to) return s.setCarriedData(null);
    if (from === null || to === null || from === to || calibration + evaluation === 0) return;
    if (from === sampleName) {
      s.clearCalibrationData();
      s.clearEvaluationData();
      s.setCarriedData({ kind: 'cleared', from, calibration, evaluation });
    } else {
      s.setCarriedData({
        kind: 'offer',
        from: s.calibration.carried?.kind === 'offer' ? s.calibration.carried.from : from,
        calibration,
        evaluation,
      });
    }
  }
  return store;
}

export type StudioStore = ReturnType<typeof createStudioStore>;
