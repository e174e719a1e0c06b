// Unit tests: pure core and CLI, in Node. End-to-end specs in e2e/ run under Playwright instead.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'workers/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each test file's scratch files in a folder of its own, removed after it (tests/helpers/scratchTmp.ts).
    setupFiles: ['tests/helpers/scratchTmp.ts'],
  },
});
