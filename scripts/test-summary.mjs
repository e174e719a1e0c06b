// Sums the vitest and Playwright JSON reports into one closing line: "tests: N passed, N failed, N skipped".
import fs from 'node:fs';

let passed = 0,
  failed = 0,
  skipped = 0;
const [vitestFile, playwrightFile] = process.argv.slice(2);
if (fs.existsSync(vitestFile)) {
  const r = JSON.parse(fs.readFileSync(vitestFile, 'utf8'));
  passed += r.numPassedTests ?? 0;
  // A suite that fails to load has no failed tests of its own: count it once.
  failed += r.numFailedTests || r.numFailedTestSuites || 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
} else failed += 1;
if (fs.existsSync(playwrightFile)) {
  const s = JSON.parse(fs.readFileSync(playwrightFile, 'utf8')).stats ?? {};
  passed += s.expected ?? 0;
  failed += (s.unexpected ?? 0) + (s.flaky ?? 0);
  skipped += s.skipped ?? 0;
} else failed += 1;
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
