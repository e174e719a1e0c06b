/**
 * The renderer's overview: every box and edge cytoscape does not draw, painted on a plain canvas as coloured
 * rectangles and lines (op types on them where zoomed in enough, outlines for the visual state), and the boxes meant
 * for cytoscape painted in its style (detailPainter.ts) until cytoscape has drawn them.
 */
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { paintDetail } from './detailPainter.ts';
import type { EdgeLabels } from './edgeLabels.ts';
import { FLAG } from './flags.ts';
import type { DrawnView } from './viewModel.ts';

/** From this zoom the overview writes op types on its boxes (11 px text reads from about 5 px). */
const LABEL_ZOOM = 0.45;
const MAX_OVERVIEW_LABELS = 4000;

/** What the overview paints from: the view, its layout, the boxes' visual state, and who draws which box. */
export interface OverviewScene {
  view: DrawnView;
  layout: LayoutResult;
  flags: Uint8Array;
  /** Which edges show their shape label, and where (edgeLabels.ts). */
  labels: EdgeLabels;
  /** cytoscape draws box b now: the overview leaves it out. */
  drawnByCytoscape(b: number): boolean;
  /** The canvas paints box b in cytoscape's style now (cytoscape meant to hold it but not drawing yet). */
  paintedInDetail(b: number): boolean;
  /** Box b's fill: its heat, else its op family's colour. */
  colourOf(b: number): string;
}

/** Paints, at `zoom` with model (0, 0) at canvas (ox, oy), what of model rectangle x1..x2, y1..y2 cytoscape does not draw. */
export function paintOverview(
  ctx: CanvasRenderingContext2D,
  scene: OverviewScene,
  zoom: number,
  ox: number,
  oy: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
) {
  ctx.setTransform(zoom, 0, 0, zoom, ox, oy);
  const { boxes, edges } = scene.view;
  const { x, y } = scene.layout;
  const px = 1 / zoom;
  const own = scene.drawnByCytoscape;

  ctx.beginPath();
  for (const e of edges) {
    if ((own(e.source) && own(e.target)) || (scene.paintedInDetail(e.source) && scene.paintedInDetail(e.target)))
      continue;
    const sx = x[e.source],
      sy = y[e.source] + boxes[e.source].height / 2;
    const tx = x[e.target],
      ty = y[e.target] - boxes[e.target].height / 2;
    if ((sx < x1 && tx < x1) || (sx > x2 && tx > x2) || (sy < y1 && ty < y1) || (sy > y2 && ty > y2)) continue;
    ctx.moveTo(sx, sy);
    ctx.lineTo(tx, ty);
  }
  ctx.lineWidth = Math.max(1.2, px);
  ctx.strokeStyle = '#a3adb9';
  ctx.stroke();

  const fills = new Map<string, Path2D>();
  const outlines = new Map<string, Path2D>();
  const washed = new Path2D();
  const path = (m: Map<string, Path2D>, key: string) => {
    let p = m.get(key);
    if (!p) m.set(key, (p = new Path2D()));
    return p;
  };
  const minSize = 2 * px;
  const labelled: number[] = [];
  const inDetail: number[] = [];
  for (let i = 0; i < boxes.length; i++) {
    if (own(i)) continue;
    const b = boxes[i];
    const bw = Math.max(b.width, minSize),
      bh = Math.max(b.height, minSize);
    const left = x[i] - bw / 2,
      top = y[i] - bh / 2;
    if (left > x2 || left + bw < x1 || top > y2 || top + bh < y1) continue;
    if (scene.paintedInDetail(i)) {
      inDetail.push(i);
      continue;
    }
    path(fills, scene.colourOf(i)).rect(left, top, bw, bh);
    labelled.push(i);
    const f = scene.flags[i];
    if (f & FLAG.excluded) washed.rect(left, top, bw, bh);
    const outline =
      f & FLAG.selected
        ? '#2f7de1'
        : f & FLAG.start
          ? '#16a34a'
          : f & FLAG.end
            ? '#dc2626'
            : f & FLAG.picked
              ? '#7c3aed'
              : f & FLAG.hovered
                ? '#ec4899'
                : f & FLAG.preview
                  ? '#f59e0b'
                  : f & FLAG.match
                    ? '#facc15'
                    : '';
    if (outline) path(outlines, outline).rect(left - 4 * px, top - 4 * px, bw + 8 * px, bh + 8 * px);
  }
  for (const [colour, p] of fills) {
    ctx.fillStyle = colour;
    ctx.fill(p);
  }
  ctx.fillStyle = 'rgba(245, 247, 250, 0.68)';
  ctx.fill(washed);
  ctx.lineWidth = 3 * px;
  for (const [colour, p] of outlines) {
    ctx.strokeStyle = colour;
    ctx.stroke(p);
  }
  // Titles where they can be read (too many boxes in view for cytoscape, but zoomed in enough).
  if (zoom >= LABEL_ZOOM && labelled.length <= MAX_OVERVIEW_LABELS) {
    ctx.fillStyle = '#ffffff';
    ctx.font = '600 11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const i of labelled) ctx.fillText(boxes[i].title, x[i], y[i], boxes[i].width - 6);
  }
  if (inDetail.length) {
    paintDetail(
      ctx,
      {
        view: scene.view,
        x,
        y,
        zoom,
        boxes: scene.paintedInDetail,
        flags: scene.flags,
        colourOf: scene.colourOf,
        labels: scene.labels,
      },
      inDetail,
    );
  }
}
