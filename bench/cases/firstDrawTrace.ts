/**
 * Where the first draw's time goes, from a Chromium performance trace: the studio's page opened fresh and left
 * idle for 3 s, a model given to its file input (as cases/firstDrawBrowser.ts does), and the page's main
 * thread read from the trace between the input's `change` and the frame in which the graph is drawn. Prints
 * the main thread's tasks in that window in order (start and length in ms from `change`, the task's longest
 * inner events: script, style, layout, paint, …), the total by event kind, and the page's phase marks. A tool
 * for finding what to take out of the path, not a measurement of record (tracing slows the page).
 * Usage: firstDrawTrace.ts <url> <model path> [trace.json to keep]
 */
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from './browser.ts';

const [url, modelPath, keep] = process.argv.slice(2);

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { functionName?: string; url?: string } };
}

const PROBE = `(() => {
  if (window !== window.top) return;
  window.__firstDraw = {};
  document.addEventListener('change', () => {
    performance.mark('trace:change');
    (function poll() {
      if (document.querySelector('[data-graph-drawn="true"]')) { performance.mark('trace:drawn'); window.__firstDraw.drawn = true; }
      else requestAnimationFrame(poll);
    })();
  }, { capture: true, once: true });
})()`;

const browser = await launchChromium();
let events: TraceEvent[];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript({ content: PROBE });
  await page.goto(url);
  await page.waitForTimeout(3000);
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'blink.user_timing', 'v8', 'disabled-by-default-devtools.timeline', 'toplevel'],
  });
  await page.locator('[data-testid="file-input"]').setInputFiles({
    name: path.basename(modelPath),
    mimeType: 'application/octet-stream',
    buffer: fs.readFileSync(modelPath),
  });
  await page.waitForFunction(
    () => (window as unknown as { __firstDraw: { drawn?: boolean } }).__firstDraw.drawn === true,
    null,
    { timeout: 120_000 },
  );
  await page.waitForTimeout(200);
  const buffer = await browser.stopTracing();
  if (keep) fs.writeFileSync(keep, buffer);
  events = (JSON.parse(buffer.toString()) as { traceEvents: TraceEvent[] }).traceEvents;
} finally {
  await browser.close();
}

const mark = (name: string) => events.find((e) => e.cat.includes('blink.user_timing') && e.name === name);
const change = mark('trace:change'),
  drawn = mark('trace:drawn');
if (!change || !drawn) throw new Error('the trace has no change or drawn mark');
const main = events.find(
  (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === change.pid,
)!;
const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined);
const from = change.ts,
  to = drawn.ts;
const ms = (us: number) => +(us / 1000).toFixed(1);
console.log(`change → drawn: ${ms(to - from)} ms (traced)`);

// Top-level tasks overlapping the window, each with its largest inner events.
const tasks = onMain
  .filter((e) => e.name === 'RunTask' && e.ts + e.dur! > from && e.ts < to)
  .sort((a, b) => a.ts - b.ts);
for (const task of tasks) {
  const inner = onMain
    .filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= task.ts + task.dur! && e.name !== 'RunTask')
    .sort((a, b) => b.dur! - a.dur!)
    .slice(0, 4)
    .map((e) => `${e.name}${e.args?.data?.functionName ? `(${e.args.data.functionName})` : ''} ${ms(e.dur!)}`);
  if (task.dur! >= 300) console.log(`  +${ms(task.ts - from)} ${ms(task.dur!)} ms: ${inner.join(', ')}`);
}
const kinds = new Map<string, number>();
for (const e of onMain) {
  if (e.ts < from || e.ts > to || e.name === 'RunTask') continue;
  kinds.set(e.name, (kinds.get(e.name) ?? 0) + e.dur!);
}
console.log('by event (inclusive, nested events counted in each):');
for (const [name, dur] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log(`  ${name}: ${ms(dur)} ms`);
const busy = tasks.reduce((sum, t) => sum + Math.min(t.ts + t.dur!, to) - Math.max(t.ts, from), 0);
console.log(`main thread busy ${ms(busy)} ms of ${ms(to - from)} ms`);
const marks = events.filter(
  (e) => e.cat.includes('blink.user_timing') && e.ts >= from && e.ts <= to && e.ph !== 'b' && e.ph !== 'e',
);
console.log('marks:', marks.map((e) => `${e.name} +${ms(e.ts - from)}`).join(', '));
