/**
 * The report's charts as inline SVG strings: the per-layer SQNR chart with the worst layers called
 * out, horizontal bars for output metrics, the suggest search's cosine per step, and a histogram
 * sparkline. Inline SVG keeps the report one self-contained file that opens offline (no script, no
 * fonts, no requests); colours come from the page's CSS classes; every mark carries a <title> so
 * hovering shows the exact numbers. Must not fetch or reference anything outside the string.
 */

import type { LayerRow } from '../metrics/layerwise.ts';
import type { SuggestStep } from '../search/suggest.ts';
import { dbSeverity, escapeHtml, formatCosine, formatDb, type Severity } from './htmlText.ts';
import type { ReportHistogram } from './report.ts';

const r1 = (v: number) => Math.round(v * 10) / 10;

function svgOpen(width: number, height: number, label: string): string {
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${escapeHtml(label)}" preserveAspectRatio="xMidYMid meet">`;
}

/** Tick values from lo to hi, about `count` of them, on a 1/2/5 × 10^k step. */
export function ticks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

/** A call-out's circle radius in the layer chart. */
const CALLOUT_R = 7;

/**
 * Where the numbered call-outs go so that none covers another: each wants the spot just above its bar; taken in rank
 * order (the worst keeps its own spot), one that would touch a circle already placed moves to the nearest free spot
 * on a 2r + 2 grid around it (up first, then sideways), within `bounds`. Its leader line still ends on its bar.
 */
export function placeCallouts(
  wanted: readonly { rank: number; x: number; y: number }[],
  bounds: { left: number; right: number; top: number; bottom: number },
): { x: number; y: number }[] {
  const gap = 2 * CALLOUT_R + 2;
  const offsets: [number, number][] = [];
  for (let dx = -8; dx <= 8; dx++) for (let dy = -8; dy <= 8; dy++) offsets.push([dx * gap, dy * gap]);
  // Nearest first; at equal distance, up before down and the bar's own column before its neighbours.
  offsets.sort((a, b) => Math.hypot(...a) - Math.hypot(...b) || a[1] - b[1] || Math.abs(a[0]) - Math.abs(b[0]));
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), Math.max(lo, hi));
  const out: { x: number; y: number }[] = wanted.map(() => ({ x: NaN, y: NaN }));
  const done: { x: number; y: number }[] = [];
  const order = wanted.map((_, j) => j).sort((a, b) => wanted[a].rank - wanted[b].rank);
  for (const j of order) {
    const x0 = clamp(wanted[j].x, bounds.left, bounds.right);
    const y0 = clamp(wanted[j].y, bounds.top, bounds.bottom);
    let spot = { x: x0, y: y0 };
    for (const [dx, dy] of offsets) {
      const c = { x: x0 + dx, y: y0 + dy };
      if (c.x < bounds.left || c.x > bounds.right || c.y < bounds.top || c.y > bounds.bottom) continue;
      if (done.every((d) => Math.hypot(d.x - c.x, d.y - c.y) >= gap)) {
        spot = c;
        break;
      }
    }
    out[j] = spot;
    done.push(spot);
  }
  return out;
}

export interface LayerChartOptions {
  /** Rows called out with their rank (1 = worst). */
  readonly highlight?: readonly LayerRow[];
  readonly width?: number;
  readonly height?: number;
}

/**
 * SQNR per compared tensor, in graph order: one bar each from the chart floor, coloured by severity;
 * exact tensors (SQNR ∞) drawn full height in grey; the highlighted rows marked with their rank.
 */
export function layerChart(rows: readonly LayerRow[], options: LayerChartOptions = {}): string {
  const width = options.width ?? 960;
  const height = options.height ?? 300;
  const m = { left: 48, right: 12, top: 26, bottom: 34 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const finite = rows.map((r) => r.sqnr).filter(Number.isFinite);
  if (rows.length === 0 || finite.length === 0) {
    return `${svgOpen(width, 60, 'No layer-wise data')}<text x="${width / 2}" y="34" class="axis-label" text-anchor="middle">No compared layer has a finite SQNR.</text></svg>`;
  }
  const lo = Math.min(0, Math.floor(Math.min(...finite) / 10) * 10);
  const hi = Math.max(lo + 10, Math.ceil(Math.max(...finite) / 10) * 10);
  const y = (v: number) => m.top + ph - ((Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * ph;
  const step = pw / rows.length;
  const barWidth = Math.max(step * 0.8, 0.6);
  const parts: string[] = [svgOpen(width, height, 'SQNR per layer')];

  for (const t of ticks(lo, hi, 6)) {
    parts.push(`<line class="grid" x1="${m.left}" x2="${width - m.right}" y1="${r1(y(t))}" y2="${r1(y(t))}"/>`);
    parts.push(`<text class="tick" x="${m.left - 6}" y="${r1(y(t) + 4)}" text-anchor="end">${t}</text>`);
  }
  parts.push(
    `<text class="axis-label" transform="translate(12 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">SQNR (dB)</text>`,
  );
  parts.push(
    `<text class="axis-label" x="${m.left + pw / 2}" y="${height - 6}" text-anchor="middle">${rows.length} tensors in graph order (inputs → outputs)</text>`,
  );

  const rank = new Map((options.highlight ?? []).map((r, k) => [r.tensor, k + 1]));
  rows.forEach((r, i) => {
    if (Number.isNaN(r.sqnr)) return;
    const x = m.left + i * step + (step - barWidth) / 2;
    const exact = r.sqnr === Infinity;
    const top = exact ? m.top : y(r.sqnr);
    const cls: Severity | 'exact' = exact ? 'exact' : dbSeverity(r.sqnr);
    const tip = `${r.tensor} (${r.node ?? 'input'}, ${r.opType}): SQNR ${formatDb(r.sqnr)} dB, cosine ${formatCosine(r.cosine)}`;
    parts.push(
      `<rect class="bar sev-${cls}" x="${r1(x)}" y="${r1(top)}" width="${r1(barWidth)}" height="${r1(Math.max(m.top + ph - top, 0.5))}"><title>${escapeHtml(tip)}</title></rect>`,
    );
  });
  // Call-outs last, so they sit above the bars.
  const wanted = rows.flatMap((r, i) => {
    const k = rank.get(r.tensor);
    if (k === undefined || !Number.isFinite(r.sqnr)) return [];
    const x = m.left + i * step + step / 2;
    return [{ rank: k, row: r, x, y: y(r.sqnr) }];
  });
  const placed = placeCallouts(
    wanted.map((w) => ({ rank: w.rank, x: w.x, y: Math.max(w.y - 10, m.top - 14) })),
    {
      left: m.left + CALLOUT_R,
      right: width - m.right - CALLOUT_R,
      top: CALLOUT_R + 1,
      bottom: m.top + ph - CALLOUT_R,
    },
  );
  wanted.forEach((w, j) => {
    const { x: cx, y: cy } = placed[j];
    const k = w.rank;
    parts.push(
      `<g class="callout"><line x1="${r1(cx)}" x2="${r1(w.x)}" y1="${r1(cy + CALLOUT_R)}" y2="${r1(w.y)}"/><circle cx="${r1(cx)}" cy="${r1(cy)}" r="${CALLOUT_R}"/><text x="${r1(cx)}" y="${r1(cy + 3.5)}" text-anchor="middle">${k}</text><title>${escapeHtml(`#${k} ${w.row.tensor}: ${formatDb(w.row.sqnr)} dB`)}</title></g>`,
    );
  });
  parts.push(`<line class="axis" x1="${m.left}" x2="${width - m.right}" y1="${m.top + ph}" y2="${m.top + ph}"/>`);
  parts.push('</svg>');
  return parts.join('');
}

export interface BarItem {
  readonly label: string;
  readonly value: number;
  readonly severity: Severity;
  readonly text: string;
}

/** Horizontal bars from `lo` to `hi` (values clamped), one row per item, labelled left and valued right. */
export function barChart(items: readonly BarItem[], lo: number, hi: number, title: string): string {
  const width = 960;
  const row = 26;
  const labelWidth = 200;
  const valueWidth = 120;
  const height = items.length * row + 8;
  const pw = width - labelWidth - valueWidth;
  const parts = [svgOpen(width, height, title)];
  items.forEach((it, k) => {
    const yy = 4 + k * row;
    const v = Number.isFinite(it.value) ? Math.min(Math.max(it.value, lo), hi) : it.value === Infinity ? hi : lo;
    const w = hi > lo ? ((v - lo) / (hi - lo)) * pw : 0;
    const label = it.label.length > 26 ? `${it.label.slice(0, 25)}…` : it.label;
    parts.push(
      `<text class="bar-label" x="${labelWidth - 8}" y="${yy + 16}" text-anchor="end">${escapeHtml(label)}<title>${escapeHtml(it.label)}</title></text>`,
    );
    parts.push(`<rect class="track" x="${labelWidth}" y="${yy + 4}" width="${pw}" height="16" rx="3"/>`);
    parts.push(
      `<rect class="bar sev-${it.severity}" x="${labelWidth}" y="${yy + 4}" width="${r1(Math.max(w, 1))}" height="16" rx="3"/>`,
    );
    parts.push(`<text class="bar-value" x="${labelWidth + pw + 8}" y="${yy + 16}">${escapeHtml(it.text)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The search's measured cosine per step (kept steps filled, rejected hollow), with the target line. */
export function stepChart(steps: readonly SuggestStep[], target: number): string {
  const width = 960;
  const height = 220;
  const m = { left: 64, right: 16, top: 14, bottom: 30 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const values = [...steps.map((s) => s.cosine), target].filter(Number.isFinite);
  const lo0 = Math.min(...values);
  const hi0 = Math.max(...values);
  const pad = Math.max((hi0 - lo0) * 0.1, 1e-4);
  const lo = lo0 - pad;
  const hi = hi0 + pad;
  const x = (i: number) => m.left + (steps.length > 1 ? (i / (steps.length - 1)) * pw : pw / 2);
  const y = (v: number) => m.top + ph - ((v - lo) / (hi - lo)) * ph;
  const parts = [svgOpen(width, height, 'Output cosine per search step')];
  for (const t of ticks(lo, hi, 4)) {
    parts.push(`<line class="grid" x1="${m.left}" x2="${width - m.right}" y1="${r1(y(t))}" y2="${r1(y(t))}"/>`);
    parts.push(`<text class="tick" x="${m.left - 6}" y="${r1(y(t) + 4)}" text-anchor="end">${t.toFixed(4)}</text>`);
  }
  parts.push(
    `<line class="target" x1="${m.left}" x2="${width - m.right}" y1="${r1(y(target))}" y2="${r1(y(target))}"><title>target ${target}</title></line>`,
  );
  const best = steps.map((s) => `${r1(x(s.step))},${r1(y(s.bestCosine))}`).join(' ');
  parts.push(`<polyline class="best-line" points="${best}"/>`);
  for (const s of steps) {
    if (!Number.isFinite(s.cosine)) continue;
    const what = s.candidate
      ? `${s.candidate.kind === 'node' ? 'exclude node' : 'exclude tail from'} ${s.candidate.node}`
      : 'starting configuration';
    parts.push(
      `<circle class="${s.kept ? 'step-kept' : 'step-rejected'}" cx="${r1(x(s.step))}" cy="${r1(y(s.cosine))}" r="4.5"><title>${escapeHtml(`step ${s.step}: ${what}, cosine ${formatCosine(s.cosine)}${s.kept ? ' (kept)' : ' (not kept)'}`)}</title></circle>`,
    );
  }
  parts.push(`<text class="axis-label" x="${m.left + pw / 2}" y="${height - 6}" text-anchor="middle">step</text>`);
  parts.push('</svg>');
  return parts.join('');
}

/** A small histogram: one bar per bin, heights relative to the fullest bin. */
export function histogramSparkline(h: ReportHistogram): string {
  const width = 160;
  const height = 36;
  const n = Math.max(h.counts.length, 1);
  const top = Math.max(...h.counts, 1);
  const parts = [svgOpen(width, height, 'Histogram')];
  h.counts.forEach((c, i) => {
    const bh = (c / top) * (height - 2);
    parts.push(
      `<rect class="spark" x="${r1((i / n) * width)}" y="${r1(height - bh)}" width="${r1(Math.max(width / n - 0.5, 0.5))}" height="${r1(bh)}"/>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
