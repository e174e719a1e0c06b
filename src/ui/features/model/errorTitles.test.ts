import { describe, expect, it } from 'vitest';
import { STUDIO_ERROR_NAMES } from '../../../core/onnx/errors.ts';
import { errorTitle } from './errorTitles.ts';

describe('error titles', () => {
  it('has a plain-words title for every named error of the core', () => {
    for (const name of STUDIO_ERROR_NAMES) expect(errorTitle(name), name).not.toBe('Could not open the model');
  });

  it.each([
    ['NotOnnxError', 'Not an ONNX model'],
    ['TruncatedModelError', 'Truncated model'],
    ['EmptyFileError', 'Empty file'],
    ['UnsupportedModelError', 'Unsupported model'],
    ['SomethingElse', 'Could not open the model'],
  ])('%s is titled "%s"', (name, title) => expect(errorTitle(name)).toBe(title));
});
