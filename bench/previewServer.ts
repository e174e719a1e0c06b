/**
 * The studio's built page served by `vite preview`, for the suites that measure it in Chromium: build into a
 * folder of the suite's own, serve it on the suite's own port (`--strictPort`, so a clash fails loudly instead
 * of measuring another suite's build), wait until it answers, and stop it afterwards. It must not measure
 * anything itself; the cases do, in their own processes.
 */
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** One port per Chromium suite, kept in one table so that two suites can never serve on the same one. */
export const PREVIEW_PORTS = {
  calibration: 4393,
  graph: 4394,
  /** The studio's first draw beside the anchor, suite graph-first-draw. */
  'graph-first-draw': 4391,
  /** The anchor (Netron) beside the studio in suite graph-first-draw. */
  'graph-anchor': 4396,
  'recover-browser': 4395,
  evaluation: 4397,
  // and 4399 for the Vite dev server that draws the held-out scenes for the judge
  sample: 4398,
  /** A model over 2 GiB in the page, suite large-model-page. */
  'large-model-page': 4392,
  /** MinMax against Entropy in the page's workers, suite calibration-speed. */
  'calibration-speed': 4389,
  /** Two models side by side, suite compare. */
  compare: 4388,
  /** The Vite dev server that draws the sample's scenes, suite sample-settings. */
  'sample-settings': 4385,
  /** The sample with and without WebGPU's software adapter, suite webgpu-browser. */
  'webgpu-browser': 4386,
} as const;

export interface PreviewOptions {
  /** The suite's port, from PREVIEW_PORTS. */
  port: number;
  /** The build folder under the repository root (ignored by git as dist-*). */
  outDir: string;
  /** How long to wait for the server to answer, ms. */
  readyTimeoutMs?: number;
}

/** Builds the page, serves it and calls `fn` with its URL; the server is stopped however `fn` ends. */
export async function withPreviewServer<T>(
  { port, outDir, readyTimeoutMs = 20_000 }: PreviewOptions,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  execFileSync('npx', ['vite', 'build', '--outDir', outDir, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  const server = spawn('npx', ['vite', 'preview', '--port', String(port), '--strictPort', '--outDir', outDir], {
    cwd: root,
    stdio: 'ignore',
    detached: true,
  });
  const url = `http://localhost:${port}/`;
  try {
    await waitUntilServed(url, server, readyTimeoutMs);
    return await fn(url);
  } finally {
    try {
      process.kill(-server.pid!); // the whole group: npx and the vite process under it
    } catch {
      // already gone (it failed to start)
    }
  }
}

async function waitUntilServed(url: string, server: ReturnType<typeof spawn>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null)
      throw new Error(`vite preview for ${url} exited with code ${server.exitCode} (port taken?)`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`vite preview did not answer on ${url} within ${timeoutMs / 1000} s`);
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Serves a folder of static files (an anchor application) on `port` while `fn` runs. */
export async function withStaticServer<T>(folder: string, port: number, fn: (url: string) => Promise<T>): Promise<T> {
  const server = http.createServer((req, res) => {
    let file = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (file.endsWith('/')) file += 'index.html';
    const full = path.join(folder, path.normalize(file));
    if (!full.startsWith(folder)) return void res.writeHead(403).end();
    fs.readFile(full, (e, data) => {
      if (e) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(full)] ?? 'application/octet-stream' }).end(data);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, resolve));
  try {
    return await fn(`http://localhost:${port}/`);
  } finally {
    server.close();
  }
}
