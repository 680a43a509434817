/* The csv source: a good file through the engine gives hand-computed
 * values; every malformed input fails at open naming FILE:LINE[:COL]. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/engine.h"
#include "gputop/source.h"

extern const struct gt_source_type gt_source_csv;

/* ---- helpers ---- */

static void temp_file(char *path, size_t len, const char *text, size_t n)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, len, "%s/gputop-csv-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp %s: %s", path, strerror(errno));
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

static int open_csv(struct gt_source *s, const char *args, struct gt_diag *d)
{
    memset(s, 0, sizeof(*s));
    s->type = &gt_source_csv;
    s->sys = gt_sys_real();
    gt_catalog_init(&s->catalog);
    gt_diag_clear(d);
    if (gt_source_csv.open(s, args, d) < 0) {
        gt_catalog_free(&s->catalog);
        return -1;
    }
    return 0;
}

static void close_csv(struct gt_source *s)
{
    gt_source_csv.close(s);
    gt_catalog_free(&s->catalog);
}

/* Opens text (n bytes) as a CSV file with extra args; 0 or -1. */
static int open_text(struct gt_source *s, char *path, size_t len, const char *text, size_t n,
                     const char *extra, struct gt_diag *d)
{
    char args[512];

    temp_file(path, len, text, n);
    snprintf(args, sizeof(args), "%s%s", path, extra);
    return open_csv(s, args, d);
}

/* ---- a good file through the engine ---- */

static const char good_csv[] =
    "interval_ns,MaliGPUCyclesGPUActive,"
    "MaliShaderCoreCyclesFragmentActive[0],MaliShaderCoreCyclesFragmentActive[1],"
    "MaliShaderCoreCyclesFragmentActive[2],MaliShaderCoreCyclesFragmentActive[3],"
    "MaliExternalBusBeatsReadBeats[1],MaliExternalBusBeatsReadBeats[0],"
    "MaliConstantsShaderCoreCount,CPUTicksUser[0],CPUTicksUser[1],"
    "CPUTicksTotal[0],CPUTicksTotal[1],MaliJobManagerPixels\n"
    "100000000,1000,100,200,300,400,7,5,4,30,10,100,100,3\n"
    "50000000,2000,50,50,50,50,0,18446744073709551615,4,0,0,0,0,0\n";

static const char layout_text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily mali-t8xx\n"
    "aggregate shadercore sum\naggregate memsys sum\n"
    "section S\n  key x\n  group G\n"
    "    metric Fragment cycles\n      expr $MaliShaderCoreCyclesFragmentActive\n      show count\n"
    "    metric Fragment utilization\n"
    "      expr ($MaliShaderCoreCyclesFragmentActive / $MaliConstantsShaderCoreCount) /"
    " $MaliGPUCyclesGPUActive * 100\n      show percent\n"
    "    metric Read beats\n      expr $MaliExternalBusBeatsReadBeats\n      show count\n"
    "    metric CPU\n      expr $CPUActivityUser.Cluster[0..N]\n      show percent\n"
    "    metric Pixels\n      expr $MaliJobManagerPixels\n      show count\n"
    "    metric Slices\n      expr $MaliConstantsL2SliceCount\n      show value\n";

static void check_good_file(const char *text, size_t n)
{
    struct gt_source s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    struct gt_diag d;
    char path[256];
    double out[6];
    size_t i;

    cr_assert_eq(open_text(&s, path, sizeof(path), text, n, "", &d), 0, "%s", d.msg);
    cr_assert_str_eq(s.info.layout, "mali-t8xx");
    cr_assert_str_eq(s.info.family, "mali-t8xx");
    cr_assert_str_eq(s.info.gpu, "Mali-T820/T830");
    cr_assert_str_eq(s.info.device, path);
    cr_assert_eq(s.info.shader_cores, 4);
    cr_assert_eq(s.info.l2_slices, 2);
    cr_assert_eq(s.info.self_paced, 1);
    cr_assert(strstr(s.info.detail, "2 rows"), "%s", s.info.detail);
    l = gt_layout_parse("t.layout", layout_text, strlen(layout_text), &d);
    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    e = gt_engine_new(l, &s.catalog);
    cr_assert_not_null(e);
    for (i = 0; i < gt_engine_nmetrics(e); i++)
        cr_assert_null(gt_engine_unavailable(e, i), "metric %zu: %s", i, gt_engine_unavailable(e, i));
    cr_assert_eq(gt_snapshot_init(&snap, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_csv.start(&s, &d), 0);

    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 0, "%s", d.msg);
    cr_assert_eq(snap.t_start_ns, 0);
    cr_assert_eq(snap.t_end_ns, 100000000ull);
    cr_assert_eq(snap.nsamples, 1);
    gt_engine_eval(e, &snap, out);
    cr_assert_eq(out[0], 1000);                    /* 100+200+300+400 */
    cr_assert_eq(out[1], 1000.0 / 4 / 1000 * 100); /* 25 % */
    cr_assert_eq(out[2], 12);                      /* slices 5 + 7 */
    cr_assert_eq(out[3], 40.0 / 200 * 100);        /* user ticks over total, both clusters */
    cr_assert_eq(out[4], 3);                       /* as given: an export holds the x1024 */
    cr_assert_eq(out[5], 2);                       /* derived from the slice instances */

    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 0, "%s", d.msg);
    cr_assert_eq(snap.t_start_ns, 100000000ull);
    cr_assert_eq(snap.t_end_ns, 150000000ull);
    gt_engine_eval(e, &snap, out);
    cr_assert_eq(out[0], 200);
    cr_assert_eq(out[1], 200.0 / 4 / 2000 * 100);
    cr_assert_eq(out[2], (double)UINT64_MAX);
    cr_assert(isnan(out[3]));                      /* 0 / 0 ticks: no data */
    cr_assert_eq(out[4], 0);

    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 1);
    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 1);
    gt_snapshot_free(&snap);
    gt_engine_free(e);
    gt_layout_free(l);
    close_csv(&s);
    unlink(path);
}

Test(csv, good_file_gives_hand_computed_values)
{
    check_good_file(good_csv, strlen(good_csv));
}

/* CRLF line ends, blanks around fields and empty lines change nothing. */
Test(csv, crlf_blanks_and_empty_lines_are_tolerated)
{
    char text[2048];
    size_t i, n = 0;

    for (i = 0; good_csv[i]; i++) {
        if (good_csv[i] == '\n') {
            memcpy(text + n, "\r\n\r\n", 4);
            n += 4;
        } else if (good_csv[i] == ',') {
            memcpy(text + n, " ,\t", 3);
            n += 3;
        } else {
            text[n++] = good_csv[i];
        }
    }
    check_good_file(text, n);
}

Test(csv, catalogue_layout_follows_the_names)
{
    static const char text[] = "interval_ns,MaliCoreTextureCyclesTextureActive[0],"
                               "MaliCoreTextureCyclesTextureActive[1],MaliGPUCyclesGPUActive\n1,2,3,4\n";
    struct gt_source s;
    struct gt_diag d;
    char path[256];
    int k;

    cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), "", &d), 0, "%s", d.msg);
    cr_assert_str_eq(s.info.layout, "mali-g720");
    cr_assert_str_eq(s.info.gpu, "Mali-G720");
    cr_assert_eq(s.info.shader_cores, 2);
    k = gt_catalog_find(&s.catalog, "MaliCoreTextureCyclesTextureActive");
    cr_assert_geq(k, 0);
    cr_assert_str_eq(s.catalog.counters[k].block, "shadercore");
    cr_assert_eq(s.catalog.counters[k].instances, 2);
    cr_assert_str_eq(s.catalog.counters[k].hw_name, "TEX_TEXP_CLK_ACTIVE");
    k = gt_catalog_find(&s.catalog, "MaliConstantsShaderCoreCount");
    cr_assert_geq(k, 0);
    cr_assert_eq(s.catalog.counters[k].value, 2);
    close_csv(&s);
    unlink(path);
}

Test(csv, names_every_gpu_has_leave_the_layout_open)
{
    static const char text[] = "interval_ns,MaliGPUCyclesGPUActive\n1,2\n";
    struct gt_source s;
    struct gt_diag d;
    char path[256];

    cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), "", &d), 0, "%s", d.msg);
    cr_assert_str_eq(s.info.layout, "");
    cr_assert_str_eq(s.info.gpu, "Mali-T760/T820/T830/T860/T880/G52/G76/G57/G77/G68/G78/G310");
    cr_assert(strstr(s.info.detail, "gpu=NAME"), "%s", s.info.detail);
    close_csv(&s);
    unlink(path);
    cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), ",gpu=G715", &d), 0, "%s", d.msg);
    cr_assert_str_eq(s.info.layout, "mali-g715");
    cr_assert_str_eq(s.info.gpu, "Mali-G715");
    close_csv(&s);
    unlink(path);
}

/* Every GPU with a counter table gets the layout kbase gives it (issue 30's
 * families too: before, a CSV of a G52, G78 or G710 named no layout), by
 * gpu= or by names only its family has. */
Test(csv, every_table_gets_its_family_layout)
{
    static const char text[] = "interval_ns,MaliGPUCyclesGPUActive\n1,2\n";
    static const char bifrost[] = "interval_ns,MaliGPUCyclesGPUActive,"
                                  "MaliShaderWarpsPartialFragmentWarps\n1,2,3\n";
    static const struct { const char *gpu, *layout; } cases[] = {
        { "T760", "mali-t8xx" },       { "T880", "mali-t8xx" },
        { "G52", "mali-bifrost" },     { "G76", "mali-bifrost" },
        { "G57", "mali-valhall-jm" },  { "G77", "mali-valhall-jm" },
        { "G68", "mali-valhall-jm" },  { "G78", "mali-valhall-jm" },
        { "G310", "mali-valhall-csf" }, { "G510", "mali-valhall-csf" },
        { "G610", "mali-valhall-csf" }, { "G710", "mali-valhall-csf" },
        { "G725", "mali-g720" },       { "G625", "mali-g720" },
    };
    struct gt_source s;
    struct gt_diag d;
    char path[256], args[32];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(args, sizeof(args), ",gpu=%s", cases[i].gpu);
        cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), args, &d), 0, "%s",
                     d.msg);
        cr_expect_str_eq(s.info.layout, cases[i].layout, "gpu=%s", cases[i].gpu);
        close_csv(&s);
        unlink(path);
    }
    cr_assert_eq(open_text(&s, path, sizeof(path), bifrost, strlen(bifrost), "", &d), 0, "%s",
                 d.msg);
    cr_expect_str_eq(s.info.layout, "mali-bifrost");
    cr_expect_str_eq(s.info.gpu, "Mali-G52/G76");
    close_csv(&s);
    unlink(path);
}

Test(csv, cpu_only_file)
{
    static const char text[] = "interval_ns,CPUTicksSystem,CPUTicksTotal,CyclesCPUCycles\n10,1,4,99\n";
    struct gt_source s;
    struct gt_snapshot snap;
    struct gt_diag d;
    char path[256];
    int k;

    cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), "", &d), 0, "%s", d.msg);
    cr_assert_str_eq(s.info.layout, "");
    k = gt_catalog_find(&s.catalog, "CPUActivitySystem");
    cr_assert_geq(k, 0);
    cr_assert_eq(s.catalog.counters[k].kind, GT_COUNTER_RATIO);
    cr_assert_str_eq(s.catalog.counters[k].block, "cluster");
    cr_assert_lt(gt_catalog_find(&s.catalog, "CPUActivityUser"), 0);
    cr_assert_eq(gt_snapshot_init(&snap, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 0);
    k = gt_catalog_find(&s.catalog, "CyclesCPUCycles");
    cr_assert_eq(snap.deltas[s.catalog.counters[k].slot], 99);
    gt_snapshot_free(&snap);
    close_csv(&s);
    unlink(path);
}

/* ---- errors ---- */

#define HDR "interval_ns,MaliGPUCyclesGPUActive"
#define FRAG "MaliShaderCoreCyclesFragmentActive"

struct bad_case {
    const char *text;
    const char *where;      /* "LINE" or "LINE:COL" after FILE:, "" for none */
    const char *what;
};

static const struct bad_case bad_cases[] = {
    { "", "", "empty file" },
    { "\n\r\n\n", "", "empty file" },
    { "interval,MaliGPUCyclesGPUActive\n1,2\n", "1:1", "first column must be 'interval_ns', found 'interval'" },
    { "MaliGPUCyclesGPUActive\n1\n", "1:1", "first column must be 'interval_ns'" },
    { "interval_ns\n1\n", "1", "no counter columns" },
    { HDR "\n", "1", "no data rows" },
    { HDR "\n\n\n", "3", "no data rows" },
    { "interval_ns,MaliGPUCyclesGPUActiv\n1,2\n", "1:13",
      "unknown counter 'MaliGPUCyclesGPUActiv' (did you mean 'MaliGPUCyclesGPUActive'?)" },
    { "interval_ns,maligpucyclesgpuactive\n1,2\n", "1:13", "did you mean 'MaliGPUCyclesGPUActive'" },
    { "interval_ns,Bogus\n1,2\n", "1:13", "unknown counter 'Bogus'" },
    { "interval_ns,CPUActivityUser\n1,2\n", "1:13", "computed from the CPUTicks" },
    { HDR ",MaliGPUCyclesGPUActive\n1,2,3\n", "1:36",
      "duplicate column 'MaliGPUCyclesGPUActive' (fields 2 and 3)" },
    { "interval_ns," FRAG "[0]," FRAG "[1]," FRAG "[0]\n1,2,3,4\n", "1:89",
      "duplicate column '" FRAG "[0]' (fields 2 and 4)" },
    { "interval_ns," FRAG "[0]," FRAG "[2]\n1,2,3\n", "1:51",
      "instance gap: '" FRAG "[2]' is given but '" FRAG "[1]' is not" },
    { "interval_ns," FRAG "[1]\n1,2\n", "1:13", "instance gap: '" FRAG "[1]' is given but '" FRAG "[0]'" },
    { "interval_ns," FRAG "[0]," FRAG "\n1,2,3\n", "1:51", "both with and without an instance index" },
    { "interval_ns,MaliConstantsShaderCoreCount[0]\n1,2\n", "1:13", "takes no instance index" },
    { "interval_ns,$MaliGPUCyclesGPUActive\n1,2\n", "1:13", "without '$'" },
    { "interval_ns," FRAG "[a]\n1,2\n", "1:13", "bad instance index" },
    { "interval_ns," FRAG "[]\n1,2\n", "1:13", "bad column name" },
    { "interval_ns," FRAG "[0\n1,2\n", "1:13", "bad column name" },
    { "interval_ns," FRAG "[5000]\n1,2\n", "1:13", "instance index too large" },
    { "interval_ns,Mali GPU\n1,2\n", "1:13", "bad column name" },
    { "interval_ns,,MaliGPUCyclesGPUActive\n1,2,3\n", "1:13", "field 2: empty column name" },
    { HDR ",\n1,2,3\n", "1:36", "field 3: empty column name" },
    { HDR "\n1,2\n1\n", "3", "short row: 1 fields, the header has 2" },
    { HDR "\n1,2,3\n", "2", "long row: 3 fields, the header has 2" },
    { HDR "\n1,2x\n", "2:3", "field 2 (MaliGPUCyclesGPUActive): not an unsigned integer: '2x'" },
    { HDR "\n1,+2\n", "2:3", "not an unsigned integer" },
    { HDR "\n1,0x10\n", "2:3", "not an unsigned integer" },
    { HDR "\n1,2.5\n", "2:3", "not an unsigned integer" },
    { HDR "\n1,-5\n", "2:3", "negative number" },
    { HDR "\n1,18446744073709551616\n", "2:3", "out of range" },
    { HDR "\n1,99999999999999999999999\n", "2:3", "out of range" },
    { HDR "\n1,\n", "2:3", "empty field" },
    { HDR "\n1, \n", "2:4", "empty field" },
    { HDR "\nx,1\n", "2:1", "field 1 (interval_ns): not an unsigned integer: 'x'" },
    { HDR "\n1,1\n\n\n1,x\n", "5:3", "not an unsigned integer" },
    { HDR ",MaliConstantsShaderCoreCount\n1,1,4\n1,1,4\n1,1,5\n", "4:5",
      "constant MaliConstantsShaderCoreCount is 5 here but 4 in the first row" },
    { HDR "\n18446744073709551615,1\n1,1\n", "3", "more than 2^64-1 ns" },
    { "interval_ns,CPUTicksUser[0],CPUTicksUser[1],CPUTicksTotal\n1,2,3,4\n", "1",
      "CPUTicksUser has 2 instances but CPUTicksTotal has 1" },
};

static void check_error(const char *text, size_t n, const char *where, const char *what)
{
    struct gt_source s;
    struct gt_diag d;
    char path[256], prefix[300];

    cr_assert_eq(open_text(&s, path, sizeof(path), text, n, "", &d), -1, "accepted: %s", text);
    snprintf(prefix, sizeof(prefix), "%s%s%s: ", path, where[0] ? ":" : "", where);
    cr_assert(strncmp(d.msg, prefix, strlen(prefix)) == 0, "want '%s...': %s", prefix, d.msg);
    cr_assert(strstr(d.msg, what), "want '%s': %s", what, d.msg);
    unlink(path);
}

Test(csv, every_error_names_file_and_line)
{
    size_t i;

    for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
        check_error(bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].where,
                    bad_cases[i].what);
}

Test(csv, nul_bytes_are_refused)
{
    static const char header_nul[] = "interval_ns,Mali\0GPU\n1,2\n";
    static const char row_nul[] = HDR "\n1,1\0\n";

    check_error(header_nul, sizeof(header_nul) - 1, "1:13", "bad column name");
    check_error(row_nul, sizeof(row_nul) - 1, "2:3", "not an unsigned integer");
}

Test(csv, overlong_line_is_refused)
{
    size_t n = (5u << 20), h = strlen(HDR "\n1,");
    char *text = malloc(n + 1);

    memcpy(text, HDR "\n1,", h);
    memset(text + h, '1', n - h);
    check_error(text, n, "2", "line longer than");
    free(text);
}

Test(csv, largest_value_is_accepted)
{
    static const char text[] = HDR "\n18446744073709551615,18446744073709551615\n";
    struct gt_source s;
    struct gt_snapshot snap;
    struct gt_diag d;
    char path[256];

    cr_assert_eq(open_text(&s, path, sizeof(path), text, strlen(text), "", &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&snap, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 0);
    cr_assert_eq(snap.deltas[0], UINT64_MAX);
    cr_assert_eq(snap.t_end_ns, UINT64_MAX);
    gt_snapshot_free(&snap);
    close_csv(&s);
    unlink(path);
}

Test(csv, bad_arguments)
{
    struct gt_source s;
    struct gt_diag d;
    char path[256];

    cr_assert_eq(open_csv(&s, "", &d), -1);
    cr_assert(strstr(d.msg, "no file given"), "%s", d.msg);
    cr_assert_eq(open_csv(&s, "/nonexistent-gputop.csv", &d), -1);
    cr_assert(strstr(d.msg, "/nonexistent-gputop.csv: No such file"), "%s", d.msg);
    cr_assert_eq(open_csv(&s, "/x.csv,speed=2", &d), -1);
    cr_assert(strstr(d.msg, "no option 'speed'"), "%s", d.msg);
    cr_assert_eq(open_text(&s, path, sizeof(path), HDR "\n1,1\n", strlen(HDR) + 5, ",gpu=G999", &d), -1);
    cr_assert(strstr(d.msg, "unknown gpu 'G999' (known: T760, T820, T830, T860, T880, G52, G76, G57, G77, G68, G78, G310, G510, G610, G710, G715, G720, G625, G725, mips-cm, gfx1151)"), "%s", d.msg);
    unlink(path);
}

/* ---- values as the vendor tools report them ---- */

/* One G720 interval as Streamline exports it: FRAG_SHADER_THREADS already
 * carries the tool's x4 (reference/mali/G720.tsv), so the file says
 * 8192000 fragment threads where the hardware counted 2048000. */
static const char g720_export[] =
    "interval_ns,MaliShaderThreadsFragmentThreads[0],MaliGPUTasksMainPhaseTasks,"
    "MaliShaderCoreCyclesMainPhaseActive[0],MaliShaderWarpsFragmentWarps[0]\n"
    "100000000,8192000,1000,4096000,4096000\n";

static size_t metric_by_ref(const struct gt_layout *l, const char *ref)
{
    size_t i;

    for (i = 0; i < l->nmetrics; i++)
        if (l->metrics[i].ref && strcmp(l->metrics[i].ref, ref) == 0)
            return i;
    cr_assert_fail("no metric %s in %s", ref, l->name);
    return 0;
}

/* Evaluates the G720 export opened with extra arguments; out gets the
 * three fragment metrics the vendor scale changes. */
static void g720_fragment_metrics(const char *extra, double out[3])
{
    struct gt_source s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    struct gt_diag d;
    char path[256];
    double *vals;

    cr_assert_eq(open_text(&s, path, sizeof(path), g720_export, strlen(g720_export), extra, &d),
                 0, "%s", d.msg);
    l = gt_layout_load("mali-g720", &d);
    cr_assert_not_null(l, "%s", d.msg);
    e = gt_engine_new(l, &s.catalog);
    cr_assert_not_null(e);
    vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    cr_assert_eq(gt_snapshot_init(&snap, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_csv.sample(&s, &snap, &d), 0, "%s", d.msg);
    gt_engine_eval(e, &snap, vals);
    out[0] = vals[metric_by_ref(l, "4.5.3")];    /* Fragments per pixel */
    out[1] = vals[metric_by_ref(l, "5.2.2")];    /* Average cycles per fragment thread */
    out[2] = vals[metric_by_ref(l, "6.3.2")];    /* Fragment warp occupancy */
    free(vals);
    gt_snapshot_free(&snap);
    gt_engine_free(e);
    gt_layout_free(l);
    close_csv(&s);
    unlink(path);
}

/* Imported values are taken as given: the G720 guide's expressions on the
 * file's numbers, worked out by hand. */
Test(csv, exported_values_are_taken_as_given)
{
    double m[3];

    g720_fragment_metrics(",gpu=G720", m);
    /* 4.5.3: threads / (main phase tasks * 4096) = 8192000 / 4096000 */
    cr_assert_eq(m[0], 2.0);
    /* 5.2.2: main phase active cycles / threads = 4096000 / 8192000 */
    cr_assert_eq(m[1], 0.5);
    /* 6.3.2: threads / (warps * 16) * 100 = 8192000 / 65536000 * 100 */
    cr_assert_eq(m[2], 12.5);
}

/* With raw the file holds hardware deltas, so the vendor scale (x4 on
 * FRAG_SHADER_THREADS) is applied: 8192000 raw threads are 32768000. */
Test(csv, raw_values_get_the_vendor_scale)
{
    double m[3];

    g720_fragment_metrics(",raw,gpu=G720", m);
    cr_assert_eq(m[0], 8.0);         /* 32768000 / 4096000 */
    cr_assert_eq(m[1], 0.125);       /* 4096000 / 32768000 */
    cr_assert_eq(m[2], 50.0);        /* 32768000 / 65536000 * 100 */
}

Test(csv, raw_is_a_flag_after_the_file)
{
    struct gt_source s;
    struct gt_diag d;
    char path[256];

    cr_assert_eq(open_text(&s, path, sizeof(path), HDR "\n1,1\n", strlen(HDR) + 5, ",fast", &d), -1);
    cr_assert(strstr(d.msg, "csv: unknown option 'fast'"), "%s", d.msg);
    unlink(path);
    cr_assert_eq(open_text(&s, path, sizeof(path), HDR "\n1,1\n", strlen(HDR) + 5, ",raw", &d), 0,
                 "%s", d.msg);
    cr_assert_str_eq(s.info.device, path);
    close_csv(&s);
    unlink(path);
}

/* ---- the binary, as a user runs it ---- */

static const char *gputop_bin(void)
{
    const char *b = getenv("GPUTOP_BIN");

    return b ? b : "build/native/gputop";
}

/* Runs gputop with args; returns its standard output, *status its exit. */
static char *run_gputop(const char *args, int *status)
{
    char cmd[1024], chunk[4096], *buf = NULL;
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    *status = pclose(p);
    fclose(m);
    return buf;
}

/* Each row's time_s is the end of its interval: the sum of the intervals
 * so far (issue 13 item 2: 0.1, 0.2, 0.5, 0.9 instead). */
Test(csv, batch_times_are_the_running_sum_of_intervals, .timeout = 60)
{
    static const char text[] = HDR "\n100000000,1\n200000000,2\n300000000,3\n400000000,4\n";
    char path[256], args[512], *out, *line, *save = NULL;
    static const char *const want[] = { "0.1,0.1,", "0.3,0.2,", "0.6,0.3,", "1,0.4," };
    int status, n = 0;

    temp_file(path, sizeof(path), text, strlen(text));
    snprintf(args, sizeof(args), "--source csv:%s,gpu=T830 -b -f csv", path);
    out = run_gputop(args, &status);
    cr_assert_eq(status, 0, "%s", out);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        if (n == 0)
            continue;
        cr_assert_leq(n, 4, "extra row: %s", line);
        cr_assert(strncmp(line, want[n - 1], strlen(want[n - 1])) == 0, "row %d: want '%s...': %s",
                  n, want[n - 1], line);
    }
    cr_assert_eq(n, 5);
    free(out);
    unlink(path);
}

/* Issue 44 item 6: a column named "\e]0;PWN\a..." (a terminal title
 * change) and bytes from /dev/urandom reach stderr escaped, never raw. */
static void assert_stderr_printable(const char *args, const char *want)
{
    char cmd[1024];
    int status;
    char *err;

    snprintf(cmd, sizeof(cmd), "%s 2>&1 >/dev/null", args);
    err = run_gputop(cmd, &status);
    cr_assert_neq(status, 0, "%s", err);
    cr_assert(strstr(err, want), "stderr lacks '%s': %s", want, err);
    for (const char *p = err; *p; p++)
        cr_assert(((unsigned char)*p >= 0x20 && *p != 0x7f) || *p == '\n',
                  "raw byte 0x%02x at %zu of stderr", (unsigned char)*p, (size_t)(p - err));
    free(err);
}

Test(csv, control_bytes_reach_stderr_escaped, .timeout = 60)
{
    static const char text[] = "interval_ns,\x1b]0;PWN\x07MaliGPUCyclesGPUActive\n1,2\n";
    char path[256], args[512];

    temp_file(path, sizeof(path), text, strlen(text));
    snprintf(args, sizeof(args), "--source csv:%s -b -n 1", path);
    assert_stderr_printable(args, "'\\x1b]0;PWN\\x07MaliGPUCyclesGPUActive'");
    unlink(path);
    /* Random bytes may hold a newline before the header's first field, so
     * the line named is not always 1: only the file is asserted. */
    if (access("/dev/urandom", R_OK) == 0)
        assert_stderr_printable("--source csv:/dev/urandom -b -n 1", "/dev/urandom:");
}
