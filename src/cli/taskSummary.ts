/** The task figures as the CLI prints them under Quark's summary: agreement, found/lost/moved, labels side by side. */
import { taskFigureRows } from '../core/report/taskSection.ts';
import type { ReportTask } from '../core/task/index.ts';

const pct = (v: number | null | undefined) =>
  v === null || v === undefined || Number.isNaN(v) ? '—' : `${(v * 100).toFixed(2)}%`;

export function taskSummaryText(t: ReportTask): string {
  const lines = [`Task (${t.task}): ${t.head}`, `Agreement with the float model on ${t.images} image(s):`];
  for (const [k, v] of taskFigureRows(t.task, t.agreement)) lines.push(`  ${k.padEnd(22)} ${pct(v)}`);
  const c = t.changes;
  if (c)
    lines.push(
      `  boxes (score ≥ ${t.scoreThreshold}): ${c.reference} float, ${c.found} found (${c.moved} moved, mean IoU ${c.found ? (c.iouSum / c.found).toFixed(3) : '—'}), ${c.lost} lost, ${c.added} added`,
    );
  if (t.task === 'detect' && t.agreement.classes?.length) {
    lines.push('  per class (float boxes, AP@0.5, AP@0.5:0.95):');
    for (const k of t.agreement.classes)
      lines.push(
        `    ${k.name.padEnd(18)} ${String(k.references).padStart(4)}  ${pct(k.ap50).padStart(8)}  ${pct(k.ap5095).padStart(8)}`,
      );
  }
  if (t.labels) {
    lines.push(
      'Against the labels:',
      `  ${'metric'.padEnd(16)} ${'float'.padStart(9)} ${'quantized'.padStart(10)} ${'drop'.padStart(9)}`,
    );
    for (const f of t.labels.figures)
      lines.push(
        `  ${f.metric.padEnd(16)} ${pct(f.float).padStart(9)} ${pct(f.quantized).padStart(10)} ${(Number.isNaN(f.drop) ? '—' : `${(f.drop * 100).toFixed(2)}pt`).padStart(9)}`,
      );
  }
  const worst = t.perImage.filter((p) => p.agreement < 1).slice(0, 5);
  if (worst.length) lines.push(`Worst images: ${worst.map((p) => `${p.name} ${pct(p.agreement)}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}
