/**
 * The "Recover accuracy" card's two columns as a user sees them, at 1280 and 900 px: each run button stands clear
 * below its column's frame (they sat on the frame's border), and at 1280 px, where the columns are side by side,
 * both buttons stand on one line whatever each column holds. A field's label is flush left above it, as every label on
 * the page (they were centred over narrow fields). Every choice list on the page is the studio's select (some were the
 * browser's bare one, others took the monospace of a text field), and shows its chosen text whole at 1280 and 900 px
 * (the ladder's order and the preprocessing's resize were cut at 900).
 */
import { expect, openWithModel, test } from './support.ts';

test('the recover card: both run buttons below their frames, side by side on one line', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  const card = page.getByTestId('recover-card');
  await card.scrollIntoViewIfNeeded();
  const frames = card.locator('.recover-switches');
  await expect(frames).toHaveCount(2);
  const buttons = [card.getByTestId('recover-button'), card.getByTestId('ladder-button')];
  for (const width of [1280, 900]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [i, button] of buttons.entries()) {
      const frame = (await frames.nth(i).boundingBox())!;
      const box = (await button.boundingBox())!;
      expect(box.y, `${width} px: button ${i + 1} below its frame with a gap`).toBeGreaterThanOrEqual(
        frame.y + frame.height + 8,
      );
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  const [a, b] = await Promise.all(buttons.map(async (button) => (await button.boundingBox())!));
  expect(a.x).toBeLessThan(b.x); // side by side
  expect(Math.abs(a.y - b.y)).toBeLessThan(1);

  const iterations = card.getByTestId('recover-iterations');
  const label = card.locator('label.field', { has: page.getByTestId('recover-iterations') }).locator('.field__label');
  const [field, text] = await Promise.all([iterations.boundingBox(), label.boundingBox()]);
  expect(Math.abs(text!.x - field!.x)).toBeLessThan(1);
  expect(text!.y).toBeLessThan(field!.y);

  const selects = await page.evaluate(() =>
    [...document.querySelectorAll('select')].map((s) => ({
      id: s.getAttribute('data-testid') ?? s.getAttribute('aria-label') ?? s.name,
      styled: s.classList.contains('select'),
      mono: /mono/i.test(getComputedStyle(s).fontFamily),
    })),
  );
  expect(selects.length).toBeGreaterThan(4);
  expect(selects.filter((s) => !s.styled || s.mono)).toEqual([]);

  for (const width of [1280, 900]) {
    await page.setViewportSize({ width, height: 800 });
    const cut = await page.evaluate(() => {
      const context = document.createElement('canvas').getContext('2d')!;
      return [...document.querySelectorAll('select')].flatMap((s) => {
        const box = s.getBoundingClientRect();
        if (!box.width) return [];
        const style = getComputedStyle(s);
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = s.selectedOptions[0]?.text ?? '';
        // The text, the side paddings and the arrow (about 20 px).
        const needs =
          context.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20;
        return needs > box.width + 1 ? [`${s.getAttribute('data-testid')}: "${text}"`] : [];
      });
    });
    expect(cut, `${width} px: selects whose chosen text is cut`).toEqual([]);
  }
});
