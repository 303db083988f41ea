#!/bin/sh
# The whole dieharder battery (the tests and ntuples of `dieharder -a`) on one generator, as
# parallel jobs: every test reads the generator's raw output from its start at the given seed.
#   dieharder_all.sh CLPERM FAMILY K SEED [JOBS [SCRAMBLE]]
# Prints one dieharder result line per test and ntuple, in the order of `dieharder -a`, then a
# count of PASSED, WEAK and FAILED. JOBS: parallel jobs (default: the cores); SCRAMBLE: the output
# scrambler, none or starstar (default: clperm's default). DIEHARDER names the dieharder binary;
# DIEHARDER_TESTS, if set, keeps only those test numbers (-d, space-separated), for a short check.
set -eu
if [ $# -lt 4 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
clperm=$1 family=$2 k=$3 seed=$4 jobs=${5:-$(nproc)}
scramble=${6:+--scramble $6}
dh=${DIEHARDER:-dieharder}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# test number and ntuple, as `dieharder -a` runs them
{
    for d in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 100 101 102; do echo "$d 0"; done
    for n in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "200 $n"; done
    for n in 2 3 4 5; do echo "201 $n"; done
    for n in 2 3 4 5; do echo "202 $n"; done
    n=0
    while [ $n -le 32 ]; do echo "203 $n"; n=$((n + 1)); done
    for d in 204 205 206 207 208 209; do echo "$d 0"; done
} | awk -v only="${DIEHARDER_TESTS:-}" '
    BEGIN { n = split(only, t, " "); for (i = 1; i <= n; i++) keep[t[i]] = 1 }
    !n || ($1 in keep) { printf "%04d %s %s\n", NR, $1, $2 }' >"$dir/jobs"
[ -s "$dir/jobs" ] || { echo "dieharder_all.sh: no test left by DIEHARDER_TESTS=$DIEHARDER_TESTS" >&2; exit 2; }

export clperm family k seed dh dir scramble
xargs -P "$jobs" -L 1 sh -c '
    opt=""; [ "$3" != 0 ] && opt="-n $3"
    "$clperm" rng --raw --family "$family" --k "$k" --seed "$seed" $scramble |
        "$dh" -g 200 -d "$2" $opt 2>&1 | grep -E "PASSED|WEAK|FAILED" >"$dir/$1.out" ||
        echo "   no result for -d $2 $opt" >"$dir/$1.out"' sh <"$dir/jobs"

cat "$dir"/*.out
printf 'PASSED %s  WEAK %s  FAILED %s\n' "$(cat "$dir"/*.out | grep -c PASSED)" \
    "$(cat "$dir"/*.out | grep -c WEAK)" "$(cat "$dir"/*.out | grep -c FAILED)"
