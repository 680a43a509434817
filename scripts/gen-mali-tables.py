#!/usr/bin/env python3
"""Generates src/sources/mali/tables.c, the static Mali counter catalogues.

Usage (from the repository root):

    python3 scripts/gen-mali-tables.py [DIR] > src/sources/mali/tables.c

DIR holds one TSV per GPU (<GPU>.tsv for every GPU in GPUS below); it
defaults to src/sources/mali/tables in the repository, where SOURCES.md says where each
table's facts come from. Each TSV has a header line and the columns

    streamline_name block index hw_name in_guide scale name_source notes

Mapping (one row per TSV row, in TSV order):
  name      "Mali" + streamline_name (the guides write $Mali<streamline_name>)
  block     as in the TSV (front-end, tiler, shadercore, memsys, constant)
  index     the integer, or -1 for "-" (constants)
  hw_name   as in the TSV, "" for "-"
  scale     "1" or "-" -> 1; text such as "x1 in gator 8.3.0..8.6.0 / x4 in
            gator 8.7.0..8.8.0" -> the multiplier of the newest gator range
            (the last xN), which current Streamline applies. Rows whose scale
            is not 1 get a comment quoting the TSV text.
  in_guide  1 for "yes", 0 for "no"

The output is compact, as the static phone binary has a size budget: every
name is stored once in one string pool (rows hold 16-bit offsets), a row is
8 bytes, and GPUs whose TSVs have the same content share one row array.

Several Streamline names may map to one hardware counter; all are kept. A
streamline_name repeated within one TSV keeps its first row; the repeat is
reported on stderr. Rows with in_guide=yes must have a block and, unless the
block is "constant", an index in 0..127 (0..63 on GPUs with 64 values a
block); the script fails naming file and line otherwise. Malformed rows fail
the same way. Warnings and errors go to stderr; only the C source goes to
stdout.
"""
import hashlib
import os
import re
import sys

# Midgard, Bifrost and Valhall up to G710 have 64 values a block; G715 on 128.
GPUS = ["T760", "T820", "T830", "T860", "T880",
        "G52", "G76", "G57", "G77", "G68", "G78",
        "G310", "G510", "G610", "G710",
        "G715", "G720", "G625", "G725"]
WIDE = ("G715", "G720", "G625", "G725")
MAX_INDEX = {g: 127 if g in WIDE else 63 for g in GPUS}
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


class Pool:
    """Every string once, NUL-terminated, at a 16-bit offset."""

    def __init__(self):
        self.offsets, self.parts, self.size = {}, [], 0

    def add(self, text):
        if text not in self.offsets:
            self.offsets[text] = self.size
            self.parts.append(text)
            self.size += len(text.encode()) + 1
            if self.size > 0xFFFF:
                raise DataError("string pool past 64 KiB: widen the offsets")
        return self.offsets[text]


def packed_tables(tables, digests):
    """Row arrays shared by GPUs with identical TSVs: (owner, rows) in GPU
    order, and gpu -> owner."""
    owner_of, first = {}, {}
    for gpu in GPUS:
        owner_of[gpu] = first.setdefault(digests[gpu], gpu)
    return [(g, tables[g]) for g in GPUS if owner_of[g] == g], owner_of


def emit(tables, digests, shown):
    out = []
    w = out.append
    pool, scales = Pool(), [1.0]
    arrays, owner_of = packed_tables(tables, digests)
    for _, rows in arrays:
        for r in rows:
            pool.add(r["name"])
            pool.add(r["hw"])
            if r["scale"] not in scales:
                scales.append(r["scale"])
    if len(scales) > 127:
        raise DataError("more than 127 distinct scales")

    w("/* GENERATED FILE - DO NOT EDIT BY HAND.\n")
    w(" *\n")
    w(" * Generated by scripts/gen-mali-tables.py from the Mali counter TSVs in\n")
    w(" * %s%s:\n" % (shown, "" if os.path.isabs(shown) else " (relative to the repository root)"))
    for gpu in GPUS:
        w(" *   %-9s sha256 %s\n" % (gpu + ".tsv", digests[gpu]))
    w(" * src/sources/mali/tables/SOURCES.md says where each table's facts come from.\n")
    w(" * Regenerate with:\n")
    w(" *   python3 scripts/gen-mali-tables.py > src/sources/mali/tables.c\n")
    w(" *\n")
    w(" * Compact for the static phone binary: names live once in one pool; a row\n")
    w(" * is { name offset, hw_name offset, block, index (255: none), scale id,\n")
    w(" * in_guide }; GPUs with identical TSVs share a row array. */\n")
    w("#include <ctype.h>\n#include <stdint.h>\n\n")
    w('#include "gputop/catalog.h"\n\n')
    w("struct packed_def {\n    uint16_t name, hw;\n    uint8_t block, index, scale, in_guide;\n};\n\n")
    w("static const char *const blocks[] = {\n")
    for b in BLOCKS:
        w("    %s,\n" % c_string(b))
    w("};\n\n")
    w("static const double scales[] = {")
    w(", ".join(c_double(x) for x in scales))
    w("};\n\n")
    w("static const char pool[] =\n")
    for text in pool.parts:
        w("    /* %5d */ %s \"\\0\"\n" % (pool.offsets[text], c_string(text)))
    w("    ;\n")
    for gpu, rows in arrays:
        sharers = [g for g in GPUS if owner_of[g] == gpu]
        w("\n/* %s: %d rows, %d used by the guide. */\n"
          % (" = ".join(sharers), len(rows), sum(r["guide"] for r in rows)))
        w("static const struct packed_def defs_%s[] = {\n" % gpu)
        for r in rows:
            line = "    { %5d, %5d, %d, %3d, %d, %d }, /* %s %s */" % (
                pool.offsets[r["name"]], pool.offsets[r["hw"]], BLOCKS.index(r["block"]),
                255 if r["index"] < 0 else r["index"], scales.index(r["scale"]),
                int(r["guide"]), r["name"], r["hw"] or "-")
            if r["scale"] != 1.0:
                line += " /* scale: %s */" % r["scale_text"].replace("*/", "* /")
            w(line + "\n")
        w("};\n")
    w("\n#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))\n\n")
    w("static void get_def(const struct gt_counter_table *t, size_t i, struct gt_counter_def *out)\n"
      "{\n"
      "    const struct packed_def *p = (const struct packed_def *)t->packed + i;\n\n"
      "    out->name = pool + p->name;\n"
      "    out->block = blocks[p->block];\n"
      "    out->index = p->index == 255 ? -1 : p->index;\n"
      "    out->hw_name = pool + p->hw;\n"
      "    out->scale = scales[p->scale];\n"
      "    out->in_guide = p->in_guide;\n"
      "}\n\n")
    w("static const struct gt_counter_table tables[] = {\n")
    for gpu in GPUS:
        o = owner_of[gpu]
        w("    { %s, NULL, NELEMS(defs_%s), defs_%s, get_def },\n" % (c_string(gpu), o, o))
    w("};\n\n")
    w("const struct gt_counter_table *gt_counter_table_at(size_t i)\n"
      "{\n"
      "    return i < NELEMS(tables) ? &tables[i] : NULL;\n"
      "}\n\n")
    w("/* Exact, case-insensitive match on the table name (\"T820\", \"g720\"). */\n"
      "const struct gt_counter_table *gt_counter_table_find(const char *gpu)\n"
      "{\n"
      "    size_t i;\n\n"
      "    for (i = 0; gpu != NULL && i < NELEMS(tables); i++) {\n"
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
    return "".join(out)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        sys.stderr.write(__doc__)
        return 2
    src = argv[1] if len(argv) == 2 else os.path.join(root, "src", "sources", "mali", "tables")

    tables, digests = {}, {}
    try:
        for gpu in GPUS:
            path = os.path.join(src, gpu + ".tsv")
            with open(path, "rb") as f:
                digests[gpu] = hashlib.sha256(f.read()).hexdigest()
            tables[gpu] = read_table(path, gpu)
        text = emit(tables, digests, display_dir(src, root))
    except (OSError, UnicodeDecodeError, DataError) as e:
        sys.stderr.write("gen-mali-tables: error: %s\n" % e)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
