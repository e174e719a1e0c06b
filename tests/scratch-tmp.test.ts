/** The test setup (tests/helpers/scratchTmp.ts) gives each test file, and the commands it runs, a scratch folder of its own. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

it("a test file's temporary folder is its own, and its child processes write there too", () => {
  expect(path.basename(os.tmpdir())).toMatch(/^qs-test-/);
  const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(require("os").tmpdir())'], {
    encoding: 'utf8',
  });
  expect(child).toBe(os.tmpdir());
});
