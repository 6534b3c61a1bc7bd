#!/usr/bin/env bash
# The GPU figures of the README, in one run on a machine with an NVIDIA GPU and a CUDA torch
# (gradkit's core needs only torch and numpy: run from the repository root, nothing installed).
#   bash tools/gpu_figures.sh [OUT]     writes OUT/{gpu,tests,bench,tf32}.txt (default: gpu-figures/)
# 1. the GPU: its name, the driver, torch and its CUDA;
# 2. the engine's CUDA tests (tests/test_engine.py, skipped on machines without a GPU);
# 3. the engine benchmark on the GPU (python -m benchmarks --only engine --device cuda);
# 4. lesson 11's TF32 cells as the lesson has them (the CPU imitation, then the real GPU matmul).
set -u -o pipefail
out="${1:-gpu-figures}"
mkdir -p "$out"
py="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
status=0
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, \
'|', torch.cuda.get_device_name() if torch.cuda.is_available() else 'no CUDA device')"
} 2>&1 | tee "$out/gpu.txt" || status=1
"$py" -m pytest -q -p no:xdist tests/test_engine.py -k "cuda" 2>&1 | tee "$out/tests.txt" || status=1
"$py" -m benchmarks --only engine --device cuda 2>&1 | tee "$out/bench.txt" || status=1
# lesson 11's cells that hold the TF32 comparison, run in order in one namespace (its first
# cell, which builds widgets, is replaced by the one import these cells need)
"$py" - notebooks/11_appendix_beyond.py <<'PY' 2>&1 | tee "$out/tf32.txt" || status=1
import sys
from pathlib import Path

cells = Path(sys.argv[1]).read_text(encoding="utf-8").split("\n# %%")
wanted = [c for c in cells if "def to_tf32" in c or "torch.cuda.is_available()" in c]
if len(wanted) != 2:
    sys.exit(f"expected lesson 11's two TF32 cells, found {len(wanted)}: has the lesson changed?")
namespace: dict = {}
exec("import torch", namespace)
for cell in wanted:
    exec(compile(cell.split("\n", 1)[1], "lesson 11", "exec"), namespace)
PY
exit $status
