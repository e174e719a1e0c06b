import { describe, expect, it } from 'vitest';
import { boxOverlay } from './boxOverlay.ts';
import type { PictureBox } from '../task/taskReport.ts';

const box = (p: Partial<PictureBox>): PictureBox => ({
  x1: 100,
  y1: 200,
  x2: 300,
  y2: 400,
  score: 0.87,
  label: 0,
  name: 'face',
  ...p,
});

/** The attributes of each element of one kind, in order. */
function elements(svg: string, tag: string): Record<string, string>[] {
  return [...svg.matchAll(new RegExp(`<${tag} ([^>]*?)/?>`, 'g'))].map((m) =>
    Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
  );
}

describe('boxes over a task picture', () => {
  it('tags each box with a filled label of its colour whose text reads at 14 px where the photo is shown 480 px wide', () => {
    for (const width of [320, 640, 1920]) {
      const svg = boxOverlay([box({})], width, width);
      const [frame, tag] = elements(svg, 'rect');
      const [text] = elements(svg, 'text');
      expect(frame.fill).toBe('none');
      expect(tag.fill).toBe(frame.stroke); // the tag is filled with the box's colour, so the text reads on any photo
      expect((Number(text['font-size']) * 480) / width).toBeCloseTo(14, 6);
      // The tag sits on the box's top edge, above it, and holds its text.
      expect(Number(tag.y) + Number(tag.height)).toBeCloseTo(200, 6);
      expect(Number(text.y)).toBeGreaterThan(Number(tag.y));
      expect(Number(text.y)).toBeLessThan(Number(tag.y) + Number(tag.height));
      expect(svg).toContain('>face 0.87</text>');
    }
  });

  it('puts the tag below a box that touches the top edge, outside it, keeps it within the photo, and escapes the class name', () => {
    const svg = boxOverlay([box({ x1: 630, y1: 0, x2: 640, y2: 50, name: '<dog & "cat">', score: 1 })], 640, 480);
    const [, tag] = elements(svg, 'rect');
    expect(Number(tag.y)).toBe(50); // on the box's bottom edge: the boxed content stays uncovered
    expect(Number(tag.x) + Number(tag.width)).toBeLessThanOrEqual(640);
    expect(Number(tag.x)).toBeGreaterThanOrEqual(0);
    expect(svg).toContain('>&lt;dog &amp; &quot;cat&quot;&gt;</text>');
  });

  /** The tags' rectangles of an overlay, and how much of the boxes they lie over (photo pixels squared). */
  function tagsOver(boxes: PictureBox[], width: number, height: number) {
    const rects = elements(boxOverlay(boxes, width, height), 'rect').map((r) => ({
      x1: Number(r.x),
      y1: Number(r.y),
      x2: Number(r.x) + Number(r.width),
      y2: Number(r.y) + Number(r.height),
    }));
    const tags = rects.slice(boxes.length); // the frames first, then the tags
    const covered = tags.map((t) =>
      boxes.reduce(
        (sum, b) =>
          sum +
          Math.max(0, Math.min(t.x2, b.x2) - Math.max(t.x1, b.x1)) *
            Math.max(0, Math.min(t.y2, b.y2) - Math.max(t.y1, b.y1)),
        0,
      ),
    );
    return { tags, covered };
  }

  it('text lines stacked close (a text detector’s boxes): no tag lies over a line, its own or the one above', () => {
    // A 320 px scene (the sample's): three lines 24 px tall, 16 px apart, the first 6 px from the top; tags are 13.3 px.
    const lines = [6, 46, 86].map((y1, k) =>
      box({ x1: 20, y1, x2: 260, y2: y1 + 24, name: 'text', score: 0.9 - k / 10 }),
    );
    const { tags, covered } = tagsOver(lines, 320, 320);
    expect(covered).toEqual([0, 0, 0]);
    expect(tags[0].y1).toBeCloseTo(30, 6); // the first line: no room above, below it
    expect(tags.every((t) => t.y1 >= 0 && t.y2 <= 320)).toBe(true);
    // Nor does a tag lie over another (the first line's tag below it and the second's above it would meet).
    for (let a = 0; a < tags.length; a++)
      for (let b = a + 1; b < tags.length; b++) expect(tags[a].y2 <= tags[b].y1 || tags[b].y2 <= tags[a].y1).toBe(true);
  });

  it('a box as tall as the photo: the tag stays within the photo, at its top', () => {
    const { tags } = tagsOver([box({ x1: 0, y1: 0, x2: 640, y2: 480, name: 'page', score: 1 })], 640, 480);
    expect(tags[0].y1).toBe(0);
    expect(tags[0].y2).toBeLessThanOrEqual(480);
  });

  it('writes dark text on a light class colour and light text on a dark one', () => {
    const fills = new Set(
      Array.from({ length: 20 }, (_, label) => elements(boxOverlay([box({ label })], 640, 480), 'text')[0].fill),
    );
    expect([...fills].sort()).toEqual(['#000', '#fff']);
  });
});
