/**
 * The regression guard's comparison (bench/guard.ts): a preset whose held-out figure drops more than 0.002 from the
 * last recorded one, at either onnxruntime level, is flagged; a rise, a drop within the tolerance and a new row are not.
 */
import { describe, expect, it } from 'vitest';
import { compareGuardRows, GUARD_TOLERANCE, guardText } from '../bench/guard.ts';
import { guardCaseWanted } from '../bench/suites/presetGuard.ts';

const row = (preset: string, all: number, basic: number, variant = 'per tensor') => ({
  model: 'ppocr-det',
  preset,
  variant,
  all,
  basic,
});

describe('npm run bench -- guard', () => {
  it('flags a drop over 0.002 at either level, and nothing else', () => {
    const recorded = [row('A8W8', 0.9392, 0.9195), row('XINT8', 0.95, 0.95), row('U8S8', 0.9, 0.9)];
    const measured = [
      row('A8W8', 0.9057, 0.9195),
      row('XINT8', 0.9485, 0.9512),
      row('U8S8', 0.9, 0.8975),
      row('S8S8', 0.8, 0.8),
    ];
    const lines = compareGuardRows(recorded, measured);
    expect(GUARD_TOLERANCE).toBe(0.002);
    expect(lines.filter((l) => l.dropped).map((l) => `${l.key} ${l.level}`)).toEqual([
      'ppocr-det A8W8 per tensor all',
      'ppocr-det U8S8 per tensor basic',
    ]);
    expect(lines.find((l) => l.key === 'ppocr-det S8S8 per tensor')).toMatchObject({
      before: null,
      change: null,
      dropped: false,
    });
    const text = guardText(lines);
    expect(text).toMatch(/^DROP {2}ppocr-det A8W8 per tensor\s+all\s+0\.93920 → 0\.90570 {2}\(-0\.03350\)$/m);
    expect(text).toMatch(/2 figures dropped more than 0\.002 from the last recorded\n$/);
    expect(guardText(compareGuardRows(recorded, recorded))).toMatch(/no preset dropped more than 0\.002\n$/);
  });

  it('keeps per tensor and per channel apart', () => {
    const lines = compareGuardRows([row('A8W8', 0.9, 0.9, 'per channel')], [row('A8W8', 0.8, 0.8)]);
    expect(lines.every((l) => l.before === null && !l.dropped)).toBe(true);
  });
});

describe('QS_GUARD_ONLY', () => {
  it("takes comma-separated substrings of a case's arguments, and '$' for a whole case", () => {
    const perTensor = ['ppocr-det', 'A8W8'];
    const perChannel = ['ppocr-det', 'A8W8', 'perChannel'];
    expect(guardCaseWanted(perChannel, 'ppocr-det A8W8')).toBe(true);
    expect(guardCaseWanted(perChannel, 'ppocr-det A8W8$')).toBe(false);
    expect(guardCaseWanted(perTensor, 'ppocr-det A8W8$')).toBe(true);
    expect(guardCaseWanted(['yolox-nano.onnx', 'XINT8'], 'ultraface,yolox-nano.onnx X')).toBe(true);
    expect(guardCaseWanted(['yolox-nano.onnx', 'XINT8'], 'ultraface,yunet')).toBe(false);
  });
});
