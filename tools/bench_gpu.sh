#!/bin/sh
# On a machine with an NVIDIA GPU (the H200 of docs/performance.md): the default run of
# `clperm bench`, timed, and the command lines behind the published figures, each as JSON lines,
# then `clperm report` over all of them with figures. Compare the report with the tables of
# docs/performance.md (same device, driver and command: within run-to-run noise).
#   tools/bench_gpu.sh [CLPERM [OUTDIR]]      (defaults: ./build/clperm, bench-gpu)
set -eu
clperm=${1:-./build/clperm}
out=${2:-bench-gpu}
mkdir -p "$out"

step() {
    echo "+ $*" >&2
    "$@"
}

# The default run on every device, twice (the second with warm caches), timed.
for run in 1 2; do
    start=$(date +%s)
    step "$clperm" bench >"$out/default-$run.txt" 2>"$out/default-$run.err"
    echo "default run $run: $(($(date +%s) - start)) s" | tee -a "$out/timings.txt" >&2
done
step "$clperm" bench --json >"$out/default.jsonl"

# The published command lines (docs/performance.md), as JSON lines.
n=NVIDIA
step "$clperm" bench --device $n --full --ops scan_exclusive,scan_inclusive,reduce_sum --json >"$out/scan.jsonl"
step "$clperm" bench --device $n --sizes 2^20+1,2^24+1,2^28,2^28+1,2^29+1 --reps 7 --warmup 2 --ops shuffle \
    --no-host --json >"$out/shuffle.jsonl"
step "$clperm" bench --device $n --sizes 2^20,2^24,2^28 --ops sort_segments,partition --segments 256,512,1024,2048 \
    --reps 7 --warmup 2 --no-host --json >"$out/tile.jsonl"
step "$clperm" bench --device $n --sizes 2^28 --ops partition --segments 16,64,256,512 --reps 7 --warmup 2 \
    --no-host --no-verify --json >"$out/partition.jsonl"
step "$clperm" bench --device $n --sizes 2^24,2^28 --ops rng --reps 7 --warmup 2 --json >"$out/rng.jsonl"
step "$clperm" bench --device $n --sizes 2^20,2^22,2^24,2^26,2^28 --ops sort,sort_segmented \
    --segments 64,256,1024,2048,4096 --reps 7 --warmup 2 --no-host --no-verify --json >"$out/sort.jsonl"

step "$clperm" report --plot "$out/figures" "$out"/*.jsonl >"$out/report.txt"
echo "done: $out/report.txt, $out/figures, $out/timings.txt" >&2
