/**
 * The report as ONE self-contained HTML file: inline CSS (./styles.ts), charts as inline SVG
 * (./charts.ts), no script, no fonts, no links, images only as data URLs (the task section's photos): it makes no request at all and opens
 * offline, in a mail attachment or a CI artifact alike. Sections: what was compared (file names and
 * SHA-256), the headline numbers, output metrics per output (Quark's printed summary included, for
 * diffing against Quark's tool), the per-layer SQNR chart with the worst layers called out, the worst
 * layers and where the error jumps, ranges of the worst layers, configuration and exclusions, the
 * suggest search's steps, task accuracy with pictures (./taskSection.ts), timings. Every piece of user data (names, paths) is escaped. Must not read
 * anything but the report.
 */

import {
  allZeroLines,
  renderSummary,
  type MetricName,
  type MetricStat,
  type OutputSummary,
} from '../metrics/metricSummary.ts';
import { barChart, histogramSparkline, layerChart, stepChart, type BarItem } from './charts.ts';
import {
  cosineSeverity,
  dbSeverity,
  escapeHtml as e,
  formatBytes,
  formatCosine,
  formatDb,
  formatJump,
  ladderValueText,
  formatSeconds,
  formatValue,
  METRIC_LABELS,
  metricSeverity,
  metricText,
  type Severity,
} from './htmlText.ts';
import type { Report, ReportFile, ReportLadder, ReportNpu } from './report.ts';
import { shortfallSections } from './shortfallText.ts';
import { headlineFigure } from './headlineFigure.ts';
import { worstLayerMeaning } from './worstLayerMeaning.ts';
import { REPORT_CSS } from './styles.ts';
import { TASK_CSS, taskSection } from './taskSection.ts';
import { paritySection } from './paritySection.ts';
import {
  DEFAULT_GRAPH_OPTIMIZATION,
  graphOptimizationLabel,
  graphOptimizationText,
} from '../runtime/graphOptimization.ts';
import { PRECISION_CLASSES, PRECISION_CLASS_LABELS, precisionCounts } from '../quantize/precisionClasses.ts';

const badge = (s: Severity, text: string) => `<span class="badge ${s}">${e(text)}</span>`;
const dot = (s: Severity) => `<span class="dot ${s}"></span>`;

function fileRows(label: string, f: ReportFile): string {
  const size = f.bytes !== null ? ` <span class="muted">(${formatBytes(f.bytes)})</span>` : '';
  return `<dt>${e(label)}</dt><dd><strong>${e(f.name)}</strong>${size}</dd><dt>SHA-256</dt><dd class="mono">${e(f.sha256 ?? 'not computed')}</dd>`;
}

function header(r: Report): string {
  const meta = [fileRows('Float model', r.floatModel)];
  if (r.quantizedModel) meta.push(fileRows('Quantized model', r.quantizedModel));
  if (r.config) meta.push(`<dt>Configuration</dt><dd>${e(r.config.name)}</dd>`);
  meta.push(
    `<dt>Data</dt><dd>${r.data.samples} sample${r.data.samples === 1 ? '' : 's'}${r.data.source ? ` from <code>${e(r.data.source)}</code>` : ''}</dd>`,
  );
  if (r.atDefault)
    meta.push(
      `<dt>Judged first by</dt><dd data-graph-optimization="${e(r.atDefault.graphOptimization)}" data-at-default>${e(r.atDefault.runtime)} at its default options: ${e(graphOptimizationText(r.atDefault.graphOptimization))}</dd>`,
    );
  meta.push(
    `<dt>${r.atDefault ? 'And beside it by' : 'Judged by'}</dt><dd data-graph-optimization="${e(r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION)}">${e(graphOptimizationText(r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION))}</dd>`,
  );
  if (r.createdAt) meta.push(`<dt>Created</dt><dd>${e(r.createdAt)}</dd>`);
  return `<header><h1>${e(r.title)}</h1><dl class="meta">${meta.join('')}</dl></header>`;
}

function cards(r: Report): string {
  const out: string[] = [];
  const c = r.fidelity.meanCosine;
  const undef = r.fidelity.undefinedOutputs ? `; ${r.fidelity.undefinedOutputs} output(s) undefined` : '';
  // The figure at onnxruntime's default options: its own card, and what the worst layer's line reads beside.
  const atDefault = r.atDefault ? headlineFigure(r.atDefault.outputs, r.atDefault.fidelity.meanCosine) : undefined;
  if (r.atDefault && atDefault) {
    const d = r.atDefault.fidelity;
    const dUndef = d.undefinedOutputs ? `; ${d.undefinedOutputs} output(s) undefined` : '';
    out.push(
      `<div class="card" data-card="at-default"><div class="label">${atDefault.label}, ${e(r.atDefault.runtime)} default</div><div class="value ${cosineSeverity(atDefault.value)}">${atDefault.text}</div><div class="sub">${e(graphOptimizationLabel(r.atDefault.graphOptimization))}; what a user's session computes${dUndef}</div>${allZeroHtml(r.atDefault.outputs)}</div>`,
    );
  }
  const level = r.atDefault ? `, ${graphOptimizationLabel(r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION)}` : '';
  const own = headlineFigure(r.outputs, c);
  out.push(
    `<div class="card" data-card="own-arithmetic"><div class="label">${own.label}${e(level)}${r.npu ? ', as written' : ''}</div><div class="value ${cosineSeverity(own.value)}">${own.text}</div><div class="sub">mean over ${r.outputs.length} output(s)${undef}${r.npu ? '; float parts in float32' : ''}</div>${allZeroHtml(r.outputs)}</div>`,
  );
  if (r.npu) {
    const n = r.npu.fidelity.meanCosine;
    out.push(
      `<div class="card"><div class="label">Mean output cosine, as the NPU runs it</div><div class="value ${cosineSeverity(n)}">${formatCosine(n)}</div><div class="sub">${npuWhat(r.npu)}</div>${allZeroHtml(r.npu.outputs)}</div>`,
    );
  }
  const worst = r.layers?.worst[0];
  if (worst) {
    const headline = atDefault ?? own;
    out.push(
      `<div class="card" data-card="worst-layer"><div class="label">Worst layer SQNR</div><div class="value ${dbSeverity(worst.sqnr)}">${formatDb(worst.sqnr)} dB</div><div class="sub mono">${e(worst.node ?? worst.tensor)}</div><div class="sub" data-meaning>${e(worstLayerMeaning(worst.sqnr, cosineSeverity(headline.value)))}</div></div>`,
    );
  }
  const jump = r.layers?.jumps[0];
  if (jump) {
    out.push(
      `<div class="card"><div class="label">Largest error jump</div><div class="value">${formatJump(jump)}</div><div class="sub">SQNR falls there: <span class="mono">${e(jump.node)}</span> (${e(jump.opType)})</div></div>`,
    );
  }
  if (r.quantization) {
    out.push(
      `<div class="card"><div class="label">Quantized nodes</div><div class="value">${r.quantization.quantized} / ${r.quantization.nodes}</div><div class="sub">${r.quantization.float} left float</div></div>`,
    );
  }
  return `<section class="cards">${out.join('')}</section>`;
}

/** What the NPU figure rounded, in words. */
/** Under a cosine card: each output whose quantized output was all zeros on some samples (allZeroLines). */
function allZeroHtml(outputs: readonly OutputSummary[]): string {
  return allZeroLines(outputs)
    .map((l) => `<div class="all-zero" data-all-zero="${l.samples}/${l.of}">⚠ ${e(l.text)}</div>`)
    .join('');
}

function npuWhat(n: ReportNpu): string {
  return n.floatNodes === 0
    ? 'no float parts: the same model'
    : `float parts in BF16: ${n.floatNodes} node(s), ${n.activations} activation(s) and ${n.weights} weight(s) rounded`;
}

/** One table per output: each metric's mean, min and max. */
function metricTables(outputs: Report['outputs']): string[] {
  return outputs.map((o) => {
    const rows = (Object.entries(o.metrics) as [MetricName, MetricStat][]).map(([name, s]) => {
      const sev = metricSeverity(name, s.mean);
      return `<tr><td>${sev === 'none' ? '' : dot(sev)}${METRIC_LABELS[name]}</td><td class="num">${metricText(name, s.mean)}</td><td class="num">${metricText(name, s.min)}</td><td class="num">${metricText(name, s.max)}</td></tr>`;
    });
    return `<h3 class="mono">${e(o.output)}</h3><table><thead><tr><th>Metric</th><th class="num">Mean</th><th class="num">Min</th><th class="num">Max</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  });
}

/** The NPU figure's own section: the same metrics with the float parts in BF16. */
function npuSection(r: Report): string {
  if (!r.npu) return '';
  return `<section id="npu"><h2>As the NPU runs it</h2><p class="muted">The same quantized model with its float parts (exclusions, ops left float) computed in BF16, as the Ryzen AI compiler runs float subgraphs (Quark's with-cast BF16: a Cast to bfloat16 and back at every float tensor). ${e(npuWhat(r.npu))}. The figures above are the model as written (float parts in float32).</p>${metricTables(r.npu.outputs).join('')}<h3>As Quark prints it</h3><pre class="summary-text">${e(renderSummary(r.npu.outputs))}</pre></section>`;
}

/** The figure at the runtime's default options, first: the same metric tables, said which runtime and level. */
function atDefaultSection(r: Report): string {
  if (!r.atDefault) return '';
  const d = r.atDefault;
  return `<section id="at-default"><h2>Output metrics, ${e(d.runtime)} at its default options</h2><p class="muted">${e(graphOptimizationText(d.graphOptimization))}. What a user's session computes unless it sets a level; the model's own Q/DQ arithmetic follows.</p>${metricTables(d.outputs).join('')}<h3>As Quark prints it</h3><pre class="summary-text">${e(renderSummary(d.outputs))}</pre></section>`;
}

function outputsSection(r: Report): string {
  if (r.outputs.length === 0) return '';
  const tables = metricTables(r.outputs);
  const cosBars: BarItem[] = r.outputs.map((o) => {
    const v = o.metrics.cosine?.mean ?? NaN;
    return { label: o.output, value: v, severity: cosineSeverity(v), text: formatCosine(v) };
  });
  const psnrBars: BarItem[] = r.outputs
    .filter((o) => o.metrics.psnr)
    .map((o) => {
      const v = o.metrics.psnr!.mean;
      return { label: o.output, value: v, severity: dbSeverity(v), text: `${formatDb(v)} dB` };
    });
  const cosLo = Math.min(0.9, ...cosBars.map((b) => b.value).filter(Number.isFinite));
  const psnrHi = Math.max(60, ...psnrBars.map((b) => b.value).filter(Number.isFinite));
  const charts = [
    `<h3>Mean cosine per output</h3>${barChart(cosBars, Math.floor(cosLo * 100) / 100, 1, 'Mean cosine per output')}`,
  ];
  if (psnrBars.length)
    charts.push(
      `<h3>Mean PSNR per output</h3>${barChart(psnrBars, 0, Math.ceil(psnrHi / 10) * 10, 'Mean PSNR per output')}`,
    );
  const quark = renderSummary(r.outputs);
  const level = r.atDefault ? `, ${graphOptimizationLabel(r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION)}` : '';
  return `<section><h2>Output metrics${e(level)}${r.npu ? ', as written' : ''}</h2><p class="muted">Float model against quantized model on the same ${r.data.samples} sample(s); metrics as AMD Quark's evaluate tool defines them (cosine and L2 on the whole tensor, PSNR against the float output's own peak).</p>${charts.join('')}${tables.join('')}<h3>As Quark prints it</h3><pre class="summary-text">${e(quark)}</pre></section>`;
}

function layerSection(r: Report): string {
  const L = r.layers;
  if (!L) return '';
  const legend = `<div class="legend"><span>${dot('good')}≥ 30 dB</span><span>${dot('fair')}20–30 dB</span><span>${dot('poor')}&lt; 20 dB</span><span><span class="dot" style="background:var(--exact)"></span>exact (∞)</span><span>numbered: the ${Math.min(L.worst.length, 10)} worst</span></div>`;
  const precisionOf = (node: string | null) => (node && r.precisions?.[node]?.label) ?? '—';
  const precisionHead = r.precisions ? '<th>Precision</th>' : '';
  const worstRows = L.worst.map(
    (w, k) =>
      `<tr><td class="num">${k + 1}</td><td class="name mono">${e(w.node ?? '(input)')}</td><td>${e(w.opType)}</td>${r.precisions ? `<td class="mono">${e(precisionOf(w.node))}</td>` : ''}<td class="name mono">${e(w.tensor)}</td><td class="num">${dot(dbSeverity(w.sqnr))}${formatDb(w.sqnr)}</td><td class="num">${formatCosine(w.cosine)}</td><td class="num">${formatDb(w.valueSqnr)}</td><td class="num">${w.dequantizedSqnr === null ? '—' : formatDb(w.dequantizedSqnr)}</td></tr>`,
  );
  const jumps = L.jumps.length
    ? `<table><thead><tr><th>Node</th><th>Op</th><th class="num">Input SQNR</th><th class="num">Output SQNR</th><th class="num">Drop (dB)</th><th>Worst input</th></tr></thead><tbody>${L.jumps.map((j) => `<tr><td class="name mono">${e(j.node)}</td><td>${e(j.opType)}</td><td class="num">${formatDb(j.inputSqnr)}</td><td class="num">${formatDb(j.sqnr)}</td><td class="num"><strong>${formatDb(j.drop)}</strong></td><td class="name mono">${e(j.worstInput ?? '—')}</td></tr>`).join('')}</tbody></table>`
    : `<p class="muted">No node loses more than ${L.jumpThresholdDb} dB over its inputs.</p>`;
  const missing = L.missing.length
    ? `<p class="muted">${L.missing.length} float tensor(s) have no counterpart in the quantized model (folded by graph preparation) and are not compared.</p>`
    : '';
  return `<section><h2>Layer-wise error</h2><p class="muted">SQNR = 10·log10(Σx² / Σ(x−y)²) of each intermediate tensor over all samples, x the float model's value, y the quantized model's. Where a tensor is quantized, y is its dequantized value (what the next layers read); the "value" column is the producer's output before its own quantization.</p>${legend}${layerChart(L.rows, { highlight: L.worst.slice(0, 10) })}<h3>Worst ${L.worst.length} layers</h3><table><thead><tr><th class="num">#</th><th>Node</th><th>Op</th>${precisionHead}<th>Tensor</th><th class="num">SQNR (dB)</th><th class="num">Cosine</th><th class="num">Value SQNR</th><th class="num">Dequantized SQNR</th></tr></thead><tbody>${worstRows.join('')}</tbody></table><h3>Where the error jumps</h3><p class="muted">Nodes whose output SQNR is more than ${L.jumpThresholdDb} dB below that of the inputs they read: where error is added rather than passed on.</p>${jumps}${missing}</section>`;
}

function rangesSection(r: Report): string {
  if (r.ranges.length === 0) return '';
  const rows = r.ranges.map((g) => {
    const grid = g.grid
      ? `${e(g.grid.type)}, scale ${formatValue(g.grid.scale)}, zero point ${g.grid.zeroPoint} → [${formatValue(g.grid.min)}, ${formatValue(g.grid.max)}]`
      : '—';
    const hist = g.histogram ? histogramSparkline(g.histogram) : '';
    return `<tr><td class="name mono">${e(g.tensor)}</td><td class="num">${formatValue(g.min)}</td><td class="num">${formatValue(g.max)}</td><td>${g.source}</td><td>${grid}</td><td>${hist}</td></tr>`;
  });
  return `<section><h2>Ranges of the worst layers</h2><table><thead><tr><th>Tensor</th><th class="num">Min</th><th class="num">Max</th><th>From</th><th>Quantization grid</th><th>Histogram</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function configSection(r: Report): string {
  const parts: string[] = [];
  if (r.exclusions.length) {
    parts.push(
      `<h3>Exclusions</h3><table><thead><tr><th>Rule</th><th class="num">Nodes</th><th>Nodes kept float</th></tr></thead><tbody>${r.exclusions.map((x) => `<tr><td class="mono">${e(x.rule)}</td><td class="num">${x.ids.length}</td><td class="name mono">${e(x.ids.slice(0, 40).join(', '))}${x.ids.length > 40 ? ' …' : ''}</td></tr>`).join('')}</tbody></table>`,
    );
  } else if (r.config) parts.push('<p class="muted">No exclusions: every supported node is quantized.</p>');
  if (r.precisions) parts.push(precisionTable(r.precisions));
  if (r.config) parts.push(`<h3>Settings</h3><pre>${e(JSON.stringify(r.config.settings, null, 2))}</pre>`);
  return parts.length ? `<section><h2>Configuration</h2>${parts.join('')}</section>` : '';
}

/** How many nodes each precision has, and which nodes left 8 bits (mixed precision, exclusions). */
function precisionTable(precisions: NonNullable<Report['precisions']>): string {
  const counts = precisionCounts(precisions);
  const rows = PRECISION_CLASSES.filter((c) => counts[c]).map((c) => {
    const ids = c === 'int8' ? [] : Object.keys(precisions).filter((id) => precisions[id].class === c);
    const list = ids.length
      ? `${e(
          ids
            .slice(0, 40)
            .map((id) => `${id} (${precisions[id].label})`)
            .join(', '),
        )}${ids.length > 40 ? ' …' : ''}`
      : '';
    return `<tr data-precision="${c}"><td>${e(PRECISION_CLASS_LABELS[c])}</td><td class="num">${counts[c]}</td><td class="name mono">${list}</td></tr>`;
  });
  return `<h3>Precision per node</h3><table><thead><tr><th>Precision</th><th class="num">Nodes</th><th>Nodes outside 8 bits</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function suggestSection(r: Report): string {
  const s = r.suggest;
  if (!s) return '';
  const on = s.metric && s.metric !== 'cosine' ? `${s.metric} ≥ ` : '';
  const verdict = s.reached
    ? badge('good', `target ${on}${s.target} reached`)
    : badge('poor', `target ${on}${s.target} not reached (${s.stopped})`);
  const rows = s.steps.map((st) => {
    const c = st.candidate;
    const what = !c
      ? 'starting configuration'
      : c.kind === 'node'
        ? `exclude node <code>${e(c.node)}</code>`
        : `exclude subgraph <code>${e(c.subgraph.starts.join(','))}</code> → <code>${e(c.subgraph.ends.join(','))}</code> (${c.nodes} nodes)`;
    const why = c ? `${formatDb(c.layer.sqnr)} dB, drop ${formatDb(c.layer.drop)} dB` : '';
    const kept = st.step === 0 ? '' : st.kept ? badge('good', 'kept') : badge('none', st.error ? 'failed' : 'not kept');
    return `<tr><td class="num">${st.step}</td><td>${what}${st.error ? `<div class="muted">${e(st.error)}</div>` : ''}</td><td class="num">${why}</td><td class="num">${formatCosine(st.cosine)}</td>${on ? `<td class="num">${st.figure === undefined ? '—' : formatCosine(st.figure)}</td>` : ''}<td>${kept}</td><td class="num">${formatSeconds(st.seconds)}</td></tr>`;
  });
  return `<section><h2>Suggested exclusions</h2><p>${verdict}</p>${on ? '' : stepChart(s.steps, s.target)}<table><thead><tr><th class="num">Step</th><th>Change</th><th class="num">Layer error</th><th class="num">Measured cosine</th>${on ? `<th class="num">Measured ${e(s.metric!)}</th>` : ''}<th></th><th class="num">Time</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/** What the ladder's order means, for the report. */
export function ladderOrderText(order: ReportLadder['order']): string {
  if (!order) return '';
  return order === 'fastest'
    ? 'Order: fastest (every format, 8- and 16-bit, screened without fine-tuning first, then fine-tuning from the closest to the target, then mixed precision): the first format that meets the target is chosen, whatever its bits.'
    : 'Order: 8-bit first (the 8-bit formats screened, then fine-tuned closest first, then mixed precision within its budget fine-tuned with AdaRound; only then the 16-bit formats): a whole-model 16-bit format is chosen only when no 8-bit route meets the target.';
}

const LADDER_STOP_TEXT: Record<NonNullable<Report['ladder']>['stopped'], string> = {
  target: 'reached',
  exhausted: 'every rung tried',
  cancelled: 'cancelled or interrupted; the best rung measured so far is kept',
  budget: 'the time budget ran out; the best rung measured within it is kept',
  failed: 'the climb failed; the best rung measured before is kept',
};

function ladderSection(r: Report): string {
  const l = r.ladder;
  if (!l) return '';
  const { metric, value } = l.target;
  const verdict =
    l.stopped === 'target'
      ? badge('good', `${metric} ≥ ${value} reached`)
      : badge('poor', `${metric} ≥ ${value} not reached (${LADDER_STOP_TEXT[l.stopped]})`);
  const budget = l.budget
    ? ` Time budget ${formatSeconds(l.budget.seconds)}, used ${formatSeconds(l.budget.used)}.`
    : '';
  const failure = l.error ? `<div class="muted">${e(l.error)}</div>` : '';
  const others = [...new Set(l.rungs.flatMap((g) => Object.keys(g.metrics)))].filter((k) => k !== metric);
  const rows = l.rungs.map((g, i) => {
    const status = g.error ? badge('none', 'failed') : g.met ? badge('good', 'meets') : badge('poor', 'below');
    const chosen = i === l.chosen ? ` ${badge('good', 'chosen')}` : '';
    const cells = others
      .map((k) => `<td class="num">${g.metrics[k] === undefined ? '—' : ladderValueText(k, g.metrics[k])}</td>`)
      .join('');
    const why = g.why
      ? `<div class="muted">${e(g.why)}${g.estimate ? ` (estimated ${e(formatSeconds(g.estimate.seconds))}: ${e(g.estimate.basis)})` : ''}</div>`
      : '';
    return `<tr><td class="num">${g.index}</td><td>${e(g.label)}${g.error ? `<div class="muted">${e(g.error)}</div>` : ''}${g.stoppedEarly ? `<div class="muted">stopped early: ${e(g.stoppedEarly)}</div>` : ''}${why}</td><td>${g.step === 'ours' ? 'ours' : `step ${g.step}`}</td><td class="num"><strong>${ladderValueText(metric, g.score)}</strong></td>${cells}<td class="num">${g.excluded}</td><td>${status}${chosen}</td><td class="num">${formatSeconds(g.seconds)}</td></tr>`;
  });
  const head = others.map((k) => `<th class="num">${e(k)}</th>`).join('');
  const skipped = l.skipped?.length
    ? `<p>Not measured (earlier measurements said they could not win, or they could not fit in the time budget):</p><ul>${l.skipped.map((k) => `<li>${e(k.label)}: ${e(k.reason)}</li>`).join('')}</ul>`
    : '';
  const shortfall = l.shortfall
    ? `<div data-section="ladder-shortfall">${shortfallSections(l.shortfall)
        .map((x) => `<h3>${e(x.heading)}</h3><ul>${x.lines.map((t) => `<li>${e(t)}</li>`).join('')}</ul>`)
        .join('')}</div>`
    : '';
  return `<section><h2>Accuracy-recovery ladder</h2><p class="muted">The best-practice flow of AMD Quark's Ryzen AI guide, until a rung meets the target; every rung calibrated, quantized, tuned and measured on the evaluation samples by ${e(graphOptimizationText(r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION))}. ${e(ladderOrderText(l.order))}</p><p>${verdict}${e(budget)}</p>${failure}<table><thead><tr><th class="num">#</th><th>Rung</th><th>Flow</th><th class="num">${e(metric)}</th>${head}<th class="num">Exclusions</th><th></th><th class="num">Time</th></tr></thead><tbody>${rows.join('')}</tbody></table>${skipped}${shortfall}</section>`;
}

function timingsSection(r: Report): string {
  if (r.timings.length === 0) return '';
  return `<section><h2>Timings</h2><table><tbody>${r.timings.map((t) => `<tr><td>${e(t.label)}</td><td class="num">${formatSeconds(t.seconds)}</td></tr>`).join('')}</tbody></table></section>`;
}

/** The report as a complete HTML document. */
export function renderHtml(report: Report): string {
  const notes = report.notes.length
    ? `<section><h2>Notes</h2><ul>${report.notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul></section>`
    : '';
  const body = [
    header(report),
    cards(report),
    taskSection(report.task),
    atDefaultSection(report),
    outputsSection(report),
    npuSection(report),
    paritySection(report.parity),
    layerSection(report),
    rangesSection(report),
    suggestSection(report),
    ladderSection(report),
    configSection(report),
    timingsSection(report),
    notes,
  ].join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Quant Studio">
<title>${e(report.title)}</title>
<style>${REPORT_CSS}${report.task ? TASK_CSS : ''}</style>
</head>
<body>
${body}
<footer>Made by Quant Studio (${e(report.schema)}). This file is self-contained: it loads nothing from the network.</footer>
</body>
</html>
`;
}
