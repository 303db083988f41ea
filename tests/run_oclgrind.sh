#!/bin/sh
# Runs a test program on Oclgrind's simulated device with data-race and uninitialised-value
# detection, and fails when Oclgrind reports anything, even if the program itself passed.
#   run_oclgrind.sh OCLGRIND PROGRAM [ARGS...]
set -u
oclgrind=$1
shift
log=$(mktemp)
"$oclgrind" --data-races --uninitialized --log "$log" "$@"
rc=$?
if [ -s "$log" ]; then
  echo "Oclgrind reported problems:"
  head -n 200 "$log"
  rc=1
fi
rm -f "$log"
exit $rc
