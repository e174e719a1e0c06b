/**
 * The figure a comparison's headline shows: the mean output cosine, or, where no output has a cosine and every output
 * is one number a sample judged by decision agreement (a wake-word score, a voice-activity probability:
 * evaluate/outputMetrics.ts), the mean decision agreement, so that the headline reads a figure rather than "n/a".
 * Shared by the page and the HTML report.
 */
import type { OutputSummary } from '../metrics/metricSummary.ts';
import { formatCosine } from './htmlText.ts';

export interface HeadlineFigure {
  /** "Mean output cosine" or "Mean decision agreement". */
  readonly label: string;
  readonly value: number;
  /** The value as the headline writes it. */
  readonly text: string;
}

export function headlineFigure(outputs: readonly OutputSummary[], meanCosine: number): HeadlineFigure {
  const decisions = outputs.map((o) => o.metrics.decision?.mean);
  if (!Number.isFinite(meanCosine) && outputs.length > 0 && decisions.every((d) => d !== undefined)) {
    const value = decisions.reduce((a, d) => a + d!, 0) / decisions.length;
    return { label: 'Mean decision agreement', value, text: value.toFixed(4) };
  }
  return { label: 'Mean output cosine', value: meanCosine, text: formatCosine(meanCosine) };
}
