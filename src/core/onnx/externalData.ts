/**
 * Tensors whose bytes live beside the model (`data_location = EXTERNAL`, as exporters write models
 * over 2 GB or when asked). The user drops the .onnx together with its data files; this module copies
 * the referenced byte ranges into raw_data so the rest of the studio sees an ordinary model.
 */
import { ExternalDataError } from './errors.ts';
import type { TensorProto } from './model.ts';
import { elementCount, rawByteLength } from './elementTypes.ts';

/** Data files by the name the model uses for them (`location`, a path relative to the model). */
export type ExternalFiles = ReadonlyMap<string, Uint8Array>;

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1];
}

/** Whether the tensor's data is stored outside the model file. */
export function isExternal(t: TensorProto): boolean {
  return t.data_location === 1;
}

/** The file names a model's external tensors refer to. */
export function externalLocation(t: TensorProto): string | undefined {
  return t.external_data.find((e) => e.key === 'location')?.value;
}

/** Reads the tensor's bytes from the given files into raw_data and marks it as stored inline. */
export function resolveExternalTensor(t: TensorProto, files: ExternalFiles | undefined): void {
  const entries = new Map(t.external_data.map((e) => [e.key ?? '', e.value ?? '']));
  const location = entries.get('location');
  const name = t.name ?? '';
  if (!location) throw new ExternalDataError(`tensor "${name}" is marked external but names no data file`);
  const file = files?.get(location) ?? files?.get(baseName(location));
  if (!file) {
    throw new ExternalDataError(
      `tensor "${name}" keeps its data in "${location}", which was not given: open the model together with its data file(s)`,
    );
  }
  const offset = Number(entries.get('offset') ?? 0);
  const expected = rawByteLength(t.data_type ?? 0, elementCount(t.dims));
  const length = entries.has('length') ? Number(entries.get('length')) : expected;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new ExternalDataError(`tensor "${name}": invalid offset/length in its external data entry`);
  }
  if (offset + length > file.byteLength) {
    throw new ExternalDataError(
      `tensor "${name}": "${location}" has ${file.byteLength} bytes, the tensor needs bytes ${offset}…${offset + length}: the data file is truncated or belongs to another model`,
    );
  }
  t.raw_data = file.subarray(offset, offset + length);
  t.data_location = 0;
  t.external_data = [];
}
