/* The csv source as spreadsheets and vendor tools write files (issue 26):
 * the device constants the triage needs as columns or as maxclock=HZ, a
 * UTF-8 byte order mark, quoted headers and values, per-CPU ticks. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/source.h"

extern const struct gt_source_type gt_source_csv;

struct opened {
    struct gt_source s;
    struct gt_snapshot snap;
    char path[256];
};

static int open_with(struct opened *o, const char *text, const char *extra, struct gt_diag *d)
{
    const char *dir = getenv("TMPDIR");
    char args[512];
    int fd;

    memset(o, 0, sizeof(*o));
    snprintf(o->path, sizeof(o->path), "%s/gputop-csvi-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(o->path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    snprintf(args, sizeof(args), "%s%s", o->path, extra);
    o->s.type = &gt_source_csv;
    o->s.sys = gt_sys_real();
    gt_catalog_init(&o->s.catalog);
    gt_diag_clear(d);
    if (gt_source_csv.open(&o->s, args, d) < 0) {
        gt_catalog_free(&o->s.catalog);
        unlink(o->path);
        return -1;
    }
    cr_assert_eq(gt_snapshot_init(&o->snap, o->s.catalog.nslots), 0);
    return 0;
}

static void close_opened(struct opened *o)
{
    gt_snapshot_free(&o->snap);
    gt_source_csv.close(&o->s);
    gt_catalog_free(&o->s.catalog);
    unlink(o->path);
}

static double constant(const struct opened *o, const char *name)
{
    int k = gt_catalog_find(&o->s.catalog, name);

    cr_assert_geq(k, 0, "no %s", name);
    cr_assert_eq(o->s.catalog.counters[k].kind, GT_COUNTER_CONSTANT, "%s is no constant", name);
    return o->s.catalog.counters[k].value;
}

static uint64_t delta(const struct opened *o, const char *name, uint32_t inst)
{
    int k = gt_catalog_find(&o->s.catalog, name);

    cr_assert_geq(k, 0, "no %s", name);
    return o->snap.deltas[o->s.catalog.counters[k].slot + inst];
}

/* The kbase source's names beside the guide's tables: the max clock is a
 * constant, the clock cycles are deltas (include/gputop/catalog.h). */
Test(csv_import, device_constants_are_columns)
{
    static const char text[] =
        "interval_ns,MaliGPUCyclesGPUActive,MaliGPUClockCycles,MaliConstantsGPUMaxClockHz,"
        "MaliConstantsL2SliceCount,MaliConstantsBusWidthBits\n"
        "100000000,90000000,95000000,1000000000,2,128\n";
    struct opened o;
    struct gt_diag d;

    cr_assert_eq(open_with(&o, text, ",gpu=G715", &d), 0, "%s", d.msg);
    cr_assert_eq(constant(&o, "MaliConstantsGPUMaxClockHz"), 1e9);
    cr_assert_eq(constant(&o, "MaliConstantsL2SliceCount"), 2);
    cr_assert_eq(gt_source_csv.sample(&o.s, &o.snap, &d), 0, "%s", d.msg);
    cr_assert_eq(delta(&o, "MaliGPUClockCycles", 0), 95000000);
    cr_assert_eq(delta(&o, "MaliGPUCyclesGPUActive", 0), 90000000);
    close_opened(&o);
}

Test(csv_import, maxclock_argument)
{
    static const char text[] = "interval_ns,MaliGPUCyclesGPUActive\n100000000,1\n";
    static const char both[] = "interval_ns,MaliConstantsGPUMaxClockHz\n100000000,900000000\n";
    struct opened o;
    struct gt_diag d;

    cr_assert_eq(open_with(&o, text, ",gpu=G720,maxclock=850000000", &d), 0, "%s", d.msg);
    cr_assert_eq(constant(&o, "MaliConstantsGPUMaxClockHz"), 8.5e8);
    close_opened(&o);
    cr_assert_eq(open_with(&o, text, ",maxclock=fast", &d), -1);
    cr_assert(strstr(d.msg, "maxclock 'fast' is not a clock in Hz"), "%s", d.msg);
    cr_assert_eq(open_with(&o, both, ",gpu=G720,maxclock=850000000", &d), -1);
    cr_assert(strstr(d.msg, "maxclock=850000000 but the file's MaliConstantsGPUMaxClockHz is "
                            "900000000"), "%s", d.msg);
}

/* As a spreadsheet saves it: a byte order mark, every field quoted. */
Test(csv_import, bom_and_quoted_fields)
{
    static const char text[] =
        "\xEF\xBB\xBF\"interval_ns\",\"MaliGPUCyclesGPUActive\", \"MaliConstantsGPUMaxClockHz\"\r\n"
        "\"100000000\",\"12345\",\"1000000000\"\r\n";
    static const char open_quote[] = "interval_ns,\"MaliGPUCyclesGPUActive\n1,2\n";
    struct opened o;
    struct gt_diag d;

    cr_assert_eq(open_with(&o, text, ",gpu=G715", &d), 0, "%s", d.msg);
    cr_assert_eq(constant(&o, "MaliConstantsGPUMaxClockHz"), 1e9);
    cr_assert_eq(gt_source_csv.sample(&o.s, &o.snap, &d), 0, "%s", d.msg);
    cr_assert_eq(delta(&o, "MaliGPUCyclesGPUActive", 0), 12345);
    close_opened(&o);
    cr_assert_eq(open_with(&o, open_quote, "", &d), -1);
    cr_assert(strstr(d.msg, ":1:13: field 2: unterminated quote"), "%s", d.msg);
}

/* A comma inside quotes is part of the field; a quote inside an unquoted
 * field is not a quote: the fields are counted as they are read. */
Test(csv_import, commas_in_quotes_and_stray_quotes)
{
    static const char comma[] = "interval_ns,MaliGPUCyclesGPUActive\n\"1,000\",5\n";
    static const char stray[] = "interval_ns,Mali\"GPU,\"x\n1,2,3\n";
    static const char row[] = "interval_ns,MaliGPUCyclesGPUActive\n1,2\"3,4\"\n";
    struct opened o;
    struct gt_diag d;

    cr_assert_eq(open_with(&o, comma, "", &d), -1);
    cr_assert(strstr(d.msg, ":2:1: field 1 (interval_ns): not an unsigned integer: '1,000'"),
              "%s", d.msg);
    cr_assert_eq(open_with(&o, stray, "", &d), -1);
    cr_assert(strstr(d.msg, ":1:13: field 2: bad column name"), "%s", d.msg);
    cr_assert_eq(open_with(&o, row, "", &d), -1);
    cr_assert(strstr(d.msg, ":2: long row: 3 fields, the header has 2"), "%s", d.msg);
}

/* The cpu source's per-CPU ticks, for the triage's busiest CPU. */
Test(csv_import, per_cpu_ticks)
{
    static const char text[] =
        "interval_ns,CPUCoreTicksUser[0],CPUCoreTicksUser[1],CPUCoreTicksSystem[0],"
        "CPUCoreTicksSystem[1],CPUCoreTicksTotal[0],CPUCoreTicksTotal[1]\n"
        "100000000,9,1,1,0,10,10\n";
    struct opened o;
    struct gt_diag d;
    int k;

    cr_assert_eq(open_with(&o, text, "", &d), 0, "%s", d.msg);
    k = gt_catalog_find(&o.s.catalog, "CPUCoreActivityUser");
    cr_assert_geq(k, 0);
    cr_assert_eq(o.s.catalog.counters[k].kind, GT_COUNTER_RATIO);
    cr_assert_str_eq(o.s.catalog.counters[k].block, "cpu");
    cr_assert_geq(gt_catalog_find(&o.s.catalog, "CPUCoreActivitySystem"), 0);
    cr_assert_eq(gt_source_csv.sample(&o.s, &o.snap, &d), 0, "%s", d.msg);
    cr_assert_eq(delta(&o, "CPUCoreTicksUser", 1), 1);
    close_opened(&o);
}
