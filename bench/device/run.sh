#!/bin/bash
# Runs on the lent GPU machine from <main>/.gpu (bench/device/pack.sh made it), in about 7 minutes: MinMax calibration per
# model on WASM and on onnxruntime-node's WebGPU EP, each with the statistics reduced in the graph and with every tensor
# exposed (WebGPU: packed into one read-back, and each tensor on its own), medians of 3 at 8 images; then the same at 24
# images once, with the page's Auto; lists any browser there. JSON lines under $OUT (r8.jsonl, r24.jsonl).
cd "$(dirname "$0")"; G=$PWD
for f in ../.gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
W=/tmp/w; mkdir -p $W; xz -dc node.xz > $W/node; chmod +x $W/node; tar -xJf nm.tar.xz -C $W; cp bench.mjs $W/; cd $W
nvidia-smi -L; ./node --version
echo "== browsers on this machine"; (ls /usr/bin /usr/local/bin /opt 2>/dev/null | grep -iE "chrom|firefox|playwright"; ls -d /root/.cache/ms-playwright 2>/dev/null; find / -xdev -maxdepth 6 \( -iname "*chrome*" -o -iname "chromium*" -o -iname "headless_shell" \) -type f 2>/dev/null | grep -v -E "\.(py|pyc|js|json|txt|svg|png)$" | head -8; echo "python playwright/pyppeteer/selenium:"; python3 -c "import importlib.util as u; print([m for m in ['playwright','pyppeteer','selenium'] if u.find_spec(m)])")
M="models/ultraface-rfb-320.onnx models/ppocr-det.onnx models/yolox-nano.onnx models/super-resolution-10.onnx models/mnist.onnx"
echo "== 8 images, medians of 3"
WEBGPU_RUNS=wasm,wasm-exposed,webgpu-in-graph,webgpu-packed,webgpu-unpacked REPEATS=3 timeout 240 ./node bench.mjs images 8 $M > $OUT/r8.jsonl 2> $OUT/r8.log
echo "rc $?"; grep -v "^Warning\|^ *at " $OUT/r8.log | tail -30
echo "== 24 images, once, with Auto"
WEBGPU_RUNS=wasm,wasm-exposed,webgpu-in-graph,webgpu-packed,auto,auto-again timeout 170 ./node bench.mjs images 24 $M > $OUT/r24.jsonl 2> $OUT/r24.log
echo "rc $?"; grep -v "^Warning\|^ *at " $OUT/r24.log | tail -30
