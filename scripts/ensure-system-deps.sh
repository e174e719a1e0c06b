#!/usr/bin/env bash
# Installs the system packages the tests use, where they are missing: Debian's Chromium (Playwright's
# own browser download cannot be reached from these machines), python3-onnx (onnx.checker) and
# libonnx-testdata (ONNX's backend test corpus, which tests/onnx-corpus-*.test.ts run through the studio).
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
/usr/bin/python3 -c 'import onnx' 2>/dev/null || missing+=(python3-onnx)
[ -d /usr/share/libonnx-testdata/data/node ] || missing+=(libonnx-testdata)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing system packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "Need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
