#!/bin/sh
# The device-wide and segmented sorts on an NVIDIA GPU in one call: build, check, then time.
#
#   bench/gpu_sort.sh [OUT]          OUT: where the JSON and logs go (default $OUT, else ./gpu_sort_out)
#
# 1. Builds clperm with -DCLPERM_BUILD_TESTS=OFF (Criterion is not needed) in build-gpu/.
# 2. Checks: `clperm bench` with verification (each row compared with clperm_sort_host, bit for
#    bit, keys and values) at 2^22 keys for every ranking, both algorithms and a non-default
#    shape, at 2^20+3 for the default with the segmented sort at fixed and skewed segments, and
#    the shuffle's sort baseline. The tests themselves need Criterion (ctest -R sort elsewhere).
# 3. Times, --no-verify: the default (Onesweep, subgroup votes) at 2^20 .. 2^28 with the
#    segmented sort at 64 .. 4096 and skewed beside the tile sorts of the same uniform segments;
#    match.any, the tile partition and reduce-then-scan at 2^24 and 2^28; work-group shapes at
#    2^28.
# 4. Prints one table: G keys/s per configuration and variant at 2^28 (and 2^24).
# Each step writes its own file, so a run cut short keeps what it measured. About 6 to 9 minutes
# on an H200.
set -u
out=${1:-${OUT:-gpu_sort_out}}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
for env in "$root/shared/gpu/opencl-env.sh" "$root/../shared/gpu/opencl-env.sh"; do
  if [ -f "$env" ]; then . "$env" > "$out/platforms.txt" 2>&1; break; fi
done
build=$root/build-gpu
{
  cmake -S "$root" -B "$build" -DCLPERM_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$build" -j 16
} > "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; tail -20 "$out/build.log"; exit 1; }
clperm=$build/clperm
export CLPERM_CACHE_DIR="$build/cache"
dev=${CLPERM_BENCH_DEVICE:-NVIDIA}
"$clperm" devices > "$out/devices.txt" 2>&1

failed=0
# run NAME ARGS...: one bench run into $out/NAME.json (stderr in NAME.log)
run() {
  name=$1
  shift
  if ! "$clperm" bench --device "$dev" --json "$@" > "$out/$name.json" 2> "$out/$name.log"; then
    echo "FAILED: $name ($out/$name.log)"
    grep -i "failed" "$out/$name.log" | head -5
    failed=$((failed + 1))
  fi
}

# ---- checks (every row verified against the host) ----
segs=64,256,1024,2048,4096
run check-onesweep-vote --ops sort,sort_segmented --sizes 2^20+3,2^22 --segments $segs --reps 1 --warmup 0 --no-host
run check-onesweep-match --ops sort --sizes 2^22 --reps 1 --warmup 0 --no-host --set sort_rank=2
run check-onesweep-partition --ops sort --sizes 2^22 --reps 1 --warmup 0 --no-host --set sort_rank=3
run check-reduce-then-scan --ops sort --sizes 2^22 --reps 1 --warmup 0 --no-host --set sort_algorithm=1
run check-wg384x18 --ops sort --sizes 2^22 --reps 1 --warmup 0 --no-host --set sort_wg_size=384 --set sort_items=18
run check-shuffle --ops shuffle --sizes 2^20+1 --reps 1 --warmup 0 --no-host

# ---- timings ----
run time-default --ops sort,sort_segmented,sort_segments --sizes 2^20,2^22,2^24,2^26,2^28 --segments $segs --no-verify --no-host
run time-match --ops sort --sizes 2^24,2^28 --no-verify --no-host --set sort_rank=2
run time-partition --ops sort --sizes 2^24,2^28 --no-verify --no-host --set sort_rank=3
run time-rts --ops sort --sizes 2^24,2^28 --no-verify --no-host --set sort_algorithm=1
for shape in 256x8 256x12 384x12 384x18 512x8 512x12; do
  wg=${shape%x*}
  items=${shape#*x}
  run "time-vote-$shape" --ops sort --sizes 2^28 --no-verify --no-host --set sort_wg_size=$wg --set sort_items=$items
done
run time-shuffle --ops shuffle --sizes 2^28 --no-verify --no-host

# ---- the table ----
python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
rows = {}
for f in sorted(os.listdir(out)):
    if not (f.startswith("time-") and f.endswith(".json")):
        continue
    for line in open(os.path.join(out, f)):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r["op"] in ("sort", "sort_segmented", "sort_segments", "copy") or r["variant"] == "sort":
            rows[(f[5:-5], r["op"], r["variant"], r["n"])] = r
def fmt(r):
    return "%8.2f" % (r["items_per_s"] * 1e-9) if r and r.get("items_per_s") else "%8s" % "-"
print("G keys/s (copy at 2^28: %s G u64/s)" % fmt(next((r for k, r in rows.items() if k[1] == "copy" and k[3] == 1 << 28), None)).strip())
keys = sorted({(k[0], k[1], k[2]) for k in rows if k[1] != "copy"})
print("%-16s %-15s %-22s %8s %8s %10s" % ("config", "op", "variant", "2^24", "2^28", "extra MB"))
for c, op, v in keys:
    r24, r28 = rows.get((c, op, v, 1 << 24)), rows.get((c, op, v, 1 << 28))
    extra = r28["extra_bytes"] / 1e6 if r28 else 0
    print("%-16s %-15s %-22s %s %s %10.1f" % (c, op, v, fmt(r24), fmt(r28), extra))
EOF
echo "checks and timings: $failed failed; files in $out"
exit $failed
