/**
 * The report as JSON, for scripts, CI gates and diffing two runs.
 *
 * JSON has no NaN or Infinity, yet both are meaningful here (an exact layer has SQNR +Infinity; an
 * all-zero output has cosine NaN, as in Quark). They are written as the strings "NaN", "Infinity"
 * and "-Infinity", never silently as null; `parseReportNumber` reads a field back. Typed arrays are
 * written as plain arrays. Keys keep the report model's names (./report.ts).
 */

import type { Report } from './report.ts';

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (ArrayBuffer.isView(value) && !(value instanceof DataView))
    return Array.from(value as unknown as ArrayLike<number>);
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

/**
 * The report as indented JSON text, ending with a newline; `extra` adds top-level fields a command measured beside
 * the report (written by the same rules).
 */
export function renderJson(report: Report, extra: Readonly<Record<string, unknown>> = {}): string {
  return `${JSON.stringify({ ...report, ...extra }, replacer, 2)}\n`;
}

/** A number field of a parsed JSON report: numbers as they are, "NaN" / "Infinity" / "-Infinity" as those values. */
export function parseReportNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  return NaN;
}
