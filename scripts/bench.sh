#!/usr/bin/env bash
# `npm run bench`: the benchmark suites (see bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip
exec node --import tsx bench/run.ts "$@"
