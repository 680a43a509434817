#!/bin/sh
# Finds source files that call each other in a loop (a.c uses a function
# b.c defines, and b.c, maybe through others, one of a.c's), from the
# symbol tables of the objects a build left: calls between files should go
# one way (issue 47). A function named in an operations table counts as
# called; a table itself (a registry's list of types) does not. Prints each call that closes a loop, with the names it
# uses; exits 1 when there is one not listed in scripts/call-loops.allow.
# Usage: scripts/call-loops.sh [OBJDIR]
set -eu
objdir=${1:-build/native/obj/src}
allow=$(dirname "$0")/call-loops.allow
[ -d "$objdir" ] || { echo "call-loops.sh: $objdir: no objects (build first)" >&2; exit 2; }
loops=$(find "$objdir" -name '*.o' | sort | xargs nm -A | awk -v dir="$objdir/" '
    {
        f = $1; sub(/:.*/, "", f); sub(dir, "src/", f); sub(/\.o$/, ".c", f)
        if ($2 == "U") use[++n] = f " " $3
        else if (NF == 3 && $2 == "T") def[$3] = f
    }
    END {
        for (i = 1; i <= n; i++) {
            split(use[i], u, " ")
            to = def[u[2]]
            if (to == "" || to == u[1]) continue
            files[u[1]]; files[to]
            if (!((u[1], to) in edge)) edge[u[1], to] = u[2]
            else if (index(" " edge[u[1], to] " ", " " u[2] " ") == 0)
                edge[u[1], to] = edge[u[1], to] " " u[2]
        }
        for (a in files) for (b in files) if ((a, b) in edge) reach[a, b] = 1
        for (k in files) for (a in files) if ((a, k) in reach)
            for (b in files) if ((k, b) in reach) reach[a, b] = 1
        for (a in files) for (b in files)
            if (a != b && (a, b) in edge && (b, a) in reach)
                print "loop: " a " -> " b ": " edge[a, b]
    }' | sort)
[ -z "$loops" ] && exit 0
echo "$loops"
new=$(echo "$loops" | sed 's/^loop: //; s/: .*//' | grep -vxF -f "$allow" || true)
[ -z "$new" ] && exit 0
echo "call-loops.sh: new loops (not in $allow):" >&2
echo "$new" >&2
exit 1
