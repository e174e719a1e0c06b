/**
 * The HTML report's stylesheet, inlined into every report so the file needs nothing else: system
 * fonts only (no web fonts, no requests), a light print-friendly palette, and the severity colours
 * the tables and SVG charts share. Plain CSS text; no selectors depend on script.
 */

export const REPORT_CSS = `
:root {
  --ink: #1d2330; --muted: #5b6475; --line: #e3e7ee; --panel: #f7f9fc; --accent: #2f5fd0;
  --good: #1f9d6b; --fair: #d39214; --poor: #d1453b; --exact: #b9c2d0; --none: #9aa3b2;
}
* { box-sizing: border-box; }
html { background: #fff; }
body {
  margin: 0 auto; max-width: 1100px; padding: 32px 28px 56px; color: var(--ink);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
header { border-bottom: 1px solid var(--line); padding-bottom: 18px; margin-bottom: 8px; }
h1 { font-size: 24px; margin: 0 0 6px; letter-spacing: -0.01em; }
h2 { font-size: 18px; margin: 36px 0 10px; padding-top: 4px; }
h3 { font-size: 15px; margin: 20px 0 8px; color: var(--muted); font-weight: 600; }
p { margin: 6px 0; }
.muted { color: var(--muted); }
code, .mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; overflow-x: auto; margin: 8px 0; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin-top: 10px; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; word-break: break-all; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; margin: 20px 0 4px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--panel); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
.card .value { font-size: 22px; font-weight: 650; margin-top: 2px; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 12.5px; }
.card .all-zero {
  margin-top: 6px; padding: 2px 8px; font-size: 12.5px; color: #6b4a00;
  background: #fff7e0; border: 1px solid #e5b94a; border-radius: 4px;
}
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); font-weight: 600; background: var(--panel); }
td.num, th.num { text-align: right; white-space: nowrap; }
td.name { word-break: break-all; }
tbody tr:hover { background: #fafbfd; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; }
.badge.good, .dot.good { background: var(--good); } .badge.fair, .dot.fair { background: var(--fair); }
.badge.poor, .dot.poor { background: var(--poor); } .badge.none, .dot.none { background: var(--none); }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; vertical-align: 0; }
.value.good { color: var(--good); } .value.fair { color: var(--fair); } .value.poor { color: var(--poor); }
.legend { display: flex; gap: 18px; flex-wrap: wrap; color: var(--muted); font-size: 12.5px; margin: 4px 0 10px; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 6px 0; overflow: visible; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .axis { stroke: #9aa3b2; stroke-width: 1; }
svg .tick, svg .bar-value { font-size: 11px; fill: var(--muted); font-variant-numeric: tabular-nums; }
svg .bar-label { font-size: 12px; fill: var(--ink); }
svg .axis-label { font-size: 11.5px; fill: var(--muted); }
svg .track { fill: var(--panel); stroke: var(--line); }
svg .sev-good { fill: var(--good); } svg .sev-fair { fill: var(--fair); } svg .sev-poor { fill: var(--poor); }
svg .sev-exact { fill: var(--exact); } svg .sev-none { fill: var(--none); }
svg .callout line { stroke: var(--ink); stroke-width: 1; }
svg .callout circle { fill: #fff; stroke: var(--poor); stroke-width: 1.8; }
svg .callout text { font-size: 9.5px; font-weight: 700; fill: var(--poor); }
svg .target { stroke: var(--accent); stroke-dasharray: 5 4; stroke-width: 1.4; }
svg .best-line { fill: none; stroke: var(--accent); stroke-width: 1.6; }
svg .step-kept { fill: var(--accent); } svg .step-rejected { fill: #fff; stroke: var(--poor); stroke-width: 1.6; }
svg .spark { fill: var(--accent); opacity: 0.75; }
.summary-text { white-space: pre; }
footer { margin-top: 44px; padding-top: 14px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12.5px; }
@media print { body { padding: 0; } h2 { break-after: avoid; } table, svg { break-inside: avoid; } }
`;
