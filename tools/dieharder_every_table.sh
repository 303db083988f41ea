#!/bin/sh
# dieharder's whole battery (tools/dieharder_all.sh) on every shipped generator table without a
# scrambler, and on the default family (three) at every k with the starstar scrambler, all from
# one seed.
#   dieharder_every_table.sh CLPERM SEED JOBS OUTDIR
# Writes OUTDIR/FAMILY-K-SCRAMBLE.txt (dieharder_all.sh's output: one line per test and ntuple,
# then the counts) for each generator, and OUTDIR/summary.md: the PASSED / WEAK / FAILED counts of
# every generator and every result that is not PASSED, as the tables of docs/rng-quality.md.
# JOBS dieharder processes run at once: JOBS / 4 generators at a time, 4 tests each (one
# generator with JOBS tests when JOBS < 8). A generator whose file is complete is not run again,
# so a stopped run resumes. DIEHARDER and DIEHARDER_TESTS are passed on to dieharder_all.sh.
set -eu
if [ $# -ne 4 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
clperm=$1 seed=$2 jobs=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
dh=${DIEHARDER:-dieharder}
case $jobs in '' | *[!0-9]* | 0) echo "dieharder_every_table.sh: JOBS must be a positive number" >&2; exit 2 ;; esac
if [ "$jobs" -ge 8 ]; then per=4 gens=$((jobs / 4)); else per=$jobs gens=1; fi
mkdir -p "$out"

# family k scrambler of every generator to run: the shipped tables, then the default family
# scrambled
"$clperm" rng --list >"$out/list.tmp"
{
    awk '{ sub("k=", "", $2); print $1, $2, "none" }' "$out/list.tmp"
    for k in 8 16 32 64; do echo "three $k starstar"; done
} >"$out/generators"
rm -f "$out/list.tmp"
[ "$(wc -l <"$out/generators")" -gt 4 ] || { echo "dieharder_every_table.sh: $clperm rng --list gave no tables" >&2; exit 1; }

start=$(date +%s)
export clperm seed per out here
status=0
xargs -P "$gens" -L 1 sh -c '
    f="$out/$1-$2-$3.txt"
    grep -q "^PASSED [0-9]*  WEAK" "$f" 2>/dev/null && exit 0
    if sh "$here/dieharder_all.sh" "$clperm" "$1" "$2" "$seed" "$per" "$3" >"$f.tmp"; then
        mv "$f.tmp" "$f"
        echo "$1 k=$2 $3: $(tail -n 1 "$f")" >&2
    else
        echo "$1 k=$2 $3: dieharder_all.sh failed" >&2
        exit 1
    fi' sh <"$out/generators" || status=$?
end=$(date +%s)

# summary.md
{
    echo "dieharder $("$dh" -h 2>&1 | sed -n 's/.*dieharder version \([^ ]*\).*/\1/p' | head -n 1)," \
        "seed $seed, $(date -u +%Y-%m-%d), $(nproc) cores, $jobs jobs, $(((end - start) / 60)) minutes:" \
        "\`tools/dieharder_every_table.sh CLPERM $seed $jobs OUTDIR\`${DIEHARDER_TESTS:+ with DIEHARDER_TESTS=\"$DIEHARDER_TESTS\"}"
    echo
    echo "| family | k | scrambler | PASSED | WEAK | FAILED | no result |"
    echo "|---|---|---|---|---|---|---|"
    while read -r fam k scr; do
        f="$out/$fam-$k-$scr.txt"
        [ -s "$f" ] || { echo "| $fam | $k | $scr | not run | | | |"; continue; }
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$fam" "$k" "$scr" "$(grep -cE '\| *PASSED' "$f")" \
            "$(grep -cE '\| *WEAK' "$f")" "$(grep -cE '\| *FAILED' "$f")" "$(grep -c 'no result' "$f")"
    done <"$out/generators"
    echo
    echo "Every result that is not PASSED:"
    echo
    echo "| family | k | scrambler | test | ntuple | p-value | assessment |"
    echo "|---|---|---|---|---|---|---|"
    while read -r fam k scr; do
        [ -s "$out/$fam-$k-$scr.txt" ] || continue
        awk -F'|' -v g="$fam | $k | $scr" '/\| *(WEAK|FAILED)/ {
            gsub(/ /, "", $1); gsub(/ /, "", $2); gsub(/ /, "", $6)
            printf "| %s | %s | %s | %.5f | %s |\n", g, $1, $2, $5, $6 }' "$out/$fam-$k-$scr.txt"
    done <"$out/generators"
} >"$out/summary.md"
cat "$out/summary.md"
exit "$status"
