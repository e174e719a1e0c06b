/**
 * Calibration time per method in the studio itself, for suite "calibration-speed": Debian's Chromium opens the built
 * page (served on the URL given), UltraFace and COCO images 1–16 are dropped, preset A8W8, and the page calibrates with
 * each method in turn, alternating, `repeats` times after one warm-up run of each (the page's Web Workers and
 * onnxruntime-web's WASM backend; the same core collectors as the command line). Each run is timed from the click to
 * the result, and charged the CPU time of every Chromium process (user + system, from /proc: the browser, its
 * renderer and its workers' threads), which follows the work where the wall time follows the machine's load; each
 * run also says how that CPU time splits between the workers, the page's main thread and the rest (`threads`).
 * Usage: calibrationBrowserSpeed.ts <url> <repeats> <method> [method...]
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Page } from '@playwright/test';
import { cocoNames, openForCalibration, withStudioPage } from './browser.ts';

const [url, repeatsArg, ...methods] = process.argv.slice(2);
const repeats = Number(repeatsArg);
const model = 'ultraface-rfb-320.onnx';
const images = cocoNames().slice(0, 16);
const TICKS = 100; // USER_HZ on Linux

/**
 * CPU seconds (user + system) of every thread of every live descendant of this process (the browser Playwright
 * launched), grouped: `workers` the renderer's Web Worker threads (the calibration workers: onnxruntime-web, the
 * folds, the merge and the threshold search), `pageMain` the renderer's main thread (the page, its React updates),
 * `renderer` the renderer's other threads (compositor, V8's garbage-collection and compile helpers), `browser` the
 * browser and GPU processes.
 */
function browserCpuByThread(): Map<string, number> {
  const parent = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command (which may hold spaces) in parentheses: state ppid … utime(14) stime(15).
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while listed
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  const threads = new Map<string, number>();
  for (const pid of mine) {
    if (pid === process.pid) continue;
    try {
      const renderer = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const group = !renderer
          ? 'browser'
          : name.startsWith('DedicatedWorker')
            ? 'workers'
            : Number(tid) === pid
              ? 'pageMain'
              : 'renderer';
        threads.set(`${group} ${pid}/${tid}`, (Number(rest[11]) + Number(rest[12])) / TICKS);
      }
    } catch {
      // the process ended while listed
    }
  }
  return threads;
}

/** CPU seconds per group (browserCpuByThread) spent between two readings, and their sum. */
function cpuBetween(
  before: Map<string, number>,
  after: Map<string, number>,
): { cpuSeconds: number; threads: Record<string, number> } {
  const threads: Record<string, number> = { workers: 0, pageMain: 0, renderer: 0, browser: 0 };
  let cpuSeconds = 0;
  for (const [key, t] of after) {
    const spent = t - (before.get(key) ?? 0);
    threads[key.split(' ')[0]] += spent;
    cpuSeconds += spent;
  }
  for (const k of Object.keys(threads)) threads[k] = Number(threads[k].toFixed(2));
  return { cpuSeconds, threads };
}

async function calibrateWith(
  page: Page,
  method: string,
): Promise<{ seconds: number; cpuSeconds: number; threads: Record<string, number>; pageSeconds: number }> {
  // The preset's own method is the empty choice ("The preset's (…)"), not an option of its own.
  const select = page.getByTestId('calibration-method');
  await select.selectOption((await select.locator(`option[value="${method}"]`).count()) > 0 ? method : '');
  const card = page.getByTestId('calibrate-card');
  const cpu0 = browserCpuByThread();
  const t0 = performance.now();
  await page.getByTestId('calibrate-button').click();
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="calibrate-card"]')?.getAttribute('data-calibration-status') !== 'running',
    undefined,
    { timeout: 600_000, polling: 50 },
  );
  const seconds = (performance.now() - t0) / 1000;
  const { cpuSeconds, threads } = cpuBetween(cpu0, browserCpuByThread());
  if ((await card.getAttribute('data-calibration-status')) !== 'done')
    throw new Error(`calibration with ${method} did not finish: ${await card.textContent()}`);
  const text = (await page.getByTestId('calibration-result').textContent()) ?? '';
  if (!text.includes(method)) throw new Error(`the result does not name ${method}: ${text}`);
  const pageSeconds = Number(/in ([\d.]+) s/.exec(text)?.[1] ?? NaN);
  return { seconds, cpuSeconds, threads, pageSeconds };
}

await withStudioPage(url, async (page) => {
  await openForCalibration(page, model, images, 'ultraface');
  await page.getByTestId('quant-preset').selectOption('A8W8');
  for (const m of methods) await calibrateWith(page, m); // warm-up: sessions, WASM compilation, JIT
  const loads: number[] = [os.loadavg()[0]];
  const runs: {
    repeat: number;
    method: string;
    seconds: number;
    cpuSeconds: number;
    threads: Record<string, number>;
    pageSeconds: number;
  }[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const order = [...methods.slice(repeat % methods.length), ...methods.slice(0, repeat % methods.length)];
    for (const method of order) runs.push({ repeat, method, ...(await calibrateWith(page, method)) });
    loads.push(os.loadavg()[0]);
  }
  for (const r of runs) console.error(JSON.stringify(r));
  console.log(
    JSON.stringify({
      model,
      runtime: 'Chromium, onnxruntime-web WASM, page workers',
      images: images.length,
      runs,
      loadMin: Math.min(...loads),
      loadMax: Math.max(...loads),
    }),
  );
});
