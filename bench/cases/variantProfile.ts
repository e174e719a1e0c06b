/**
 * An opt-in CPU profile of each fine-tuning variant a bench case runs (finetuneRecognizer.ts, finetuneDetector.ts):
 * with QS_VARIANT_PROFILE=<folder>, the main thread is sampled from the variant's start to its end only (node:inspector,
 * not `node --cpu-prof`, which would also sample the judge and the earlier variants), written as
 * <folder>/<index>-<variant>.cpuprofile; `npx tsx bench/cases/profileSummary.ts <file>` sums it by function and by
 * module. Without the variable the variant just runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

let count = 0;

/** Runs `run`, sampled into QS_VARIANT_PROFILE/<n>-<label>.cpuprofile when that variable names a folder. */
export async function profiledVariant<T>(label: string, run: () => Promise<T>): Promise<T> {
  const folder = process.env.QS_VARIANT_PROFILE;
  if (!folder) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `${++count}-${label.replace(/[^\w=.+-]/g, '_')}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
