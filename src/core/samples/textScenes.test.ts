import { describe, expect, it } from 'vitest';
import { luminance, sceneWords, textScenes } from './textScenes.ts';

describe('text scenes for the sample', () => {
  it('are the same for the same set and count, in every run', () => {
    expect(textScenes('calibration', 4)).toEqual(textScenes('calibration', 4));
    // A longer list starts with the shorter one: counts can change without changing the first scenes.
    expect(textScenes('heldOut', 6).slice(0, 3)).toEqual(textScenes('heldOut', 3));
  });

  it('keep calibration and held-out apart: disjoint words, different layouts', () => {
    const calibration = new Set(sceneWords('calibration'));
    expect(sceneWords('heldOut').filter((w) => calibration.has(w))).toEqual([]);
    const text = (set: 'calibration' | 'heldOut') => textScenes(set, 12).flatMap((s) => s.lines.map((l) => l.text));
    const held = text('heldOut');
    for (const line of text('calibration')) expect(held).not.toContain(line);
    for (const line of held) for (const word of sceneWords('calibration')) expect(line.split(' ')).not.toContain(word);
  });

  it('vary from scene to scene', () => {
    const scenes = textScenes('calibration', 8);
    expect(new Set(scenes.map((s) => s.lines.map((l) => l.text).join('|'))).size).toBe(8);
    expect(new Set(scenes.flatMap((s) => s.lines.map((l) => l.family))).size).toBe(3);
    expect(new Set(scenes.map((s) => luminance(s.background.stops[0].color) > 0.5)).size).toBe(2); // light and dark
  });

  it('place every line inside the scene, with text contrasting with its background', () => {
    for (const s of [
      ...textScenes('calibration', 16, { width: 640, height: 640 }),
      ...textScenes('heldOut', 8, { width: 320, height: 480 }),
    ]) {
      expect(s.lines.length).toBeGreaterThanOrEqual(3);
      const background =
        s.background.stops.reduce((sum, stop) => sum + luminance(stop.color), 0) / s.background.stops.length;
      for (const line of s.lines) {
        expect(line.x).toBeGreaterThanOrEqual(0);
        expect(line.x).toBeLessThan(s.width);
        expect(line.y - line.size).toBeGreaterThanOrEqual(-line.size * 0.5);
        expect(line.y).toBeLessThanOrEqual(s.height);
        expect(line.size).toBeGreaterThanOrEqual(8);
        expect(Math.abs(luminance(line.color) - background)).toBeGreaterThan(0.35);
      }
    }
  });
});
