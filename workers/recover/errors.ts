/**
 * Named errors of the recovery worker (they cross Comlink by `name`, ARCHITECTURE example 9). Failures of
 * the steps themselves keep the core's names (RecoveryError, ConfigError, LadderTargetError, …).
 */

/** The user cancelled a recovery run or a ladder climb. */
export class RecoveryCancelledError extends Error {
  override readonly name = 'RecoveryCancelledError';
}

/** No calibration samples: fine-tuning, bias correction and calibration need real data. */
export class NoRecoveryDataError extends Error {
  override readonly name = 'NoRecoveryDataError';
}
