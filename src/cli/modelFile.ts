/**
 * Reading a model named on the command line: its bytes, its external data files (found beside it or
 * given with --data), decoded with errors that name the file; and writing one, with external data when
 * the source had it or the model is too large for one protobuf. Every command that takes a model uses it;
 * the reports also name the file by its digest.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  decode,
  encodeParts,
  externalDataFileName,
  externalDataLayout,
  externalDataNames,
  needsExternalData,
  type ModelProto,
} from '../core/onnx/index.ts';
import type { ReportFile } from '../core/report/index.ts';
import { sha256Hex } from '../core/report/sha256.ts';
import { readInputFile } from './usage.ts';
import { registerBackingFile, writeWhole } from './runtime/sessionFiles.ts';

/** A data file's bytes, registered so that sessions over its tensors link the file rather than write a copy. */
function readDataFile(file: string): Uint8Array {
  const bytes = readInputFile(file);
  registerBackingFile(bytes.buffer, file);
  return bytes;
}

/** External data files the model names, read from beside it unless given explicitly. */
export function loadExternalFiles(
  modelPath: string,
  bytes: Uint8Array,
  given: readonly string[] = [],
): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const f of given) files.set(path.basename(f), readDataFile(f));
  for (const name of externalDataNames(bytes, path.basename(modelPath))) {
    if (files.has(name) || files.has(path.basename(name))) continue;
    const candidate = path.join(path.dirname(modelPath), name);
    if (fs.existsSync(candidate)) files.set(name, readDataFile(candidate));
  }
  return files;
}

/** The decoded model, its raw bytes, and whether it kept weights in external data files. */
export function readModelFile(
  modelPath: string,
  dataFiles: readonly string[] = [],
): { model: ModelProto; bytes: Uint8Array; fileName: string; external: boolean } {
  const bytes = readInputFile(modelPath);
  const fileName = path.basename(modelPath);
  const externalData = loadExternalFiles(modelPath, bytes, dataFiles);
  return { model: decode(bytes, { fileName, externalData }), bytes, fileName, external: externalData.size > 0 };
}

/**
 * Writes a model: one .onnx, or with `external` (or when its weights near protobuf's 2 GB limit) the .onnx
 * plus `<name>.onnx.data` beside it, ONNX's external-data convention. Streams the parts; returns the data
 * file's path when one was written.
 */
export function writeModelFile(output: string, model: ModelProto, external = false): string | undefined {
  const write = (file: string, parts: readonly Uint8Array[]) => {
    const fd = fs.openSync(file, 'w');
    try {
      for (const p of parts) writeWhole(fd, p);
    } finally {
      fs.closeSync(fd);
    }
  };
  if (!external && !needsExternalData(model)) {
    write(output, encodeParts(model));
    return undefined;
  }
  const dataPath = path.join(path.dirname(output), externalDataFileName(output));
  const layout = externalDataLayout(model, path.basename(dataPath));
  write(dataPath, layout.dataParts);
  write(output, encodeParts(layout.model));
  return dataPath;
}

/** What a report says about a model file read with readModelFile: its name, SHA-256 and size. */
export async function modelFileInfo(file: { bytes: Uint8Array; fileName: string }): Promise<ReportFile> {
  return { name: file.fileName, sha256: await sha256Hex(file.bytes), bytes: file.bytes.length };
}
