/**
 * Command-line argument parsing shared by the commands: node:util's parseArgs with errors that name
 * the bad option, and file reading with errors that name the file.
 */
import fs from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { StudioError } from '../core/onnx/errors.ts';

/** A mistake in how the command was called; printed with the command's usage. */
export class UsageError extends StudioError {
  override readonly name = 'UsageError';
}

/** A file named on the command line that cannot be read. */
export class InputFileError extends StudioError {
  override readonly name = 'InputFileError';
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The bytes of a file, or an InputFileError that names it. */
export function readInputFile(path: string): Uint8Array {
  try {
    const stat = fs.statSync(path);
    if (stat.isDirectory()) throw new InputFileError(`"${path}" is a directory, not a file`);
    return new Uint8Array(fs.readFileSync(path));
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputFileError(code === 'ENOENT' ? `"${path}" does not exist` : `cannot read "${path}": ${(e as Error).message}`);
  }
}
