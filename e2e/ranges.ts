/** Ranges as the page downloads them ("Download ranges JSON"), and how far one set is from another. */
import fs from 'node:fs';
import type { Page } from '@playwright/test';

export type Ranges = Record<string, [number, number]>;

/** The page's ranges, from its "Download ranges JSON" button (no test hook in the page). */
export async function downloadedRanges(
  page: Page,
  saved: string,
): Promise<{ method: string; samples: number; ranges: Ranges }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-ranges').click()]);
  await download.saveAs(saved);
  return JSON.parse(fs.readFileSync(saved, 'utf8'));
}

/** Tensors whose `test` range differs from the `reference` one by more than `relative` of the tensor's scale, and the largest difference. */
export function rangesOff(test: Ranges, reference: Ranges, relative: number): { off: string[]; largest: number } {
  const off: string[] = [];
  let largest = 0;
  for (const [tensor, [min, max]] of Object.entries(reference)) {
    const [tmin, tmax] = test[tensor];
    const scale = Math.max(Math.abs(min), Math.abs(max), 1e-6);
    const d = Math.max(Math.abs(tmin - min), Math.abs(tmax - max)) / scale;
    largest = Math.max(largest, d);
    if (d > relative) off.push(`${tensor}: [${tmin}, ${tmax}] vs reference [${min}, ${max}]`);
  }
  return { off, largest };
}
