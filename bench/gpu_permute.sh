#!/bin/sh
# The offline permutations on a GPU in one run (written for the H200 through NVIDIA's OpenCL):
# builds clperm without the Criterion tests, then
#   1. the paper's Table 2 (32-bit items at sqrt(n) = 512 .. 8192, 64-bit at 256 .. 4096), every
#      figure checked against the host's permutation up to 2^24 items;
#   2. every permute variant at the goal sizes 2^24 and 2^26 for 4-, 8- and 16-byte items, both
#      pass structures of the scheduled permutation, the plans' construction times and bytes;
#   3. the default run's headline row of the family (scheduled permutation of a random
#      permutation of u32 at 2^26, beside the gather by index array);
#   4. a short summary: the regular kernels against the copy, the scheduled permutation's spread
#      over the five permutations and its speed-up over the D-designated one.
# JSON lines go to $OUT (default build-gpu/out), one file per part, with the logs beside them.
#   bench/gpu_permute.sh [DEVICE [TABLE2_MAX]]   DEVICE: clperm's --device selector (NVIDIA)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dev=${1:-NVIDIA}
t2max=${2:-8192}
build=$root/build-gpu
out=${OUT:-$build/out}
. "$root/bench/gpu_setup.sh"

rc=0
echo "== Table 2 (log: $out/table2.log)"
"$bin" bench --device "$dev" --table2 --table2-max "$t2max" --json >"$out/table2.json" 2>"$out/table2.log" || rc=1
echo "== permute at 2^24 and 2^26 (log: $out/permute.log)"
"$bin" bench --device "$dev" --ops permute --sizes 2^24,2^26 --json >"$out/permute.json" 2>"$out/permute.log" || rc=1
echo "== the default run's headline rows (log: $out/headline.log)"
"$bin" bench --device "$dev" >"$out/headline.txt" 2>"$out/headline.log" || rc=1
grep -E "^ *permute " "$out/headline.txt" || true
grep -E "FAILED|failed" "$out/table2.log" "$out/permute.log" "$out/headline.log" || true

# The Table 2 summary the bench printed (stderr with --json).
sed -n '/^Table 2/,$p' "$out/table2.log"

if command -v python3 >/dev/null 2>&1; then
  python3 - "$out/permute.json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
def find(op, variant, n):
    for r in rows:
        if r["op"] == op and r["variant"] == variant and r["n"] == n:
            return r
    return None
perms = ["identity", "random", "transpose", "shuffle", "bit-reversal"]
for n in sorted({r["n"] for r in rows}):
    copy, gather = find("copy", "bound", n), find("gather", "bound", n)
    if not copy or not gather:
        print(f"\nn = {n}: no bounds measured")
        continue
    print(f"\nn = 2^{n.bit_length() - 1}: copy {copy['bytes_per_s'] / 1e9:.0f} GB/s, "
          f"gather {gather['items_per_s'] / 1e9:.2f} G items/s")
    for es in (4, 8, 16):
        for k in ("transpose", "shuffle", "bit-reversal"):
            r = find("permute", f"{k}-{es}B", n)
            if r:
                same = r.get("same_copy_bytes_per_s")
                print(f"  {k}-{es}B: {r['seconds'] * 1e3:.4f} ms, {100 * r['bytes_per_s'] / copy['bytes_per_s']:.1f}% of copy"
                      + (f", {100 * r['bytes_per_s'] / same:.1f}% of the copy of its bytes" if same else ""))
        # "scheduled" is the device's default pass structure, scheduled5 or scheduled3 the other.
        for algo in ("scheduled", "scheduled5", "scheduled3"):
            t = [find("permute", f"{algo}-{p}-{es}B", n) for p in perms]
            t = [r["seconds"] for r in t if r]
            if len(t) == 5:
                print(f"  {algo}-{es}B: {min(t) * 1e3:.4f} .. {max(t) * 1e3:.4f} ms over the five permutations, "
                      f"spread {100 * (max(t) / min(t) - 1):.1f}%")
                for p in ("random", "bit-reversal"):
                    dd = find("permute", f"d-designated-{p}-{es}B", n)
                    s = find("permute", f"{algo}-{p}-{es}B", n)
                    if dd and s:
                        print(f"    vs d-designated-{p}: {dd['seconds'] / s['seconds']:.2f}x")
    for r in rows:
        if r["op"] == "permute_plan" and r["n"] == n:
            print(f"  plan {r['variant']}: built in {r['seconds']:.2f} s, {r['extra_bytes'] / n:.1f} device bytes per item "
                  f"(schedules and scratch for 4-byte items)")
EOF
fi
echo "JSON in $out"
exit $rc
