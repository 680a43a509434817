#!/bin/sh
# Lists the error messages of src/sources/ that no test reached, from the
# gcov data of a coverage build (make coverage). An error site is a line
# that calls gt_diag_set, or a file's own printf-style reporter that ends
# in it (fail, fail_at: a function declared format(printf) whose body
# calls gt_diag_set or fills a 'why' buffer); the sites inside such a
# reporter are its callers' and are not counted apart. A site spanning
# lines is reached when any line of its statement ran.
# Usage: scripts/coverage-errors.sh BUILD (build/coverage)
set -u
build=${1:?usage: coverage-errors.sh BUILD}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The printf-style reporters of a source file, one name a line: defined
# with "const char *fmt, ...)", their body calling gt_diag_set or filling
# a why buffer.
reporters() {
    awk '
        cand != "" { if ($0 ~ /^\{/) body = cand; cand = ""; next }
        /^[a-z].*const char \*fmt, \.\.\.\)[ \t]*$/ {
            s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); cand = w[n]; next
        }
        body != "" && /gt_diag_set\(|[>.]why/ { hit[body] = 1 }
        /^\}/ { body = "" }
        END { for (f in hit) print f }
    ' "$1"
}

for src in $(find src/sources -name '*.c' | sort); do
    obj=$build/obj/$(dirname "$src")
    [ -f "$obj/$(basename "$src" .c).gcno" ] || continue
    names=$(reporters "$src" | tr '\n' '|' | sed 's/|$//')
    # gcov -t: "COUNT:LINE:SOURCE", COUNT '-' for no code, '#####' never run.
    gcov -t -o "$obj" "$src" 2>/dev/null |
    awk -F: -v file="$src" -v names="$names" '
        function count(c) { gsub(/[ *]/, "", c); return c == "-" ? -1 : (c ~ /^[#=]+$/ ? 0 : c + 0) }
        function report() {
            sub(/^[ \t]+/, "", msg)
            state = best > 0 ? "reached" : best == 0 ? "unreached" : "unknown"
            printf "%s\t%s:%d\t%s\n", state, file, at, substr(msg, 1, 100)
            open = 0
        }
        BEGIN { pat = "gt_diag_set\\("; if (names != "") pat = pat "|(^|[^A-Za-z0-9_>.])(" names ")\\(" }
        $2 + 0 == 0 { if ($3 == "Source") mine = substr($0, index($0, "Source:") + 7) ~ (file "$"); next }
        !mine { next }
        {
            c = count($1); text = $0; sub(/^[^:]*:[^:]*:/, "", text)
            if (open) {
                if (c > best) best = c
                if (text ~ /;[ \t]*$/) report()
                next
            }
            if (text ~ /^[A-Za-z_]/) {      # a function starts: its name
                fn = text; sub(/\(.*/, "", fn); n = split(fn, w, /[ *]+/); fn = w[n]
                next
            }
            if (text ~ /^\}/) fn = ""
            if (text ~ /^[ \t]*(\/\*|\*)/ || text !~ pat) next
            if (names != "" && fn ~ ("^(" names ")$")) next
            open = 1; at = $2 + 0; msg = text; best = c
            if (text ~ /;[ \t]*$/) report()
        }
    ' >> "$out"
done

total=$(wc -l < "$out")
unreached=$(grep -c '^unreached' "$out")
echo
echo "== error sites in src/sources/ never reached by a test"
grep '^unreached' "$out" | cut -f2- | sed 's/\t/  /'
unknown=$(grep -c '^unknown' "$out")
[ "$unknown" = 0 ] || { echo "(no line count for these:)"; grep '^unknown' "$out" | cut -f2- | sed 's/\t/  /'; }
echo "$unreached of $total error sites in src/sources/ never reached by a test"
