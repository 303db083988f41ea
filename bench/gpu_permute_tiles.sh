#!/bin/sh
# Tiles per work-group of the local-tile transpose and bit-reversal (CLPERM_PARAM_PERMUTE_TILES,
# `--set permute_tiles=T`) swept on a GPU, written for the H200 through NVIDIA's OpenCL. Builds
# clperm without the Criterion tests, then for each T:
#   1. the regular permutations (transpose, bit-reversal, perfect shuffle; 4-, 8- and 16-byte
#      items) at 2^22 items, every result checked against the host's (one timed run each);
#   2. the same at 2^24 and 2^26 items, timed (2^24 checked as well), with the copy bound;
# and prints each row's % of the copy rate measured in the same run, per T and item size. The
# shuffle does not use T (it moves 1024 items per work-group already): its row shows the spread
# between runs. 4 tiles of 16-byte items need 64 KiB of local memory, more than a work-group of
# NVIDIA's OpenCL has (48 KiB): the 16-byte rows of T = 4 run 2 tiles.
#   bench/gpu_permute_tiles.sh [DEVICE [T...]]   DEVICE: clperm's --device selector (NVIDIA);
#                                                T: the values swept (1 2 4)
# Environment: OUT (default build-gpu/out-tiles) for the JSON lines and logs, BUILD (build-gpu),
# SIZES (2^24,2^26) and CHECK (2^22) for the sizes, ARGS for more `clperm bench` options.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dev=${1:-NVIDIA}
if [ $# -gt 0 ]; then shift; fi
tiles=${*:-1 2 4}
build=${BUILD:-$root/build-gpu}
out=${OUT:-$build/out-tiles}
sizes=${SIZES:-2^24,2^26}
check=${CHECK:-2^22}
args=${ARGS:-}
variants=transpose-,bit-reversal-,shuffle-
. "$root/bench/gpu_setup.sh"

start=$(date +%s)
rc=0
for t in $tiles; do
  echo "== permute_tiles=$t: checked at $check (log: $out/check-$t.log)"
  # shellcheck disable=SC2086
  "$bin" bench --device "$dev" --ops permute --variants $variants --sizes "$check" --no-host --reps 1 --warmup 0 \
    --set permute_tiles="$t" $args --json >"$out/check-$t.json" 2>"$out/check-$t.log" || {
    rc=1
    grep -E "FAILED|failed|cannot" "$out/check-$t.log" || tail -n 5 "$out/check-$t.log"
    continue
  }
  echo "== permute_tiles=$t: timed at $sizes (log: $out/tiles-$t.log)"
  # shellcheck disable=SC2086
  "$bin" bench --device "$dev" --ops permute --variants $variants --sizes "$sizes" --no-host \
    --set permute_tiles="$t" $args --json >"$out/tiles-$t.json" 2>"$out/tiles-$t.log" || {
    rc=1
    grep -E "FAILED|failed|cannot" "$out/tiles-$t.log" || tail -n 5 "$out/tiles-$t.log"
  }
done
echo "(bench runs: $(($(date +%s) - start)) s)"

if command -v python3 >/dev/null 2>&1; then
  python3 - "$out" $tiles <<'EOF'
import json, os, sys
out, tiles = sys.argv[1], sys.argv[2:]
runs = {}
for t in tiles:
    path = os.path.join(out, f"tiles-{t}.json")
    if os.path.exists(path):
        runs[t] = [json.loads(l) for l in open(path) if l.startswith("{")]
def find(rows, op, variant, n):
    for r in rows:
        if r["op"] == op and r["variant"] == variant and r["n"] == n:
            return r
    return None
sizes = sorted({r["n"] for rows in runs.values() for r in rows})
print("\n% of the copy rate (bytes moved), each run against its own copy bound; T = permute_tiles")
for n in sizes:
    copies = []
    for t in tiles:
        c = find(runs.get(t, []), "copy", "bound", n)
        copies.append(f"T={t}: {c['bytes_per_s'] / 1e9:.0f}" if c else f"T={t}: -")
    print(f"\nn = 2^{n.bit_length() - 1}, copy GB/s {', '.join(copies)}")
    print(f"  {'variant':<18}" + "".join(f"{'T=' + t:>9}" for t in tiles))
    for k in ("transpose", "bit-reversal", "shuffle"):
        for es in (4, 8, 16):
            v = f"{k}-{es}B"
            cells = []
            for t in tiles:
                rows = runs.get(t, [])
                r, c = find(rows, "permute", v, n), find(rows, "copy", "bound", n)
                cells.append(f"{100 * r['bytes_per_s'] / c['bytes_per_s']:8.1f}%" if r and c else f"{'-':>9}")
            print(f"  {v:<18}" + "".join(cells))
EOF
fi
echo "JSON in $out"
exit $rc
