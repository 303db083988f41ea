#!/bin/sh
# With no OpenCL platform (OCL_ICD_VENDORS at an empty folder), a test that needs a device is
# skipped, and fails where one is required: CI set (not "0") or CLPERM_TEST_REQUIRE_DEVICE=1.
#   check_device_loop.sh PROGRAM
# PROGRAM is a Criterion program whose one test runs TEST_EACH_DEVICE.
set -u
prog=$1
empty=$(mktemp -d)
out=$(mktemp)
failed=0

# expect WANT ENV...: runs PROGRAM without a platform under ENV; WANT is skip or fail.
expect() {
    want=$1
    shift
    env -u CI -u CLPERM_TEST_REQUIRE_DEVICE OCL_ICD_VENDORS="$empty" "$@" "$prog" --verbose >"$out" 2>&1
    rc=$?
    case $want in
    skip) [ $rc -eq 0 ] && grep -q 'no OpenCL device present: skipped' "$out" ;;
    fail) [ $rc -ne 0 ] && grep -q 'no OpenCL device present, and one is required' "$out" ;;
    esac
    if [ $? -eq 0 ]; then
        echo "ok: $want with ${*:-no CI variables} (exit $rc)"
    else
        echo "FAILED: want $want with ${*:-no CI variables}, got exit $rc:"
        cat "$out"
        failed=1
    fi
}

expect skip
expect skip CI=
expect skip CI=0
expect skip CLPERM_TEST_REQUIRE_DEVICE=0
expect fail CI=1
expect fail CI=true
expect fail CLPERM_TEST_REQUIRE_DEVICE=1
rm -f "$out"
rmdir "$empty"
exit $failed
