#!/bin/sh
# README.md's example is a part of an example program, so that it cannot go stale: the lines
# between /* <readme> */ and /* </readme> */ in the program, less their common indentation, must
# be the C block between <!-- example: examples/NAME.c --> and <!-- /example --> in README.md.
#   check_readme_example.sh README.md examples/NAME.c
set -u
readme=$1
program=$2
name=examples/$(basename "$program")
region=$(mktemp)
block=$(mktemp)
sed -n '/^ *\/\* <readme> \*\/$/,/^ *\/\* <\/readme> \*\/$/p' "$program" | sed '1d;$d' |
    awk '{ line[NR] = $0; if ($0 ~ /[^ ]/) { match($0, /^ */); if (min == "" || RLENGTH < min) min = RLENGTH } }
         END { for (i = 1; i <= NR; i++) print substr(line[i], min + 1) }' >"$region"
sed -n "\\|^<!-- example: $name -->\$|,\\|^<!-- /example -->\$|p" "$readme" | sed -n '/^```c$/,/^```$/p' |
    sed '1d;$d' >"$block"
rc=0
if [ ! -s "$region" ]; then
    echo "$program: no lines between /* <readme> */ and /* </readme> */"
    rc=1
elif [ ! -s "$block" ]; then
    echo "$readme: no \`\`\`c block between <!-- example: $name --> and <!-- /example -->"
    rc=1
elif ! diff -u --label "$readme" --label "$program" "$block" "$region"; then
    echo "$readme's example differs from the marked part of $program (diff above: README -> program);"
    echo "copy the program's lines into README.md."
    rc=1
else
    first=$(($(grep -n '/\* <readme> \*/$' "$program" | cut -d: -f1) + 1))
    echo "$readme's example is lines $first to $((first + $(wc -l <"$region") - 1)) of $program"
fi
rm -f "$region" "$block"
exit $rc
