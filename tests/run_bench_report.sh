#!/bin/sh
# `clperm bench`'s default run at a tiny size, as a table and as JSON lines, then `clperm report`
# on the JSON: each must succeed, every family must have its measured row in the summary (a
# failed or missing row shows "-" there), and the report must print a table per family.
#   run_bench_report.sh CLPERM OUTDIR
set -eu
clperm=$1
out=$2
families="scan shuffle tile_sort partition sort rng"
mkdir -p "$out"
opts="--headline-size 4096 --reps 1 --warmup 0"

fail() {
    echo "run_bench_report: $*" >&2
    exit 1
}

# The summary: a line per family with its n (2^12) and a rate, after a line "summary".
check_summary() {
    sed -n '/^summary$/,$p' "$1" >"$out/summary.txt"
    [ -s "$out/summary.txt" ] || fail "no summary in $1"
    for f in $families; do
        grep -Eq "^.* $f +2\^12 +[0-9.]+ [kMGT]? " "$out/summary.txt" || fail "no $f row in the summary of $1"
    done
}

"$clperm" bench $opts >"$out/bench.txt" 2>"$out/bench.err" || fail "clperm bench failed (see $out/bench.err)"
check_summary "$out/bench.txt"

"$clperm" bench $opts --json >"$out/bench.jsonl" 2>"$out/bench_json.err" ||
    fail "clperm bench --json failed (see $out/bench_json.err)"
check_summary "$out/bench_json.err"
grep -vq '^{.*}$' "$out/bench.jsonl" && fail "a line of $out/bench.jsonl is not a JSON object"
[ "$(grep -c '"peer":"[a-z]' "$out/bench.jsonl")" -ge 6 ] || fail "fewer than six headline rows with a peer"

"$clperm" report "$out/bench.jsonl" >"$out/report.txt" || fail "clperm report failed"
for f in $families bound; do
    grep -q "^$f: " "$out/report.txt" || fail "no $f table in the report"
done
"$clperm" report --help | grep -q '^usage: clperm report' || fail "clperm report --help"
echo "bench and report: ok ($out)"
