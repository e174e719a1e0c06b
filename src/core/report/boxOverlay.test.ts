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
      const svg = boxOverlay([box({})], width);
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

  it('puts the tag inside a box that touches the top edge, keeps it within the photo, and escapes the class name', () => {
    const svg = boxOverlay([box({ x1: 630, y1: 0, x2: 640, y2: 50, name: '<dog & "cat">', score: 1 })], 640);
    const [, tag] = elements(svg, 'rect');
    expect(Number(tag.y)).toBe(0);
    expect(Number(tag.x) + Number(tag.width)).toBeLessThanOrEqual(640);
    expect(Number(tag.x)).toBeGreaterThanOrEqual(0);
    expect(svg).toContain('>&lt;dog &amp; &quot;cat&quot;&gt;</text>');
  });

  it('writes dark text on a light class colour and light text on a dark one', () => {
    const fills = new Set(
      Array.from({ length: 20 }, (_, label) => elements(boxOverlay([box({ label })], 640), 'text')[0].fill),
    );
    expect([...fills].sort()).toEqual(['#000', '#fff']);
  });
});
