/**
 * Ranges files: `{ "tensor": [min, max] }` (also `{ "tensor": { "min": …, "max": … } }`, and either
 * wrapped as `{ "ranges": … }` as the calibrator writes it). Errors name the file and the entry.
 */
import type { TensorRange } from '../core/quantize/plan.ts';
import { InputFileError, readInputFile } from './usage.ts';

export function parseRanges(json: unknown, where: string): Map<string, TensorRange> {
  const root = json && typeof json === 'object' && 'ranges' in json ? (json as { ranges: unknown }).ranges : json;
  if (!root || typeof root !== 'object' || Array.isArray(root))
    throw new InputFileError(`${where}: expected an object of tensor ranges`);
  const out = new Map<string, TensorRange>();
  for (const [name, v] of Object.entries(root)) {
    const pair = Array.isArray(v)
      ? v
      : v && typeof v === 'object'
        ? [(v as TensorRange).min, (v as TensorRange).max]
        : [];
    const [min, max] = pair;
    if (typeof min !== 'number' || typeof max !== 'number' || Number.isNaN(min) || Number.isNaN(max) || min > max) {
      throw new InputFileError(
        `${where}: range of "${name}" must be [min, max] with min ≤ max, got ${JSON.stringify(v)}`,
      );
    }
    out.set(name, { min, max });
  }
  return out;
}

export function readRangesFile(path: string): Map<string, TensorRange> {
  const text = new TextDecoder().decode(readInputFile(path));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputFileError(`"${path}" is not JSON: ${(e as Error).message}`);
  }
  return parseRanges(json, `"${path}"`);
}
