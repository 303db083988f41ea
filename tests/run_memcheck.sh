#!/bin/sh
# Runs a program under Valgrind's memcheck, following the processes Criterion starts for its
# tests, and fails when memcheck reports anything (invalid reads or writes, uses of
# uninitialised values, bad frees, definite leaks), even if the program itself passed.
#   run_memcheck.sh VALGRIND SUPPRESSIONS PROGRAM [ARGS...]
# The host-side tests only: they open no OpenCL device, so the suppressions cover Criterion's
# own start-up, not PoCL (whose compiler and thread pool memcheck finds too noisy to be useful).
set -u
valgrind=$1
supp=$2
shift 2
out=$(mktemp)
CLPERM_TEST_QUICK=1 "$valgrind" --tool=memcheck --trace-children=yes --leak-check=full \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes \
  --suppressions="$supp" "$@" >"$out" 2>&1
rc=$?
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
processes=$(grep -c 'ERROR SUMMARY' "$out")
if [ "$errors" -gt 0 ]; then
  echo "memcheck reported $errors errors in $processes processes:"
  grep -E '^==[0-9]+== ' "$out" | grep -v -E 'Memcheck|Copyright|Using Valgrind|Command:|Parent PID|^==[0-9]+== $' | head -n 200
  rc=1
else
  echo "memcheck: no errors in $processes processes"
  grep -v -E '^==[0-9]+==' "$out" | tail -n 3
fi
rm -f "$out"
exit $rc
