/** A one-line progress bar on stderr when it is a terminal; silent otherwise (scripts and CI logs stay clean). */
import type { CalibrationProgress } from './calibration/calibrateOnImages.ts';

export function terminalProgress(label: string): { update(p: CalibrationProgress): void; done(): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    update(p) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && p.done < p.total) return;
      last = now;
      const width = 30;
      const filled = Math.round((p.done / p.total) * width);
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
      const eta = p.done < p.total && p.etaSeconds !== null ? `, ${Math.ceil(p.etaSeconds)} s left` : '';
      process.stderr.write(`\r${label} ${bar} ${p.done}/${p.total} images, ${p.imagesPerSecond.toFixed(1)}/s${eta}   `);
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}
