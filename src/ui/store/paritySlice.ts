/**
 * Parity across runtimes (issue 34): after quantizing, one click runs the float and the quantized model on every
 * runtime the browser has (the evaluation worker's `parity`, core/evaluate/parity.ts) on the first evaluation
 * samples, against the WASM float reference. The result is kept until the model or its quantization changes.
 */
import type { StateCreator } from 'zustand';
import type { EvaluationProgress, ParityResult } from '../remote/workerTypes.ts';
import type { EvaluationService, EvaluationSlice } from './evaluationSlice.ts';
import type { CalibrationSlice } from './calibrationSlice.ts';
import type { ModelSlice } from './modelSlice.ts';
import { comparisonInputs, type RunSlice } from './runSlice.ts';
import { evaluationSamples } from './samples.ts';
import { failedRun, notQuantized } from './failedRun.ts';

export interface ParityState {
  status: 'idle' | 'running' | 'done' | 'cancelled' | 'error';
  progress: EvaluationProgress | null;
  result: (ParityResult & { quantized: Blob }) | null;
  error: { name: string; message: string } | null;
}

export interface ParitySlice {
  parity: ParityState;
  /** Runs the parity check on the current quantized model. */
  checkParity(): Promise<void>;
  cancelParity(): void;
  resetParity(): void;
}

export const initialParityState: ParityState = { status: 'idle', progress: null, result: null, error: null };

type Needs = ParitySlice & ModelSlice & RunSlice & CalibrationSlice & EvaluationSlice;

export function createParitySlice<S extends Needs>(service: EvaluationService): StateCreator<S, [], [], ParitySlice> {
  let latest = 0;
  return (set, get) => {
    const patch = (p: Partial<ParityState>) => set((s) => ({ parity: { ...s.parity, ...p } }) as Partial<S>);
    return {
      parity: initialParityState,

      async checkParity() {
        const { model, run } = get();
        if (!model.handle || get().parity.status === 'running') return;
        const quantized = run.result;
        if (!quantized) {
          patch(notQuantized('the parity check runs the float and the quantized model.'));
          return;
        }
        const { samples } = evaluationSamples(get());
        if (samples.length === 0 || !service.parity) {
          patch({
            status: 'error',
            error: {
              name: 'NoEvaluationDataError',
              message: 'No evaluation data: the parity check runs the evaluation images (or the calibration images).',
            },
          });
          return;
        }
        const request = ++latest;
        patch({ status: 'running', progress: null, error: null });
        try {
          const result = await service.parity(model.handle, comparisonInputs(quantized, samples, get()), (progress) => {
            if (request === latest && get().parity.status === 'running') patch({ progress });
          });
          if (request !== latest) return;
          patch({ status: 'done', progress: null, result: { ...result, quantized: quantized.blob } });
        } catch (e) {
          if (request !== latest) return;
          patch(failedRun(e, 'EvaluationCancelledError'));
        }
      },

      cancelParity() {
        if (get().parity.status !== 'running') return;
        latest++;
        patch({ status: 'cancelled', progress: null });
        service.cancel();
      },

      resetParity() {
        latest++;
        patch(initialParityState);
      },
    };
  };
}
