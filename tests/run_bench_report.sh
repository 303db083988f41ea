#!/bin/sh
# `clperm bench`'s default run at a tiny size, as a table and as JSON lines, then `clperm report`
# on the JSON: each must succeed, every family must have its measured row in the summary (a
# failed or missing row shows "-" there), and the report must print a table per family.
#   run_bench_report.sh CLPERM OUTDIR
set -eu
clperm=$1
out=$2
families="scan shuffle tile_sort partition sort rng permute"
mkdir -p "$out"
opts="--headline-size 4096 --reps 1 --warmup 0"

fail() {
    echo "run_bench_report: $*" >&2
    exit 1
}

# The summary: a line per family with its n (2^12), a rate, the spread of its runs and its % of
# the same-bytes bound, after a line "summary: ...".
check_summary() {
    sed -n '/^summary:/,$p' "$1" >"$out/summary.txt"
    [ -s "$out/summary.txt" ] || fail "no summary in $1"
    for f in $families; do
        grep -Eq "^ *$f +2\^12 +[0-9.]+ [kMGT]? +-[0-9.]+/\+[0-9.]+% +[0-9.]+%\*? (copy|gather) " "$out/summary.txt" ||
            fail "no $f row (rate, spread, % of the same-bytes bound) in the summary of $1"
    done
}

"$clperm" bench $opts >"$out/bench.txt" 2>"$out/bench.err" || fail "clperm bench failed (see $out/bench.err)"
check_summary "$out/bench.txt"

"$clperm" bench $opts --json >"$out/bench.jsonl" 2>"$out/bench_json.err" ||
    fail "clperm bench --json failed (see $out/bench_json.err)"
check_summary "$out/bench_json.err"
grep -vq '^{.*}$' "$out/bench.jsonl" && fail "a line of $out/bench.jsonl is not a JSON object"
[ "$(grep -c '"peer":"[a-z]' "$out/bench.jsonl")" -ge 7 ] || fail "fewer than seven headline rows with a peer"

"$clperm" report "$out/bench.jsonl" >"$out/report.txt" || fail "clperm report failed"
for f in $families bound; do
    grep -q "^$f\$" "$out/report.txt" || fail "no $f table in the report"
done
grep -q '"headline":true' "$out/bench.jsonl" || fail "no row of $out/bench.jsonl marked as a headline row"
"$clperm" report --markdown "$out/bench.jsonl" >"$out/report.md" || fail "clperm report --markdown failed"
for f in $families; do
    grep -Eq "^\| $f \| [^|]+ \| 2\^12 \| [0-9.]+ [kMGT]? \|" "$out/report.md" || fail "no $f row in $out/report.md"
done
grep -q '^\*\*.*measured [0-9-]* [0-9:]* UTC with `clperm bench ' "$out/report.md" ||
    fail "$out/report.md does not say when and how its rows were measured"
if command -v gnuplot >/dev/null 2>&1; then
    rm -rf "$out/plots"
    "$clperm" report --plot "$out/plots" "$out/bench.jsonl" >/dev/null 2>&1 || fail "clperm report --plot failed"
    [ -s "$out/plots/headline.png" ] || [ -s "$out/plots/headline_devices.png" ] ||
        fail "clperm report --plot drew no bar chart of the headline rows"
fi
"$clperm" report --help | grep -q '^usage: clperm report' || fail "clperm report --help"
echo "bench and report: ok ($out)"
