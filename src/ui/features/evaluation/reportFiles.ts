/**
 * The downloadable report of what the page shows: the evaluation's Report (built in the worker from
 * the same numbers the page renders) with the suggest search added when one ran on the same quantized
 * model, rendered by the core as one self-contained HTML file or as JSON. Pure; no DOM.
 */
import { renderHtml, renderJson, type Report } from '../../../core/report/index.ts';
import type { SuggestOutcome } from '../../store/evaluationSlice.ts';
import type { ParityResult } from '../../remote/workerTypes.ts';
import { modelStem } from '../../../core/onnx/fileName.ts';

/** The report with the search's steps, if there is a search to add, and the parity check run on the same quantized model. */
export function reportWithSearch(
  report: Report,
  search: SuggestOutcome | null,
  parity: ParityResult | null = null,
): Report {
  const withParity = parity ? { ...report, parity } : report;
  if (!search) return withParity;
  return {
    ...withParity,
    suggest: { target: search.target, reached: search.reached, stopped: search.stopped, steps: search.steps },
  };
}

/** "yolox-nano.quant.onnx" → "yolox-nano.quant.report.html" (or .json). */
export function reportFileName(quantizedName: string, kind: 'html' | 'json'): string {
  return `${modelStem(quantizedName)}.report.${kind}`;
}

export function reportHtml(report: Report, search: SuggestOutcome | null, parity: ParityResult | null = null): string {
  return renderHtml(reportWithSearch(report, search, parity));
}

export function reportJson(report: Report, search: SuggestOutcome | null, parity: ParityResult | null = null): string {
  return renderJson(reportWithSearch(report, search, parity));
}
