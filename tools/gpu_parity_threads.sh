#!/bin/sh
# On a GPU machine: the checks of VariablePhilox's transposition and of the thread stress test
# that the build machine cannot run, on every OpenCL device present.
#   gpu_parity_threads.sh BUILD [BEFORE_BUILD] [SOAK_SECONDS]
# BUILD is a configured and built tree of this source (tests on); BEFORE_BUILD, if given, a build
# of the commit before the transposition, whose `clperm bench` shuffle rows are printed beside
# this one's (the same session, one after the other, twice). SOAK_SECONDS (default 300) is the
# soak's time per arrangement and device. Prints everything to stdout; exits non-zero when a test
# fails.
set -eu
if [ $# -lt 1 ]; then
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
build=$1 before=${2:-} soak=${3:-300}
status=0
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n)"
"$build/clperm" devices || true

# Device equals host: VariablePhilox with its transposition at every fusion level and kernel kind
# (serial, work-group, local and PTX subgroups), the bijection in a user's kernel on 32- and
# 64-bit domains, the known answers.
"$build/tests/test_shuffle" --verbose=1 -j1 || status=1

# Threads: the short form, then the soak with its rates.
"$build/tests/test_threads" --verbose=1 -j1 || status=1
CLPERM_TEST_SOAK=$soak "$build/tests/test_threads" --verbose=1 -j1 || status=1

# Speed: the shuffle at the sizes of docs/performance.md, before and after, twice.
sizes=2^20+1,2^24+1,2^28,2^28+1
for round in 1 2; do
    if [ -n "$before" ]; then
        echo "== before, round $round"
        "$before/clperm" bench --device NVIDIA --sizes $sizes --reps 7 --warmup 2 --ops shuffle --no-host
    fi
    echo "== after, round $round"
    "$build/clperm" bench --device NVIDIA --sizes $sizes --reps 7 --warmup 2 --ops shuffle --no-host
done
exit $status
