/** The report of a quantization judged against its float model: the model, its builder and its renderers. */
export {
  REPORT_SCHEMA,
  type Report,
  type ReportFile,
  type ReportHistogram,
  type ReportLadder,
  type ReportLadderFigure,
  type ReportLadderShortfall,
  type ReportLayers,
  type ReportNpu,
  type ReportRange,
  type ReportSuggest,
  type ReportTask,
  type ReportTiming,
} from './report.ts';
export { buildReport, type ReportInput } from './build.ts';
export { renderHtml } from './html.ts';
export { shortfallSections, type ShortfallSection } from './shortfallText.ts';
export { renderJson, parseReportNumber } from './json.ts';
export { sha256Hex } from './sha256.ts';
