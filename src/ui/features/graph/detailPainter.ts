/**
 * Paints boxes and edges on a plain 2D canvas the way cytoscape draws them with the renderer's stylesheet
 * (rounded boxes with their two-line labels, straight edges clipped at the boxes with their arrowheads and shape
 * labels, the visual states' borders, underlays and outlines). It exists for the first picture: a small graph is
 * on screen in the same frame as its layout, and cytoscape (whose first picture costs 0.3–0.5 s on 2 cores: its
 * stylesheet, style resolution and label measuring) takes over a moment later without a visible change, because
 * both draw the same shapes from the same numbers (`DETAIL_STYLE`, which the cytoscape stylesheet reads too).
 */
import { edgeSegment, type EdgeLabels } from './edgeLabels.ts';
import { FLAG } from './flags.ts';
import type { DrawnView } from './viewModel.ts';

/** The numbers both cytoscape's stylesheet and this painter draw with. */
export const DETAIL_STYLE = {
  font: 'system-ui, sans-serif',
  nodeFontSize: 11,
  nodeTextColour: '#ffffff',
  /** cytoscape's `min-zoomed-font-size` for node labels; edges use `edgeMinZoomedFontSize`. */
  nodeMinZoomedFontSize: 7,
  edgeWidth: 1.2,
  edgeColour: '#98a2af',
  arrowScale: 0.7,
  edgeFontSize: 9,
  edgeTextColour: '#4a5562',
  edgeTextBackground: '#f5f7fa',
  edgeTextBackgroundOpacity: 0.85,
  edgeMinZoomedFontSize: 8,
  excluded: { opacity: 0.32, textColour: '#2b3440', borderWidth: 2, borderColour: '#7b8794' },
  underlay: { padding: 7, opacity: 0.75, preview: '#f59e0b', hovered: '#ec4899' },
  border: { width: 4, start: '#16a34a', end: '#dc2626', picked: '#7c3aed' },
  outline: { match: { width: 3, colour: '#facc15', offset: 2 }, selected: { width: 4, colour: '#2f7de1', offset: 3 } },
} as const;

/** cytoscape shows a label when font size × 2^ceil(log2(zoom)) (its texture level) reaches the minimum. */
export function labelShown(fontSize: number, minZoomedFontSize: number, zoom: number): boolean {
  return fontSize * 2 ** Math.ceil(Math.log2(zoom)) >= minZoomedFontSize;
}

/** cytoscape's arrow size for an edge width and arrow scale; its triangle is 0.3 of it long and wide. */
const arrowSize = (width: number, scale: number) => Math.max((width * 13.37) ** 0.9, 29) * scale;

function roundRectPath(
  ctx: CanvasRenderingContext2D,
  x: number,
  y: number,
  w: number,
  h: number,
  radius = Math.min(w / 4, h / 4, 8),
): void {
  const hw = w / 2,
    hh = h / 2;
  const r = Math.min(radius, hw, hh);
  ctx.moveTo(x, y - hh);
  ctx.arcTo(x + hw, y - hh, x + hw, y, r);
  ctx.arcTo(x + hw, y + hh, x, y + hh, r);
  ctx.arcTo(x - hw, y + hh, x - hw, y, r);
  ctx.arcTo(x - hw, y - hh, x, y - hh, r);
  ctx.lineTo(x, y - hh);
  ctx.closePath();
}

export interface DetailScene {
  view: DrawnView;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  zoom: number;
  /** Whether box b is painted in detail (the others are left to the caller). */
  boxes: (b: number) => boolean;
  flags: Uint8Array;
  colourOf(b: number): string;
  /** Which edges show their shape label, and where (edgeLabels.ts). */
  labels: EdgeLabels;
}

/**
 * Paints the edges between detailed boxes and the detailed boxes themselves, in model coordinates (the
 * context's transform maps them to the screen), in cytoscape's order: edges and their labels, then boxes.
 */
export function paintDetail(ctx: CanvasRenderingContext2D, scene: DetailScene, detailed: number[]): void {
  const { view, x, y, zoom, flags } = scene;
  const S = DETAIL_STYLE;
  const edgeLabels = labelShown(S.edgeFontSize, S.edgeMinZoomedFontSize, zoom);
  const nodeLabels = labelShown(S.nodeFontSize, S.nodeMinZoomedFontSize, zoom);

  // Underlays (preview, hovered) sit below everything of their box.
  for (const b of detailed) {
    const f = flags[b];
    const colour = f & FLAG.hovered ? S.underlay.hovered : f & FLAG.preview ? S.underlay.preview : '';
    if (!colour) continue;
    const box = view.boxes[b];
    const p = S.underlay.padding;
    ctx.beginPath();
    roundRectPath(ctx, x[b], y[b], box.width + 2 * p, box.height + 2 * p);
    ctx.globalAlpha = S.underlay.opacity;
    ctx.fillStyle = colour;
    ctx.fill();
    ctx.globalAlpha = 1;
  }

  const arrow = arrowSize(S.edgeWidth, S.arrowScale);
  const arrowLength = 0.3 * arrow,
    arrowHalfWidth = 0.15 * arrow;
  const labels: [number, number, string][] = [];
  ctx.beginPath();
  const heads = new Path2D();
  for (let k = 0; k < view.edges.length; k++) {
    const e = view.edges[k];
    if (!scene.boxes(e.source) || !scene.boxes(e.target)) continue;
    const [sx, sy, tx, ty] = edgeSegment(view, x, y, k);
    const length = Math.hypot(tx - sx, ty - sy);
    if (length === 0) continue;
    const ux = (tx - sx) / length,
      uy = (ty - sy) / length;
    ctx.moveTo(sx, sy);
    ctx.lineTo(tx - ux * arrowLength, ty - uy * arrowLength);
    heads.moveTo(tx, ty);
    heads.lineTo(tx - ux * arrowLength - uy * arrowHalfWidth, ty - uy * arrowLength + ux * arrowHalfWidth);
    heads.lineTo(tx - ux * arrowLength + uy * arrowHalfWidth, ty - uy * arrowLength - ux * arrowHalfWidth);
    heads.closePath();
    const text = scene.labels.text[k];
    if (edgeLabels && text) labels.push([(sx + tx) / 2 + scene.labels.dx[k], (sy + ty) / 2 + scene.labels.dy[k], text]);
  }
  ctx.lineWidth = S.edgeWidth;
  ctx.strokeStyle = S.edgeColour;
  ctx.stroke();
  ctx.fillStyle = S.edgeColour;
  ctx.fill(heads);
  if (labels.length) {
    ctx.font = `normal normal ${S.edgeFontSize}px ${S.font}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    for (const [lx, ly, text] of labels) {
      const w = Math.ceil(ctx.measureText(text).width),
        h = S.edgeFontSize;
      ctx.globalAlpha = S.edgeTextBackgroundOpacity;
      ctx.fillStyle = S.edgeTextBackground;
      ctx.fillRect(lx - w / 2 - 1, ly - h / 2 - 1, w + 2, h + 2);
      ctx.globalAlpha = 1;
      ctx.fillStyle = S.edgeTextColour;
      ctx.fillText(text, lx, ly + h / 2);
    }
  }

  ctx.font = `normal normal ${S.nodeFontSize}px ${S.font}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  for (const b of detailed) {
    const box = view.boxes[b];
    const f = flags[b];
    const bx = x[b],
      by = y[b];
    ctx.beginPath();
    roundRectPath(ctx, bx, by, box.width, box.height);
    ctx.fillStyle = scene.colourOf(b);
    if (f & FLAG.excluded) ctx.globalAlpha = S.excluded.opacity;
    ctx.fill();
    ctx.globalAlpha = 1;
    const border =
      f & FLAG.start ? S.border.start : f & FLAG.end ? S.border.end : f & FLAG.picked ? S.border.picked : '';
    if (border || f & FLAG.excluded) {
      ctx.lineWidth = border ? S.border.width : S.excluded.borderWidth;
      ctx.strokeStyle = border || S.excluded.borderColour;
      ctx.setLineDash(border ? [] : [6, 6]);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    const outline = f & FLAG.selected ? S.outline.selected : f & FLAG.match ? S.outline.match : null;
    if (outline) {
      const grow = 2 * outline.offset + outline.width;
      ctx.beginPath();
      roundRectPath(ctx, bx, by, box.width + grow, box.height + grow);
      ctx.lineWidth = outline.width;
      ctx.strokeStyle = outline.colour;
      ctx.stroke();
    }
    if (nodeLabels) {
      ctx.fillStyle = f & FLAG.excluded ? S.excluded.textColour : S.nodeTextColour;
      // cytoscape's wrapped label: lines of one font size each, centred as a block, bottom baselines.
      const lines = `${box.title}\n${box.subtitle}`.split('\n');
      let ty = by + (lines.length * S.nodeFontSize) / 2 - (lines.length - 1) * S.nodeFontSize;
      for (const line of lines) {
        ctx.fillText(line, bx, ty);
        ty += S.nodeFontSize;
      }
    }
  }
}
