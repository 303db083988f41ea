#!/bin/sh
# `clperm tune` of one family with a tiny budget on the first device, then the check that its file
# loads and changes exactly the values it names (test_tuning_file's suite tuning_tune).
#   run_tune_tiny.sh CLPERM TEST_TUNING_FILE OUT.json
set -eu
clperm=$1
test=$2
out=$3
rm -f "$out"
# No device: skipped, or failed where one is required (CI, CLPERM_TEST_REQUIRE_DEVICE=1), as the
# other device tests do (tests/common.h).
if ! "$clperm" devices >/dev/null 2>&1; then
    if [ -n "${CI:-}" ] && [ "${CI:-}" != 0 ] || [ "${CLPERM_TEST_REQUIRE_DEVICE:-}" = 1 ]; then
        echo "run_tune_tiny: no OpenCL device present, and one is required here" >&2
        exit 1
    fi
    echo "run_tune_tiny: no OpenCL device present: skipped"
    exit 0
fi
"$clperm" tune --device 0 --family rng --minutes 0.2 --size 2^16 --check-size 1003 --reps 1 --out "$out" \
    2>"$out.log" || { cat "$out.log" >&2; echo "run_tune_tiny: clperm tune failed" >&2; exit 1; }
grep -q "rng:" "$out.log" || { echo "run_tune_tiny: no progress on stderr" >&2; exit 1; }
CLPERM_TUNE_OUTPUT=$out CLPERM_TUNE_DEVICE=0 "$test" --verbose=0 --filter 'tuning_tune/*'
