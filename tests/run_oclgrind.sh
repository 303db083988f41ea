#!/bin/sh
# Runs a test program on Oclgrind's simulated device with data-race and uninitialised-value
# detection, and fails when Oclgrind reports anything, even if the program itself passed.
#   run_oclgrind.sh OCLGRIND PROGRAM [ARGS...]
# Oclgrind's reports go to stderr and each one names its kernel on a "Kernel:" line. (Its --log
# file is not used: every test process Criterion forks would reopen and truncate it.)
set -u
oclgrind=$1
shift
out=$(mktemp)
"$oclgrind" --data-races --uninitialized "$@" >"$out" 2>&1
rc=$?
reports=$(grep -c -E '^[[:space:]]+Kernel: |^Oclgrind' "$out")
if [ "$reports" -gt 0 ]; then
  echo "Oclgrind reported problems ($reports report lines):"
  grep -B1 -A5 -E '^[[:space:]]+Kernel: |^Oclgrind' "$out" | head -n 200
  rc=1
else
  tail -n 5 "$out"
fi
rm -f "$out"
exit $rc
