"""Runs onnx.checker.check_model on each file named on the command line; prints one JSON line per file.

Used by the tests (Debian's python3-onnx; /usr/bin/python3). Exit code 0 even when a model fails:
the caller compares verdicts.
"""
import json
import sys

import onnx

for path in sys.argv[1:]:
    try:
        model = onnx.load(path)
        onnx.checker.check_model(model)
        print(json.dumps({"path": path, "ok": True}))
    except Exception as e:  # noqa: BLE001 - every failure is a verdict
        print(json.dumps({"path": path, "ok": False, "error": f"{type(e).__name__}: {e}"[:500]}))
