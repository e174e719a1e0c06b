/**
 * Plain words for the named errors of calibration and quantization: a title and, where there is
 * something general to say, what to do. The page shows the error's own message between the two.
 */
interface ErrorText {
  title: string;
  hint?: string;
}

const TEXTS: Record<string, ErrorText> = {
  NoCalibrationDataError: {
    title: 'No calibration data',
    hint: 'A few dozen images like those the model will see are usually enough.',
  },
  NoUsableSamplesError: {
    title: 'No usable calibration data',
    hint: 'Every file was skipped: check that they are images the browser can open.',
  },
  CustomOpsError: {
    title: 'Custom ops: cannot calibrate',
    hint: 'Export the model without custom-domain ops (or with their standard equivalents).',
  },
  NotAnImageModelError: { title: 'Images do not fit this model' },
  PreprocessError: {
    title: 'Preprocessing does not fit the model',
    hint: 'Fix the field named above in the preprocessing settings.',
  },
  InferenceError: { title: 'onnxruntime failed' },
  UnsupportedModelError: { title: 'Unsupported model' },
  NpyFormatError: { title: 'Not a .npy file' },
  NpyInputMismatchError: { title: '.npy does not fit the input' },
  NotCalibratedError: { title: 'Calibrate first' },
  ConfigError: { title: 'Invalid quantization settings' },
  ExclusionError: { title: 'Invalid exclusion' },
  WorkerError: {
    title: 'A worker stopped',
    hint: 'The browser may have run out of memory; try fewer or smaller images, or reload the page.',
  },
  UnknownHandleError: { title: 'The model is no longer open', hint: 'Open the model again.' },
  StatisticsFileError: { title: 'Cannot use these statistics' },
  SequentialRoundsError: {
    title: 'Sequential calibration not finished',
    hint: 'Import the statistics qstudio merge wrote after the last round.',
  },
  ConsumerSearchSplitError: {
    title: 'ConsumerMSE statistics of shards',
    hint: 'Calibrate ConsumerMSE here or in one qstudio run, or import MinMSE shards.',
  },
};

export function errorTitle(name: string, fallback = 'Something went wrong'): string {
  return TEXTS[name]?.title ?? fallback;
}

export function errorHint(name: string): string | undefined {
  return TEXTS[name]?.hint;
}
