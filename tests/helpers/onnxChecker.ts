/**
 * onnx.checker.check_model, run by Debian's python3-onnx (1.12: it knows opsets up to 17).
 * One Python process checks many files.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const script = path.resolve(import.meta.dirname, '../../scripts/check_onnx.py');

export interface CheckVerdict {
  path: string;
  ok: boolean;
  error?: string;
}

/** The checker's verdict on each file. */
export function checkModels(paths: string[]): CheckVerdict[] {
  const out = execFileSync('/usr/bin/python3', [script, ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CheckVerdict);
}
