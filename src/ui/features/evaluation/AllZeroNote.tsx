/**
 * Beside a cosine headline: the samples on which the quantized output collapsed to all zeros against a non-zero float
 * one, per output, as the core counted them (OutputSummary.allZero) and in the CLI's and the HTML report's words
 * (allZeroLines), so a low cosine says why. Nothing is shown when no output collapsed.
 */
import { allZeroLines, type OutputSummary } from '../../../core/metrics/metricSummary.ts';

export function AllZeroNote({ outputs, testId }: { outputs: readonly OutputSummary[]; testId: string }) {
  const lines = allZeroLines(outputs);
  if (lines.length === 0) return null;
  return (
    <span className="eval-all-zero" data-testid={testId}>
      {lines.map((l) => (
        <span
          key={l.output}
          className="eval-all-zero__line"
          data-output={l.output}
          data-samples={l.samples}
          data-of={l.of}
        >
          <span className="eval-all-zero__mark" aria-hidden="true">
            ⚠
          </span>
          {l.text}
        </span>
      ))}
    </span>
  );
}
