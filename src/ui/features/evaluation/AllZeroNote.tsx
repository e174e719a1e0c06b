/**
 * Beside a cosine headline: the samples on which the quantized output collapsed to all zeros against a non-zero float
 * one, per output, as the core counted them (OutputSummary.allZero) and in the CLI's words (allZeroNote), so a low
 * cosine says why. Nothing is shown when no output collapsed.
 */
import { allZeroNote, type OutputSummary } from '../../../core/metrics/metricSummary.ts';
import { TensorName } from '../../components/TensorName.tsx';

export function AllZeroNote({ outputs, testId }: { outputs: readonly OutputSummary[]; testId: string }) {
  const collapsed = outputs.filter((o) => o.allZero);
  if (collapsed.length === 0) return null;
  return (
    <span className="eval-all-zero" data-testid={testId}>
      {collapsed.map((o) => (
        <span
          key={o.output}
          className="eval-all-zero__line"
          data-output={o.output}
          data-samples={o.allZero!.samples}
          data-of={o.allZero!.of}
        >
          <span className="eval-all-zero__mark" aria-hidden="true">
            ⚠
          </span>
          {outputs.length > 1 && (
            <>
              <TensorName name={o.output} />:{' '}
            </>
          )}
          {allZeroNote(o)}
        </span>
      ))}
    </span>
  );
}
