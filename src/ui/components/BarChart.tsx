/**
 * A compact horizontal bar chart for counts (the op-type histogram): one row a category, the bar's
 * length proportional to its count against the largest. Rows come in the order given; the caller
 * sorts. The numbers stay as text beside the bars, so nothing depends on reading the bars alone.
 */
import type { ReactNode } from 'react';
import { exact } from './format.ts';

export interface Bar {
  key: string;
  label: ReactNode;
  value: number;
  /** Shown after the label in a muted style (e.g. an op's domain). */
  tag?: string;
}

export function BarChart({ bars, label, testId }: { bars: readonly Bar[]; label: string; testId?: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  return (
    <ul className="bar-chart" aria-label={label} data-testid={testId}>
      {bars.map((b) => (
        <li key={b.key} className="bar-chart__row">
          <span className="bar-chart__label">
            {b.label}
            {b.tag && <span className="bar-chart__tag">{b.tag}</span>}
          </span>
          <span className="bar-chart__track" aria-hidden="true">
            <span className="bar-chart__bar" style={{ width: `${(100 * b.value) / max}%` }} />
          </span>
          <span className="bar-chart__value">{exact(b.value)}</span>
        </li>
      ))}
    </ul>
  );
}
