/**
 * The downloadable report of what the page shows: the evaluation's Report (built in the worker from
 * the same numbers the page renders) with the suggest search added when one ran on the same quantized
 * model, rendered by the core as one self-contained HTML file or as JSON. Pure; no DOM.
 */
import { renderHtml, renderJson, type Report } from '../../../core/report/index.ts';
import type { SuggestOutcome } from '../../store/evaluationSlice.ts';

/** The report with the search's steps, if there is a search to add. */
export function reportWithSearch(report: Report, search: SuggestOutcome | null): Report {
  if (!search) return report;
  return { ...report, suggest: { target: search.target, reached: search.reached, stopped: search.stopped, steps: search.steps } };
}

/** "yolox-nano.quant.onnx" → "yolox-nano.quant.report.html" (or .json). */
export function reportFileName(quantizedName: string, kind: 'html' | 'json'): string {
  return `${quantizedName.replace(/\.onnx$/i, '')}.report.${kind}`;
}

export function reportHtml(report: Report, search: SuggestOutcome | null): string {
  return renderHtml(reportWithSearch(report, search));
}

export function reportJson(report: Report, search: SuggestOutcome | null): string {
  return renderJson(reportWithSearch(report, search));
}
