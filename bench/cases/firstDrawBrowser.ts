/**
 * The first model opened on a page, to its graph on screen, for the studio and for the anchor (Netron 9.2.1's browser build, served
 * from the anchors' tarball beside the fixtures; opened through its hidden file input, drawn when its body gets class `default`) in the same harness: the page opened and left idle for 3 s (a user
 * reaching for a file), then the model given to the page's file input; the clock runs in the page, from the
 * input's `change` event to the first animation frame in which the graph is drawn (see `drawnTest`), so
 * Playwright's own file transfer is not counted on either side.
 * Prints the median of `repeats` fresh pages, and for the studio the page's phase marks of the median run.
 * Usage: firstDrawBrowser.ts <studio|netron> <url> <model path> <label> [repeats]
 */
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from './browser.ts';

const [app, url, modelPath, label, repeatArg = '3'] = process.argv.slice(2);
/**
 * "Drawn" means the same on both sides: the graph's boxes are on screen. The studio marks its graph
 * `data-graph-drawn` once its boxes are painted into the visible canvas. Netron shows its graph (the `.target`
 * element, hidden while the body has `welcome`) with the body's class `default`, and its boxes are SVG `g.node`
 * elements: both are required, since `default` alone also follows a graph that came out empty (as Netron drew a
 * model whose graph was written as several fields) and the large-graph notice takes `default` away meanwhile.
 */
const drawnTest =
  app === 'netron'
    ? `document.body.classList.contains('default') && !document.body.classList.contains('welcome') && !!document.querySelector('#canvas g.node')`
    : `!!document.querySelector('[data-graph-drawn="true"]')`;
const inputSelector = app === 'netron' ? '#open-file-dialog' : '[data-testid="file-input"]';

/** Page source (tsx would wrap a named function in a helper the page lacks): clocks the change → drawn interval. */
const PROBE = `(() => {
  window.__firstDraw = {};
  if (window !== window.top) return;
  document.addEventListener('change', () => {
    window.__firstDraw.start = performance.now();
    (function poll() {
      if (${drawnTest}) window.__firstDraw.drawn = performance.now();
      else requestAnimationFrame(poll);
    })();
  }, { capture: true, once: true });
})()`;

interface Run {
  seconds: number;
  marks: Record<string, number>;
}

async function once(): Promise<Run> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Netron asks for cookie consent on a first visit and opens nothing until it is given: give it, as a returning user.
    if (app === 'netron') await page.context().addCookies([{ name: 'consent', value: String(Date.now()), url }]);
    await page.addInitScript({ content: PROBE }); // not page.evaluate: Netron turns window.eval off
    await page.goto(url);
    await page.waitForTimeout(3000);
    await page.locator(inputSelector).setInputFiles({
      name: path.basename(modelPath),
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(modelPath),
    });
    // Read through the DevTools protocol: Playwright's evaluate goes through window.eval, which Netron turns off.
    const cdp = await page.context().newCDPSession(page);
    const read = async (expression: string): Promise<unknown> =>
      (await cdp.send('Runtime.evaluate', { expression, returnByValue: true })).result.value;
    const deadline = Date.now() + 300_000;
    while ((await read('window.__firstDraw.drawn')) === undefined) {
      if (Date.now() > deadline) throw new Error(`${app} did not draw ${label} within 300 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return (await read(`(() => {
      const t = window.__firstDraw;
      const marks = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.startTime >= t.start).map((m) => [m.name, +((m.startTime - t.start) / 1000).toFixed(3)]));
      return { seconds: (t.drawn - t.start) / 1000, marks };
    })()`)) as Run;
  } finally {
    await browser.close();
  }
}

const runs: Run[] = [];
for (let r = 0; r < Number(repeatArg); r++) runs.push(await once());
runs.sort((a, b) => a.seconds - b.seconds);
const median = runs[Math.floor(runs.length / 2)];
console.log(
  JSON.stringify({
    app,
    model: label,
    seconds: +median.seconds.toFixed(3),
    runs: runs.map((r) => +r.seconds.toFixed(3)),
    marks: median.marks,
  }),
);
