/**
 * Calibration progress on stderr: a one-line bar redrawn in place on a terminal; elsewhere (scripts, CI logs, a
 * pipe) one plain line whenever a sample is done, at most every 5 s, and the last one always, so a long run over
 * large inputs is never silent. Rates below one a second are written as seconds per sample, not "0.0/s".
 */
import type { CalibrationProgress } from './calibration/calibrateOnImages.ts';

/** "2.5 images/s", or "4.2 s per image" for slow runs. */
export function rateText(perSecond: number, unit: string): string {
  if (!(perSecond > 0) || !Number.isFinite(perSecond)) return `— ${unit}/s`;
  return perSecond >= 1
    ? `${perSecond.toFixed(1)} ${unit}/s`
    : `${(1 / perSecond).toFixed(1)} s per ${unit.replace(/s$/, '')}`;
}

/** Seconds between plain progress lines when stderr is not a terminal. */
const PLAIN_EVERY_MS = 5000;

export function terminalProgress(
  label: string,
  unit = 'images',
): { update(p: CalibrationProgress): void; done(): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  let lastDone = -1;
  return {
    update(p) {
      const now = Date.now();
      const eta = p.done < p.total && p.etaSeconds !== null ? `, ${Math.ceil(p.etaSeconds)} s left` : '';
      const pass = p.passes > 1 ? ` (pass ${p.pass} of ${p.passes})` : '';
      if (!tty) {
        if (p.done === lastDone || (now - last < PLAIN_EVERY_MS && p.done < p.total)) return;
        last = now;
        lastDone = p.done;
        process.stderr.write(
          `${label}: ${p.done}/${p.total} ${unit}${pass}, ${rateText(p.imagesPerSecond, unit)}${eta}\n`,
        );
        return;
      }
      if (now - last < 100 && p.done < p.total) return;
      last = now;
      const width = 30;
      const filled = Math.round((p.done / p.total) * width);
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
      process.stderr.write(
        `\r${label} ${bar} ${p.done}/${p.total} ${unit}${pass}, ${rateText(p.imagesPerSecond, unit)}${eta}   `,
      );
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}
