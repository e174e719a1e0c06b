#!/usr/bin/env bash
# `npm test`: every test. Type check, lint (ESLint), format check (Prettier), unit tests (vitest, Node), a production build, then the
# end-to-end specs (Playwright in Debian's Chromium). Prints one closing line with the counts.
set -uo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip
mkdir -p .test-reports

bash scripts/ensure-system-deps.sh || exit 1

status=0
echo "== type check"
npx tsc --noEmit -p . || status=1

echo "== lint"
npx eslint . || status=1

echo "== format"
npx prettier --check . || status=1

echo "== unit tests"
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-reports/vitest.json || status=1

echo "== build"
if npx vite build --logLevel warn; then
  echo "== end-to-end tests"
  PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright.json npx playwright test --reporter=list,json || status=1
else
  status=1
fi

node scripts/test-summary.mjs .test-reports/vitest.json .test-reports/playwright.json
exit $status
