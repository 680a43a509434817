#!/bin/sh
# The table at the end of make bench: every figure a benchmark printed as
# "summary: FIGURE<tab>VALUE<tab>GOAL<tab>HOLDS" (yes, no, or - for a
# figure with no goal), in the order printed. Usage: summary.sh OUTPUT
set -u
out=${1:?usage: summary.sh BENCH-OUTPUT}
echo
echo "== summary: every figure with its goal (ratios measured against baselines in the same run)"
grep '^summary: ' "$out" | sed 's/^summary: //' | awk -F'\t' '
    { fig[NR] = $1; val[NR] = $2; goal[NR] = $3; ok[NR] = $4
      if (length($1) > w) w = length($1) }
    END {
        if (NR == 0) { print "(no figures)"; exit }
        printf "%-" w "s  %12s  %12s  %s\n", "figure", "value", "goal", "holds"
        for (i = 1; i <= NR; i++) {
            printf "%-" w "s  %12s  %12s  %s\n", fig[i], val[i], goal[i], ok[i]
            if (ok[i] == "yes") y++; else if (ok[i] == "no") n++
        }
        printf "%d of %d goals hold\n", y, y + n
    }'
