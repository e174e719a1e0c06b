#!/bin/bash
# Runs on the lent GPU machine from <main>/.gpu (bench/device/pack.sh made it): calibration WASM vs packed WebGPU vs the page's
# Auto (whole job weighed), onnxruntime-node's WebGPU EP; lists any browser there. JSON lines under $OUT.
cd "$(dirname "$0")"; G=$PWD
for f in ../.gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
W=/tmp/w; mkdir -p $W; xz -dc node.xz > $W/node; chmod +x $W/node; tar -xJf nm.tar.xz -C $W; cp bench.mjs $W/; cd $W
nvidia-smi -L; ./node --version
echo "== browsers on this machine"; (ls /usr/bin /usr/local/bin /opt 2>/dev/null | grep -iE "chrom|firefox|playwright"; ls -d /root/.cache/ms-playwright 2>/dev/null; find / -xdev -maxdepth 6 \( -iname "*chrome*" -o -iname "chromium*" -o -iname "headless_shell" \) -type f 2>/dev/null | grep -v -E "\.(py|pyc|js|json|txt|svg|png)$" | head -8; echo "python playwright/pyppeteer/selenium:"; python3 -c "import importlib.util as u; print([m for m in ['playwright','pyppeteer','selenium'] if u.find_spec(m)])")
M="models/mnist.onnx models/ultraface-rfb-320.onnx models/yolox-nano.onnx models/ppocr-det.onnx models/super-resolution-10.onnx"
export WEBGPU_RUNS=wasm,webgpu-packed,auto,auto-again
for n in 8 24; do
  echo "== $n images"; timeout 200 ./node bench.mjs images $n $M > $OUT/r$n.jsonl 2> $OUT/r$n.log; echo "rc $?"; grep -v "^Warning\|^ *at " $OUT/r$n.log | tail -25
done
