/**
 * How many nodes of each op type the model has, as bars sorted by count: the shape of a network at a
 * glance (mostly Conv? attention? a long tail of shape ops?). Long lists show the top rows and expand.
 */
import { useState } from 'react';
import type { OpCount } from '../../../core/onnx/index.ts';
import { BarChart } from '../../components/BarChart.tsx';
import { TitleCount } from '../../components/TitleCount.tsx';

/** Lists up to ALWAYS_SHOWN rows show in full; longer ones show COLLAPSED_ROWS until expanded. */
const ALWAYS_SHOWN = 16;
const COLLAPSED_ROWS = 12;

export function OpHistogram({ ops }: { ops: readonly OpCount[] }) {
  const [expanded, setExpanded] = useState(false);
  const sorted = [...ops].sort((a, b) => b.count - a.count || a.opType.localeCompare(b.opType));
  const collapsible = sorted.length > ALWAYS_SHOWN;
  const shown = expanded || !collapsible ? sorted : sorted.slice(0, COLLAPSED_ROWS);
  const hidden = sorted.length - shown.length;
  return (
    <section className="card" aria-labelledby="op-histogram-title">
      <h3 id="op-histogram-title" className="card__title">
        Op types <TitleCount count={ops.length} />
      </h3>
      <BarChart
        label="Nodes per op type"
        testId="op-histogram"
        bars={shown.map((o) => ({
          key: `${o.domain}::${o.opType}`,
          label: o.opType,
          value: o.count,
          tag: o.domain || undefined,
        }))}
      />
      {collapsible && (
        <button
          type="button"
          className="button button--link"
          onClick={() => setExpanded(!expanded)}
          aria-expanded={expanded}
        >
          {expanded ? 'Show fewer' : `Show all ${sorted.length} op types (${hidden} more)`}
        </button>
      )}
    </section>
  );
}
