#!/bin/sh
# A short fixed-seed dieharder subset on a generator's raw output: fails when any test FAILED.
#   run_dieharder.sh CLPERM FAMILY K SEED TEST...
clperm=$1 family=$2 k=$3 seed=$4
shift 4
status=0
for d in "$@"; do
    out=$("$clperm" rng --raw --family "$family" --k "$k" --seed "$seed" | dieharder -g 200 -d "$d" 2>&1)
    echo "$out" | grep -E "PASSED|WEAK|FAILED"
    echo "$out" | grep -q "PASSED\|WEAK\|FAILED" || { echo "dieharder -d $d gave no result"; status=1; }
    echo "$out" | grep -q FAILED && status=1
done
exit $status
