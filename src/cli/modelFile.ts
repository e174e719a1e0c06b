/**
 * Reading a model named on the command line: its bytes, its external data files (found beside it or
 * given with --data), decoded with errors that name the file. Every command that takes a model uses it;
 * the reports also name the file by its digest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, externalDataNames, type ModelProto } from '../core/onnx/index.ts';
import type { ReportFile } from '../core/report/index.ts';
import { sha256Hex } from '../core/report/sha256.ts';
import { readInputFile } from './usage.ts';

/** External data files the model names, read from beside it unless given explicitly. */
export function loadExternalFiles(modelPath: string, bytes: Uint8Array, given: readonly string[] = []): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const f of given) files.set(path.basename(f), readInputFile(f));
  for (const name of externalDataNames(bytes, path.basename(modelPath))) {
    if (files.has(name) || files.has(path.basename(name))) continue;
    const candidate = path.join(path.dirname(modelPath), name);
    if (fs.existsSync(candidate)) files.set(name, readInputFile(candidate));
  }
  return files;
}

/** The decoded model and its raw bytes. */
export function readModelFile(modelPath: string, dataFiles: readonly string[] = []): { model: ModelProto; bytes: Uint8Array; fileName: string } {
  const bytes = readInputFile(modelPath);
  const fileName = path.basename(modelPath);
  return { model: decode(bytes, { fileName, externalData: loadExternalFiles(modelPath, bytes, dataFiles) }), bytes, fileName };
}

/** What a report says about a model file read with readModelFile: its name, SHA-256 and size. */
export async function modelFileInfo(file: { bytes: Uint8Array; fileName: string }): Promise<ReportFile> {
  return { name: file.fileName, sha256: await sha256Hex(file.bytes), bytes: file.bytes.length };
}
