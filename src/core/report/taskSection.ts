/**
 * The report's task section: does the quantized model still do its job. The figures against the float
 * model (mAP@0.5 and @0.5:0.95 per class with boxes found/lost/moved, top-1/top-5 agreement, mIoU, text
 * read the same), against labels when given (the float and the quantized figure side by side and the
 * drop), and pictures: the worst images first, the float model's and the quantized model's predictions
 * (and the labels) drawn over the same photo side by side, as inline SVG (the photo embedded as a data URL).
 */
import type { PictureContent, ReportTask, TaskPicture } from '../task/taskReport.ts';
import type { TaskFigures } from '../task/taskEvaluation.ts';
import { boxOverlay } from './boxOverlay.ts';
import { escapeHtml as e } from './htmlText.ts';

const pct = (v: number | null | undefined) =>
  v === null || v === undefined || Number.isNaN(v) ? '—' : `${(v * 100).toFixed(2)} %`;

/** The figures of a task, as label/value pairs in the order they are read. */
export function taskFigureRows(task: ReportTask['task'], f: TaskFigures): [string, number | undefined][] {
  if (task === 'detect')
    return [
      ['mAP@0.5', f.map50],
      ['mAP@0.5:0.95', f.map5095],
      ['mAP@0.75', f.map75],
    ];
  if (task === 'classify')
    return f.top5 === undefined
      ? [['top-1', f.top1]]
      : [
          ['top-1', f.top1],
          ['top-5', f.top5],
        ];
  if (task === 'segment') return [['mIoU', f.miou]];
  return [
    ['lines read the same', f.sequence],
    ['CER', f.cer],
  ];
}

function svgContent(c: PictureContent, w: number, h: number): string {
  const parts: string[] = [];
  if (c.mask)
    parts.push(
      `<image href="${c.mask.image}" x="${c.mask.x}" y="${c.mask.y}" width="${c.mask.width}" height="${c.mask.height}" preserveAspectRatio="none" style="image-rendering:pixelated"/>`,
    );
  if (c.boxes) parts.push(boxOverlay(c.boxes, w, h));
  return parts.join('');
}

function caption(c: PictureContent): string {
  if (c.top)
    return `<ol class="task-top">${c.top.map((t) => `<li>${e(t.name)} <span class="muted">${t.score.toFixed(3)}</span></li>`).join('')}</ol>`;
  if (c.boxes) return `<div class="muted">${c.boxes.length} box${c.boxes.length === 1 ? '' : 'es'}</div>`;
  if (c.read !== undefined) return `<div class="mono">${e(c.read)}</div>`;
  if (c.text) return `<div class="mono">${e(c.text.join(' '))}</div>`;
  return '';
}

/**
 * One panel of a picture. The photo is embedded once a picture, in its first panel (`photoId`), and the other panels
 * draw that same image by reference: a report of 4 photos was 6.9 MB with each photo written once per panel.
 */
function panel(title: string, p: TaskPicture, c: PictureContent, photoId: string, first: boolean): string {
  const photo = !p.image
    ? `<rect width="${p.width}" height="${p.height}" fill="#ddd"/>`
    : first
      ? `<image id="${photoId}" href="${p.image}" x="0" y="0" width="${p.width}" height="${p.height}"/>`
      : `<use href="#${photoId}"/>`;
  return `<figure class="task-panel"><figcaption>${e(title)}</figcaption><svg viewBox="0 0 ${p.width} ${p.height}" role="img" aria-label="${e(`${title}: ${p.name}`)}">${photo}${svgContent(c, p.width, p.height)}</svg>${caption(c)}</figure>`;
}

/**
 * The task's k-th picture (worst agreement first): its name and agreement over the float model's, the quantized
 * model's (and the labels') predictions side by side. The report's section and the sample's card both show it.
 * `idPrefix` keeps the photo's id unique on a page that shows the same picture twice.
 */
export function taskPicture(t: ReportTask, k: number, idPrefix = 'task-photo'): string {
  const p = t.pictures[k];
  if (!p) return '';
  const id = `${idPrefix}-${k}`;
  const panels = [panel('Float model', p, p.float, id, true), panel('Quantized model', p, p.quantized, id, false)];
  if (p.labels) panels.push(panel('Labels', p, p.labels, id, false));
  return `<div class="task-picture" data-image="${e(p.name)}"><h4>${e(p.name)} <span class="muted">agreement ${pct(p.agreement)}</span></h4><div class="task-panels">${panels.join('')}</div></div>`;
}

function pictures(t: ReportTask): string {
  if (!t.pictures.length) return '';
  return `<h3>Pictures, worst agreement first</h3>${t.pictures.map((_, k) => taskPicture(t, k)).join('')}`;
}

function classTable(t: ReportTask): string {
  const classes = t.agreement.classes ?? [];
  if (!classes.length) return '';
  const det = t.task === 'detect';
  const head = det
    ? '<th class="num">Float boxes</th><th class="num">AP@0.5</th><th class="num">AP@0.5:0.95</th>'
    : '<th class="num">IoU</th>';
  const rows = classes.map(
    (c) =>
      `<tr><td>${e(c.name)}</td>${det ? `<td class="num">${c.references}</td><td class="num">${pct(c.ap50)}</td><td class="num">${pct(c.ap5095)}</td>` : `<td class="num">${pct(c.iou)}</td>`}</tr>`,
  );
  return `<h3>Per class</h3><table><thead><tr><th>Class</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** How the quantized model's predictions are scored against the float model's, in the words of the task. */
const SCORED: Record<ReportTask['task'], string> = {
  detect: "its boxes scored against the float model's by COCO's AP (101 recall points, IoU 0.50–0.95)",
  classify:
    "its top classes compared with the float model's (top-1: the same first class; top-5: the float model's first class among the quantized model's five)",
  segment: "its per-pixel classes compared with the float model's mask (IoU per class, averaged)",
  text: "its lines read (greedy CTC) compared with the float model's: lines read the same, and the character error rate",
};

/** A detection's boxes, found, moved, lost and added against the float model's, as one paragraph ('' for other tasks). */
export function boxChanges(t: ReportTask): string {
  const ch = t.changes;
  if (!ch) return '';
  return `<p>Of the float model's ${ch.reference} boxes at score ≥ ${t.scoreThreshold}: <b>${ch.found} found</b> by the quantized model (${ch.moved} moved: IoU under 0.75; mean IoU ${ch.found ? (ch.iouSum / ch.found).toFixed(3) : '—'}), <b>${ch.lost} lost</b>; ${ch.added} box${ch.added === 1 ? '' : 'es'} added that the float model did not find.</p>`;
}

export function taskSection(t: ReportTask | null | undefined): string {
  if (!t) return '';
  const agreement = taskFigureRows(t.task, t.agreement)
    .map(([k, v]) => `<tr><td>${e(k)}</td><td class="num">${pct(v)}</td></tr>`)
    .join('');
  const changes = boxChanges(t);
  const labels = t.labels
    ? `<h3>Against the labels</h3><table><thead><tr><th>Metric</th><th class="num">Float model</th><th class="num">Quantized model</th><th class="num">Drop</th></tr></thead><tbody>${t.labels.figures.map((f) => `<tr><td>${e(f.metric)}</td><td class="num">${pct(f.float)}</td><td class="num">${pct(f.quantized)}</td><td class="num">${Number.isNaN(f.drop) ? '—' : `${(f.drop * 100).toFixed(2)} pt`}</td></tr>`).join('')}</tbody></table>`
    : '<p class="muted">No labels given: the float model\'s predictions are the reference.</p>';
  return `<section id="task"><h2>Task accuracy (${e(t.task)})</h2><p class="muted">${e(t.head)}. ${t.images} image(s). The quantized model: ${SCORED[t.task] ?? "its predictions scored against the float model's"}.</p><h3>Agreement with the float model</h3><table><tbody>${agreement}</tbody></table>${changes}${classTable(t)}${labels}${pictures(t)}</section>`;
}

export const TASK_CSS = `.task-panels{display:flex;gap:12px;flex-wrap:wrap}.task-panel{margin:0;flex:1 1 260px;max-width:480px}.task-panel svg{width:100%;height:auto;display:block;background:#eee}.task-panel figcaption{font-weight:600;margin-bottom:4px}.task-picture{margin:16px 0}.task-top{margin:4px 0;padding-left:20px}`;
