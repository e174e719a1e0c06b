/**
 * Boxes drawn over a photo as SVG (the report's and the page's task pictures): each box a stroked rectangle, its
 * class and score on a filled tag of the class's colour. The picture is shown at most 480 px wide (TASK_CSS), so
 * the tag is sized from the photo's width to read at 12 to 14 px however large the photo is; a tag sits above its
 * box, or inside the box's top where the box touches the photo's top edge.
 */
import { classColor } from '../task/maskImage.ts';
import type { PictureBox } from '../task/taskReport.ts';
import { escapeHtml as e } from './htmlText.ts';

/** The widest a picture is shown (px), and the tag's text height there (px). */
const SHOWN_WIDTH = 480;
const TAG_TEXT_PX = 14;

/** Black or white text, whichever reads better on the colour (the relative luminance's midpoint). */
function textOn([r, g, b]: readonly [number, number, number]): string {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 150 ? '#000' : '#fff';
}

/** The SVG of `boxes` over a photo `width` pixels wide. */
export function boxOverlay(boxes: readonly PictureBox[], width: number): string {
  const unit = width / SHOWN_WIDTH; // photo pixels per shown pixel at the widest
  const stroke = 2 * unit;
  const font = TAG_TEXT_PX * unit;
  const pad = 3 * unit;
  const tagHeight = font + 2 * pad;
  const parts: string[] = [];
  for (const b of boxes) {
    const rgb = classColor(b.label + 1);
    const col = `rgb(${rgb.join(',')})`;
    const text = `${b.name}${b.score < 1 ? ` ${b.score.toFixed(2)}` : ''}`;
    // A sans-serif glyph is about 0.6 em wide on average: enough to size the tag without measuring text.
    const tagWidth = Math.min(width, text.length * font * 0.6 + 2 * pad);
    const tagX = Math.max(0, Math.min(b.x1, width - tagWidth));
    const tagY = b.y1 - tagHeight >= 0 ? b.y1 - tagHeight : Math.max(0, b.y1);
    parts.push(
      `<rect x="${b.x1}" y="${b.y1}" width="${b.x2 - b.x1}" height="${b.y2 - b.y1}" fill="none" stroke="${col}" stroke-width="${stroke}"/>`,
      `<rect x="${tagX}" y="${tagY}" width="${tagWidth}" height="${tagHeight}" fill="${col}"/>`,
      `<text x="${tagX + pad}" y="${tagY + pad + font * 0.85}" font-size="${font}" font-family="sans-serif" fill="${textOn(rgb)}">${e(text)}</text>`,
    );
  }
  return parts.join('');
}
