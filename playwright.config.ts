// End-to-end specs: whole user flows in a real Chromium against the built page (`vite build` first;
// `npm run test:e2e` does both). Fixture models are read from ../shared/fixtures, never copied here.
import { defineConfig } from '@playwright/test';

// A port of its own (not vite's preview default), so a preview server left running by a developer is
// neither collided with nor silently reused with a stale build.
const PORT = Number(process.env.QS_E2E_PORT ?? 4317);
// The built page to serve (`vite build --outDir` the same folder); lets parallel runs keep apart.
const DIST = process.env.QS_DIST ?? 'dist';

export default defineConfig({
  testDir: 'e2e',
  workers: 1,
  reporter: 'list',
  timeout: 60_000,
  expect: { timeout: 20_000 },
  forbidOnly: !!process.env.CI,
  use: {
    baseURL: `http://localhost:${PORT}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort --outDir ${DIST}`,
    url: `http://localhost:${PORT}`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
