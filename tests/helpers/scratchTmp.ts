/**
 * Vitest setup: each test file's scratch files (the models, ranges and reports its commands write under
 * `os.tmpdir()`, its child processes' included) go to a folder of its own, removed when the file's tests end, so
 * a run leaves nothing in the system's temporary folder (before, each full run left about 250 MB there).
 * QS_KEEP_TMP=1 keeps the folders to look at after a failure; their path is printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const outer = process.env.TMPDIR;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-test-'));
process.env.TMPDIR = dir;

afterAll(() => {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  if (process.env.QS_KEEP_TMP) console.log(`scratch files kept in ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
});
