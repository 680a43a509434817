#!/bin/sh
# Lints every manual page in man/ the way a reader meets it: groff and
# mandoc with every warning on, then man(1) at 80 columns, where a line
# past the width or a table too wide for it is a fault too. Any message
# fails the run. Usage: scripts/lint-man.sh [PAGE...]
set -u
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- man/*.[1-9]

for tool in groff mandoc man perl; do
    command -v "$tool" >/dev/null 2>&1 && continue
    echo "lint-man: $tool not found (scripts/bootstrap.sh check installs it)" >&2
    exit 1
done

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
bad=0
for page in "$@"; do
    # -t: the pages' tables go through tbl, as man(1) sends them.
    groff -t -ww -z -man "$page" >"$out" 2>&1
    mandoc -T lint "$page" >>"$out" 2>&1
    MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" 2>&1 >/dev/null |
        sed "s|^|$page: man -l: |" >>"$out"
    MANWIDTH=80 man -l "$page" 2>/dev/null |
        perl -CSD -ne 'chomp; print "'"$page"': line $. of the 80-column page is ",
                       length, " wide: $_\n" if length > 80' >>"$out"
    if [ -s "$out" ]; then
        cat "$out" >&2
        bad=1
    fi
done
[ "$bad" = 0 ] || { echo "lint-man: fix the messages above" >&2; exit 1; }
echo "lint-man: $# pages clean"
