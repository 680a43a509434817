#!/usr/bin/env python3
"""Generates src/sources/mali/tables.c, the static Mali counter catalogues.

Usage (from the repository root):

    python3 scripts/gen-mali-tables.py [DIR] > src/sources/mali/tables.c

DIR holds T820.tsv, T830.tsv, G715.tsv and G720.tsv; it defaults to
../shared/reference/mali relative to the repository root. Each TSV has a
header line and the columns

    streamline_name block index hw_name in_guide scale name_source notes

Mapping (one struct gt_counter_def per TSV row, in TSV order):
  name      "Mali" + streamline_name (the guides write $Mali<streamline_name>)
  block     as in the TSV (front-end, tiler, shadercore, memsys, constant)
  index     the integer, or -1 for "-" (constants)
  hw_name   as in the TSV, "" for "-"
  scale     "1" or "-" -> 1; text such as "x1 in gator 8.3.0..8.6.0 / x4 in
            gator 8.7.0..8.8.0" -> the multiplier of the newest gator range
            (the last xN), which current Streamline applies. Rows whose scale
            is not 1 get a comment quoting the TSV text.
  in_guide  1 for "yes", 0 for "no"

Several Streamline names may map to one hardware counter; all are kept. A
streamline_name repeated within one TSV keeps its first row; the repeat is
reported on stderr. Rows with in_guide=yes must have a block and, unless the
block is "constant", an index in 0..127 (0..63 on T820/T830); the script
fails naming file and line otherwise. Malformed rows fail the same way.
Warnings and errors go to stderr; only the C source goes to stdout.
"""
import hashlib
import os
import re
import sys

GPUS = ["T820", "T830", "G715", "G720"]
MAX_INDEX = {"T820": 63, "T830": 63, "G715": 127, "G720": 127}
BLOCKS = ("front-end", "tiler", "shadercore", "memsys", "constant")
COLUMNS = ["streamline_name", "block", "index", "hw_name", "in_guide",
           "scale", "name_source", "notes"]
SCALE_RANGE = re.compile(r"x(\d+(?:\.\d+)?) in gator (\d+(?:\.\d+)*)\.\.(\d+(?:\.\d+)*)")


class DataError(Exception):
    pass


def warn(path, line, msg):
    sys.stderr.write("gen-mali-tables: %s:%d: warning: %s\n" % (path, line, msg))


def version(text):
    return tuple(int(p) for p in text.split("."))


def parse_scale(text):
    """Returns the multiplier for a scale cell, or raises DataError."""
    if text in ("1", "-"):
        return 1.0
    parts = [p.strip() for p in text.split("/")]
    ranges = []
    for part in parts:
        m = SCALE_RANGE.fullmatch(part)
        if not m:
            raise DataError("cannot read scale %r (expected 1, - or "
                            "'xN in gator A..B[ / ...]')" % text)
        ranges.append((version(m.group(3)), float(m.group(1))))
    newest = max(ranges)[1]
    if newest != ranges[-1][1]:
        # The TSVs list ranges oldest first, so the last xN is the newest;
        # if that ever stops being true the rule is ambiguous: stop.
        raise DataError("scale %r: last xN is not the newest gator range" % text)
    return newest


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_double(x):
    r = repr(float(x))
    return r if any(c in r for c in ".e") else r + ".0"


def read_table(path, gpu):
    rows = []
    first_line = {}
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].rstrip("\r").split("\t") if lines else []
    if header[:len(COLUMNS)] != COLUMNS:
        raise DataError("%s:1: unexpected header %r" % (path, header))
    for no, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        cols = line.split("\t")
        where = "%s:%d" % (path, no)
        if len(cols) != len(COLUMNS):
            raise DataError("%s: %d columns, expected %d" % (where, len(cols), len(COLUMNS)))
        name, block, index, hw, in_guide, scale = (c.strip() for c in cols[:6])
        if not re.fullmatch(r"[A-Za-z0-9]+", name):
            raise DataError("%s: bad streamline_name %r" % (where, name))
        if in_guide not in ("yes", "no"):
            raise DataError("%s: %s: in_guide is %r, expected yes or no" % (where, name, in_guide))
        guide = in_guide == "yes"
        if name in first_line:
            warn(path, no, "duplicate streamline_name %s (first at line %d); "
                 "kept the first" % (name, first_line[name]))
            continue
        first_line[name] = no

        if block in ("", "-"):
            raise DataError("%s: %s has no block%s" % (where, name, " (in_guide=yes)" if guide else ""))
        if block not in BLOCKS:
            if guide:
                raise DataError("%s: %s: unknown block %r (in_guide=yes)" % (where, name, block))
            warn(path, no, "%s: unknown block %r" % (name, block))

        if block == "constant":
            if index != "-":
                raise DataError("%s: constant %s has index %r, expected -" % (where, name, index))
            idx = -1
        elif index == "-" or index == "":
            if guide:
                raise DataError("%s: %s (in_guide=yes, block %s) has no index" % (where, name, block))
            warn(path, no, "%s has no index; using -1" % name)
            idx = -1
        else:
            if not re.fullmatch(r"\d+", index):
                raise DataError("%s: %s: index %r is not an integer" % (where, name, index))
            idx = int(index)
            if idx > MAX_INDEX[gpu]:
                msg = "%s: index %d outside 0..%d for %s" % (name, idx, MAX_INDEX[gpu], gpu)
                if guide:
                    raise DataError("%s: %s (in_guide=yes)" % (where, msg))
                warn(path, no, msg)

        if hw == "-":
            hw = ""
        elif not re.fullmatch(r"[A-Za-z0-9_]+", hw):
            raise DataError("%s: %s: bad hw_name %r" % (where, name, hw))

        if scale == "-" and block != "constant":
            warn(path, no, "%s: scale '-' on a non-constant row; using 1" % name)
        try:
            value = parse_scale(scale)
        except DataError as e:
            raise DataError("%s: %s: %s" % (where, name, e))

        rows.append({"name": "Mali" + name, "block": block, "index": idx,
                     "hw": hw, "scale": value, "guide": guide,
                     "scale_text": scale})
    return rows


def display_dir(src, root):
    """The input directory as written in the header: relative to the
    repository root when it is beside or inside it (so the output does not
    depend on the caller's working directory), else absolute."""
    path = os.path.abspath(src)
    if os.path.commonpath([path, os.path.dirname(root)]) == os.path.dirname(root):
        return os.path.relpath(path, root)
    return path


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        sys.stderr.write(__doc__)
        return 2
    src = argv[1] if len(argv) == 2 else os.path.join(root, "..", "shared", "reference", "mali")

    tables, digests = {}, {}
    try:
        for gpu in GPUS:
            path = os.path.join(src, gpu + ".tsv")
            with open(path, "rb") as f:
                digests[gpu] = hashlib.sha256(f.read()).hexdigest()
            tables[gpu] = read_table(path, gpu)
    except (OSError, UnicodeDecodeError, DataError) as e:
        sys.stderr.write("gen-mali-tables: error: %s\n" % e)
        return 1

    out = []
    w = out.append
    w("/* GENERATED FILE - DO NOT EDIT BY HAND.\n")
    w(" *\n")
    shown = display_dir(src, root)
    w(" * Generated by scripts/gen-mali-tables.py from the Mali counter TSVs in\n")
    w(" * %s%s:\n" % (shown, "" if os.path.isabs(shown) else " (relative to the repository root)"))
    for gpu in GPUS:
        w(" *   %s.tsv  sha256 %s\n" % (gpu, digests[gpu]))
    w(" * Regenerate with:\n")
    w(" *   python3 scripts/gen-mali-tables.py ../shared/reference/mali > src/sources/mali/tables.c\n")
    w(" *\n")
    w(" * One row per TSV row: Streamline name (without '$'), block, index in the\n")
    w(" * block (-1 for constants), hardware counter name, scale (multiplier of the\n")
    w(" * newest gator range), in_guide. Rows with a scale other than 1 quote the\n")
    w(" * TSV's scale text. */\n")
    w("#include <ctype.h>\n\n")
    w('#include "gputop/catalog.h"\n')
    for gpu in GPUS:
        w("\n/* %s: %d rows, %d used by the guide. */\n"
          % (gpu, len(tables[gpu]), sum(r["guide"] for r in tables[gpu])))
        w("static const struct gt_counter_def defs_%s[] = {\n" % gpu)
        for r in tables[gpu]:
            line = "    { %s, %s, %d, %s, %s, %d }," % (
                c_string(r["name"]), c_string(r["block"]), r["index"],
                c_string(r["hw"]), c_double(r["scale"]), int(r["guide"]))
            if r["scale"] != 1.0:
                line += " /* scale: %s */" % r["scale_text"].replace("*/", "* /")
            w(line + "\n")
        w("};\n")
    w("\n#define NDEFS(a) (sizeof(a) / sizeof((a)[0]))\n\n")
    w("static const struct gt_counter_table tables[] = {\n")
    for gpu in GPUS:
        w("    { %s, defs_%s, NDEFS(defs_%s) },\n" % (c_string(gpu), gpu, gpu))
    w("};\n\n")
    w("const struct gt_counter_table *gt_counter_table_at(size_t i)\n"
      "{\n"
      "    return i < NDEFS(tables) ? &tables[i] : NULL;\n"
      "}\n\n")
    w("/* Exact, case-insensitive match on the table name (\"T820\", \"g720\"). */\n"
      "const struct gt_counter_table *gt_counter_table_find(const char *gpu)\n"
      "{\n"
      "    size_t i;\n\n"
      "    for (i = 0; gpu != NULL && i < NDEFS(tables); i++) {\n"
      "        const char *a = tables[i].gpu, *b = gpu;\n\n"
      "        while (*a != '\\0' && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {\n"
      "            a++;\n"
      "            b++;\n"
      "        }\n"
      "        if (*a == '\\0' && *b == '\\0')\n"
      "            return &tables[i];\n"
      "    }\n"
      "    return NULL;\n"
      "}\n")
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
