/**
 * Draws a text scene plan (core/samples/textScenes.ts) on a canvas and encodes it as a PNG file, the
 * form every other calibration image has in the page. Lossless, so the tensors the workers make are
 * those of the drawn pixels; the file's date is fixed, so drawing the same scene again gives a file
 * the calibration data recognises as already there.
 */
import type { Rgb, TextScene } from '../../core/samples/textScenes.ts';

const css = ([r, g, b]: Rgb, alpha = 1) => `rgba(${r}, ${g}, ${b}, ${alpha})`;

/** The scene as a PNG File named `name`. */
export async function renderTextScene(scene: TextScene, name: string): Promise<File> {
  const { width, height } = scene;
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('This browser cannot draw on a canvas here, so the sample images cannot be made');

  const { angle, stops } = scene.background;
  const dx = (Math.cos(angle) * width) / 2;
  const dy = (Math.sin(angle) * height) / 2;
  const gradient = ctx.createLinearGradient(width / 2 - dx, height / 2 - dy, width / 2 + dx, height / 2 + dy);
  for (const stop of stops) gradient.addColorStop(stop.at, css(stop.color));
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, width, height);

  for (const s of scene.shapes) {
    ctx.fillStyle = css(s.color, s.alpha);
    ctx.beginPath();
    if (s.kind === 'rect') ctx.rect(s.x, s.y, s.w, s.h);
    else ctx.ellipse(s.x + s.w / 2, s.y + s.h / 2, s.w / 2, s.h / 2, 0, 0, 2 * Math.PI);
    ctx.fill();
  }

  ctx.textBaseline = 'alphabetic';
  for (const line of scene.lines) {
    let size = line.size;
    const font = () => `${line.weight} ${size}px ${line.family}`;
    ctx.font = font();
    // Fonts differ between machines: shrink a line that would run off the right edge.
    const room = width - line.x - 4;
    const measured = ctx.measureText(line.text).width;
    if (measured > room) {
      size = Math.max(8, Math.floor((size * room) / measured));
      ctx.font = font();
    }
    ctx.save();
    ctx.translate(line.x, line.y);
    ctx.rotate(line.angle);
    ctx.fillStyle = css(line.color);
    ctx.fillText(line.text, 0, 0);
    ctx.restore();
  }
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  return new File([blob], name, { type: 'image/png', lastModified: 0 });
}
