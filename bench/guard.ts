/**
 * The regression guard's comparison: each preset's held-out figure (suite preset-guard, both onnxruntime levels)
 * against the last recorded one. A figure that drops by more than the tolerance (0.002) is flagged; rows new on
 * either side are listed, never flagged. Pure: bench/run.ts's `guard` mode (npm run bench -- guard) measures and prints.
 */
import type { Row } from './harness.ts';

/** The largest drop from the last recorded figure a preset may show. */
export const GUARD_TOLERANCE = 0.002;

/** The levels each guard row holds a figure for. */
export const GUARD_LEVELS = ['all', 'basic'] as const;

/** A guard row's key: model, preset and weight granularity. */
export const guardKey = (r: Row) => `${r.model} ${r.preset} ${r.variant}`;

export interface GuardLine {
  readonly key: string;
  readonly level: (typeof GUARD_LEVELS)[number];
  readonly before: number | null;
  readonly now: number;
  /** now − before (null for a row not recorded before). */
  readonly change: number | null;
  readonly dropped: boolean;
}

/** Every measured figure against the recorded one; `dropped` where it fell by more than `tolerance`. */
export function compareGuardRows(
  recorded: readonly Row[],
  measured: readonly Row[],
  tolerance = GUARD_TOLERANCE,
): GuardLine[] {
  const before = new Map(recorded.map((r) => [guardKey(r), r]));
  return measured.flatMap((r) =>
    GUARD_LEVELS.map((level) => {
      const was = before.get(guardKey(r))?.[level];
      const now = Number(r[level]);
      const prior = typeof was === 'number' ? was : null;
      const change = prior === null ? null : +(now - prior).toFixed(5);
      return { key: guardKey(r), level, before: prior, now, change, dropped: change !== null && change < -tolerance };
    }),
  );
}

/** The comparison as text, one line per figure, the drops marked. */
export function guardText(lines: readonly GuardLine[]): string {
  const rows = lines.map(
    (l) =>
      `${l.dropped ? 'DROP' : '    '}  ${l.key.padEnd(34)} ${l.level.padEnd(5)} ${l.before === null ? 'new'.padStart(8) : l.before.toFixed(5)} → ${l.now.toFixed(5)}${l.change === null ? '' : `  (${l.change >= 0 ? '+' : ''}${l.change.toFixed(5)})`}`,
  );
  const drops = lines.filter((l) => l.dropped).length;
  return `${rows.join('\n')}\n${drops === 0 ? `no preset dropped more than ${GUARD_TOLERANCE}` : `${drops} figure${drops === 1 ? '' : 's'} dropped more than ${GUARD_TOLERANCE} from the last recorded`}\n`;
}
