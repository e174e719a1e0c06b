/**
 * Command-line argument parsing shared by the commands: node:util's parseArgs with errors that name
 * the bad option, and file reading with errors that name the file.
 */
import buffer from 'node:buffer';
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

/** fs.readFileSync stops at 2 GiB; larger files (a model's external data) are read in pieces of this size. */
const READ_PIECE_BYTES = 1024 ** 3;

/** Files above this are read straight into a buffer of their own (no copy, which `new Uint8Array(readFileSync())` makes). */
const LARGE_FILE_BYTES = 16 * 1024 ** 2;

/** A large file, read piece by piece into one buffer of exactly its size (Node's buffers stop at 4 GiB). */
function readLargeFile(path: string, size: number): Uint8Array {
  if (size > buffer.constants.MAX_LENGTH) {
    throw new InputFileError(
      `"${path}" has ${size.toLocaleString('en-US')} bytes, more than one Node buffer holds (${buffer.constants.MAX_LENGTH.toLocaleString('en-US')}): split its external data into several files`,
    );
  }
  const bytes = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
  const fd = fs.openSync(path, 'r');
  try {
    for (let at = 0; at < size;) {
      const read = fs.readSync(fd, bytes, at, Math.min(READ_PIECE_BYTES, size - at), at);
      if (read === 0) throw new InputFileError(`"${path}" ended after ${at} of ${size} bytes while being read`);
      at += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

/** The bytes of a file, or an InputFileError that names it. */
export function readInputFile(path: string): Uint8Array {
  try {
    const stat = fs.statSync(path);
    if (stat.isDirectory()) throw new InputFileError(`"${path}" is a directory, not a file`);
    return stat.size > LARGE_FILE_BYTES ? readLargeFile(path, stat.size) : new Uint8Array(fs.readFileSync(path));
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputFileError(
      code === 'ENOENT' ? `"${path}" does not exist` : `cannot read "${path}": ${(e as Error).message}`,
    );
  }
}
