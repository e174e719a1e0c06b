/**
 * Boxes drawn over a photo as SVG (the report's and the page's task pictures): each box a stroked rectangle, its
 * class and score on a filled tag of the class's colour. The picture is shown at most 480 px wide (TASK_CSS), so
 * the tag is sized from the photo's width to read at 12 to 14 px however large the photo is. A tag covers no boxed
 * content where it can: it sits outside its box, above it, or below it where there is no room above or where the
 * tag above would lie over another box or tag (text lines stacked close); where both places cover some, the one that
 * covers least, always within the photo.
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

interface Rect {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

/** The area of the rectangles under a tag (photo pixels squared). */
function coveredArea(tag: Rect, boxes: readonly Rect[]): number {
  let area = 0;
  for (const b of boxes) {
    const w = Math.min(tag.x2, b.x2) - Math.max(tag.x1, b.x1);
    const h = Math.min(tag.y2, b.y2) - Math.max(tag.y1, b.y1);
    if (w > 0 && h > 0) area += w * h;
  }
  return area;
}

/** The tag's top: above the box or below it, whichever covers less of `taken` (above on a tie), within the photo. */
function tagTop(
  b: Rect,
  x: number,
  tagWidth: number,
  tagHeight: number,
  height: number,
  taken: readonly Rect[],
): number {
  const within = (y: number) => Math.max(0, Math.min(y, height - tagHeight));
  let best = within(b.y1 - tagHeight);
  let bestArea = Infinity;
  for (const y of [b.y1 - tagHeight, b.y2].map(within)) {
    const area = coveredArea({ x1: x, y1: y, x2: x + tagWidth, y2: y + tagHeight }, taken);
    if (area < bestArea) [best, bestArea] = [y, area];
  }
  return best;
}

/** The SVG of `boxes` over a photo `width` × `height` pixels. */
export function boxOverlay(boxes: readonly PictureBox[], width: number, height: number): string {
  const unit = width / SHOWN_WIDTH; // photo pixels per shown pixel at the widest
  const stroke = 2 * unit;
  const font = TAG_TEXT_PX * unit;
  const pad = 3 * unit;
  const tagHeight = font + 2 * pad;
  const frames: string[] = [];
  const tags: string[] = []; // drawn after every frame: no box's stroke crosses a tag's text
  const taken: Rect[] = [...boxes]; // the boxes' content, and the tags placed so far
  for (const b of boxes) {
    const rgb = classColor(b.label + 1);
    const col = `rgb(${rgb.join(',')})`;
    const text = `${b.name}${b.score < 1 ? ` ${b.score.toFixed(2)}` : ''}`;
    // A sans-serif glyph is about 0.6 em wide on average: enough to size the tag without measuring text.
    const tagWidth = Math.min(width, text.length * font * 0.6 + 2 * pad);
    const tagX = Math.max(0, Math.min(b.x1, width - tagWidth));
    const tagY = tagTop(b, tagX, tagWidth, tagHeight, height, taken);
    taken.push({ x1: tagX, y1: tagY, x2: tagX + tagWidth, y2: tagY + tagHeight });
    frames.push(
      `<rect x="${b.x1}" y="${b.y1}" width="${b.x2 - b.x1}" height="${b.y2 - b.y1}" fill="none" stroke="${col}" stroke-width="${stroke}"/>`,
    );
    tags.push(
      `<rect x="${tagX}" y="${tagY}" width="${tagWidth}" height="${tagHeight}" fill="${col}"/>`,
      `<text x="${tagX + pad}" y="${tagY + pad + font * 0.85}" font-size="${font}" font-family="sans-serif" fill="${textOn(rgb)}">${e(text)}</text>`,
    );
  }
  return frames.join('') + tags.join('');
}
