/**
 * Models with external data for onnxruntime-node. Its JavaScript API takes no external-data buffers (the
 * `externalData` session option is onnxruntime-web's), only a model path whose tensors name files beside
 * it. So a SessionModel (core/onnx/externalize.ts) becomes a folder: the small .onnx and one file per
 * data buffer. Calibration and evaluation open several sessions over the same weights (the model with
 * different outputs exposed), so each buffer is written once per process and reused; a buffer that is a
 * whole file read from disk (a model's data file, registered by src/cli/modelFile.ts) is not written at
 * all but hard-linked (where the file system allows; onnxruntime refuses symbolic links that leave the
model's folder). The folder is removed when the process exits, and when it is stopped by Ctrl-C, SIGTERM (a batch
 * scheduler's cancel) or SIGHUP; only SIGKILL, which no process can catch, leaves it behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionModel } from '../../core/onnx/index.ts';

/** Files on disk whose whole content a buffer holds (set when the CLI reads a model's data file). */
const backingFiles = new WeakMap<ArrayBufferLike, string>();

/** Records that `buffer` holds exactly the file at `file`, so sessions can link it instead of writing a copy. */
export function registerBackingFile(buffer: ArrayBufferLike, file: string): void {
  backingFiles.set(buffer, path.resolve(file));
}

let folder: string | undefined;
/** Signals that stop the command, with the exit status a shell reports for each (128 + its number). */
const STOP_SIGNALS: readonly (readonly [NodeJS.Signals, number])[] = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
];
const written = new WeakMap<object, string>();
let sessions = 0;
let files = 0;

function sessionFolder(): string {
  if (!folder) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qstudio-session-'));
    folder = dir;
    const remove = () => fs.rmSync(dir, { recursive: true, force: true });
    process.once('exit', remove);
    // A handled signal no longer ends the process by itself: remove the folder, then exit as the signal would have,
    // unless a command handles the signal itself (the ladder writes its best rung first, then exits).
    for (const [signal, code] of STOP_SIGNALS) {
      process.once(signal, () => {
        if (process.listenerCount(signal) === 0) process.exit(code);
      });
    }
  }
  return folder;
}

/** Writes a large buffer in pieces (one write call is limited to 2 GiB). */
export function writeWhole(fd: number, data: Uint8Array, piece = 1024 ** 3): void {
  for (let at = 0; at < data.byteLength; at += piece) {
    const part = data.subarray(at, Math.min(data.byteLength, at + piece));
    let done = 0;
    while (done < part.byteLength) done += fs.writeSync(fd, part, done);
  }
}

/** Links `target` to `file` (a hard link: onnxruntime refuses data whose real path leaves the model's folder); false when the file system will not. */
function hardLink(file: string, target: string): boolean {
  try {
    fs.linkSync(file, target);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of a file in the session folder that holds `data`: linked to its own file when registered, else written, once. */
function dataFile(data: Uint8Array): string {
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
  const key: object = whole ? data.buffer : data;
  const known = written.get(key);
  if (known) return known;
  const target = path.join(sessionFolder(), `data-${++files}.bin`);
  const backing = whole ? backingFiles.get(data.buffer) : undefined;
  const linked =
    backing !== undefined &&
    fs.existsSync(backing) &&
    fs.statSync(backing).size === data.byteLength &&
    hardLink(backing, target);
  if (!linked) {
    const fd = fs.openSync(target, 'w');
    try {
      writeWhole(fd, data);
    } finally {
      fs.closeSync(fd);
    }
  }
  written.set(key, target);
  return target;
}

/**
 * A folder onnxruntime-node can load `model` from: `model.onnx` with each external data file beside it
 * under the name its tensors give (a hard link to the shared copy). `remove` deletes the folder, not the data.
 */
export function sessionModelFolder(model: SessionModel): { onnx: string; remove: () => void } {
  const dir = path.join(sessionFolder(), `session-${++sessions}`);
  fs.mkdirSync(dir);
  for (const f of model.externalData) fs.linkSync(dataFile(f.data), path.join(dir, f.path));
  const onnx = path.join(dir, 'model.onnx');
  fs.writeFileSync(onnx, model.bytes);
  return { onnx, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
