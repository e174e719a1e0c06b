/**
 * Named errors of accuracy recovery that both sides of the worker boundary raise: the recovery worker when
 * a run has no data or is cancelled, the page when it ends a worker that did not stop in time. Declared
 * once, here, so the store meets one name whichever side threw (docs/ARCHITECTURE.md, principle 9). Failures of
 * the steps themselves keep their own names (RecoveryError, ConfigError, LadderTargetError, …).
 */
import { StudioError } from '../onnx/errors.ts';

/** The user cancelled a recovery run or a ladder climb. */
export class RecoveryCancelledError extends StudioError {
  override readonly name = 'RecoveryCancelledError';
}

/** No calibration samples: fine-tuning, bias correction and calibration need real data. */
export class NoRecoveryDataError extends StudioError {
  override readonly name = 'NoRecoveryDataError';
}
