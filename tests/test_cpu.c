/* The cpu source against fake /proc and /sys trees in a temporary
 * directory and a fake perf_event_open: clustering, hand-computed tick
 * deltas through the engine, unplugged CPUs, malformed files, cycles. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gputop/engine.h"
#include "gputop/source.h"

extern const struct gt_source_type gt_source_cpu;

#define NCPU      8
#define NF        10        /* user nice system idle iowait irq softirq steal guest guest_nice */
#define FAKE_FD0  100000    /* fake perf fds: far above any real one */
#define MAX_FAKE  2048

/* ---- a fake tree ---- */

static char tree[512];

static void make_tree(void)
{
    const char *dir = getenv("TMPDIR");

    snprintf(tree, sizeof(tree), "%s/gputop-cpu-XXXXXX", dir && dir[0] ? dir : "/tmp");
    cr_assert_not_null(mkdtemp(tree), "mkdtemp %s: %s", tree, strerror(errno));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(void)
{
    nftw(tree, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes text at tree/rel, making the directories on the way. */
static void put_file(const char *rel, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    FILE *f;
    char *s;

    snprintf(path, sizeof(path), "%s/%s", tree, rel);
    for (s = path + strlen(tree) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/* One /proc/stat row per CPU; present[i] == 0 leaves cpu i out. */
struct stat_rows {
    unsigned long long v[MAX_FAKE][NF];
    int present[MAX_FAKE];
    int n;
};

static void rows_init(struct stat_rows *r, int n)
{
    int i, f;

    memset(r, 0, sizeof(*r));
    r->n = n;
    for (i = 0; i < n; i++) {
        r->present[i] = 1;
        for (f = 0; f < NF; f++)
            r->v[i][f] = 1000ull * (unsigned)(i + 1) + 10ull * (unsigned)f;
    }
}

static void write_stat(const struct stat_rows *r)
{
    size_t cap = (size_t)r->n * 256 + 256, used = 0;
    char *text = malloc(cap);
    int i, f;

    cr_assert_not_null(text);
    used += (size_t)snprintf(text, cap, "cpu  1 2 3 4 5 6 7 8 9 10\n");
    for (i = 0; i < r->n; i++) {
        if (!r->present[i])
            continue;
        used += (size_t)snprintf(text + used, cap - used, "cpu%d", i);
        for (f = 0; f < NF; f++)
            used += (size_t)snprintf(text + used, cap - used, " %llu", r->v[i][f]);
        used += (size_t)snprintf(text + used, cap - used, "\n");
    }
    snprintf(text + used, cap - used, "intr 12 0 0 3\nctxt 99\nbtime 1700000000\n");
    put_file("proc/stat", "%s", text);
    free(text);
}

/* Per-interval increments: cpu i runs 10+i user, 1 nice, 5 system, 50
 * idle, 2 iowait, 1 irq, 1 softirq, 0 steal; guest time (7 + 3) is part
 * of user and nice already and must not be counted again. */
static const unsigned long long inc_fields[NF] = { 10, 1, 5, 50, 2, 1, 1, 0, 7, 3 };

static void rows_step(struct stat_rows *r)
{
    int i, f;

    for (i = 0; i < r->n; i++)
        for (f = 0; f < NF; f++)
            r->v[i][f] += inc_fields[f] + (f == 0 ? (unsigned)i : 0);
}

/* What one CPU adds per interval under rows_step. */
static unsigned long long exp_user(int cpu) { return 10 + (unsigned)cpu + 1; }
static unsigned long long exp_sys(int cpu) { (void)cpu; return 5 + 1 + 1; }
static unsigned long long exp_total(int cpu) { return 70 + (unsigned)cpu; }

static void cpufreq_policies(void)
{
    put_file("sys/devices/system/cpu/cpufreq/policy0/related_cpus", "0 1 2 3\n");
    put_file("sys/devices/system/cpu/cpufreq/policy4/related_cpus", "4 5 6\n");
    put_file("sys/devices/system/cpu/cpufreq/policy7/related_cpus", "7\n");
}

static void topology(const char *name, const long *ids, int n)
{
    char rel[256];
    int i;

    for (i = 0; i < n; i++) {
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/%s", i, name);
        put_file(rel, "%ld\n", ids[i]);
    }
}

/* ---- a fake perf_event_open behind the seam ---- */

struct fake {
    struct gt_sys sys;
    int perf_errno;            /* 0: counters open */
    int fail_on_cpu;           /* fails only from this CPU on; -1 all */
    int perf_calls, perf_open, closes;
    int stat_opens;            /* opens of proc/stat through the seam */
    int stat_errno;            /* next pread of proc/stat fails with it */
    int preads;                /* preads through the seam */
    unsigned long long count[MAX_FAKE][3];   /* value, enabled, running */
    struct perf_event_attr last_attr;
};

static int fake_perf_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                          int group_fd, unsigned long flags)
{
    struct fake *f = ctx;

    (void)flags;
    f->perf_calls++;
    f->last_attr = *attr;
    cr_assert_eq(pid, -1);
    cr_assert_eq(group_fd, -1);
    if (f->perf_errno && (f->fail_on_cpu < 0 || cpu >= f->fail_on_cpu)) {
        errno = f->perf_errno;
        return -1;
    }
    f->perf_open++;
    return FAKE_FD0 + cpu;
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
    struct fake *f = ctx;

    if (fd < FAKE_FD0)
        return gt_sys_real()->read(NULL, fd, buf, len);
    cr_assert_eq(len, sizeof(f->count[0]));
    memcpy(buf, f->count[fd - FAKE_FD0], len);
    return (ssize_t)len;
}

static int fake_open(void *ctx, const char *path, int flags)
{
    struct fake *f = ctx;
    size_t n = strlen(path);

    if (n >= 10 && strcmp(path + n - 10, "/proc/stat") == 0)
        f->stat_opens++;
    return gt_sys_real()->open(NULL, path, flags);
}

static ssize_t fake_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct fake *f = ctx;

    f->preads++;
    if (f->stat_errno) {
        errno = f->stat_errno;
        f->stat_errno = 0;
        return -1;
    }
    return gt_sys_real()->pread(NULL, fd, buf, len, off);
}

static int fake_close(void *ctx, int fd)
{
    struct fake *f = ctx;

    if (fd < FAKE_FD0)
        return gt_sys_real()->close(NULL, fd);
    f->closes++;
    return 0;
}

static struct fake *fake_new(int perf_errno)
{
    struct fake *f = calloc(1, sizeof(*f));

    cr_assert_not_null(f);
    f->sys = *gt_sys_real();
    f->sys.ctx = f;
    f->sys.open = fake_open;
    f->sys.read = fake_read;
    f->sys.pread = fake_pread;
    f->sys.close = fake_close;
    f->sys.perf_event_open = fake_perf_open;
    f->perf_errno = perf_errno;
    f->fail_on_cpu = -1;
    return f;
}

/* ---- the source, opened the way gt_source_open does it ---- */

struct fixture {
    struct gt_source src;
    struct gt_snapshot snap;
    struct fake *fake;
};

static int try_open(struct fixture *x, const struct gt_sys *sys, const char *extra,
                    struct gt_diag *d)
{
    char args[1024];

    memset(&x->src, 0, sizeof(x->src));
    x->src.type = &gt_source_cpu;
    x->src.sys = sys;
    gt_catalog_init(&x->src.catalog);
    gt_diag_clear(d);
    snprintf(args, sizeof(args), "root=%s%s%s", tree, extra[0] ? "," : "", extra);
    if (gt_source_cpu.open(&x->src, args, d) < 0) {
        gt_catalog_free(&x->src.catalog);
        return -1;
    }
    return 0;
}

/* Opens and starts the source over x->fake. */
static void fx_start(struct fixture *x, const char *extra)
{
    struct gt_diag d;

    cr_assert_eq(try_open(x, &x->fake->sys, extra, &d), 0, "open: %s", d.msg);
    cr_assert_eq(gt_snapshot_init(&x->snap, x->src.catalog.nslots), 0);
    cr_assert_eq(gt_source_cpu.start(&x->src, &d), 0, "start: %s", d.msg);
}

static void fx_open(struct fixture *x, int perf_errno, const char *extra)
{
    x->fake = fake_new(perf_errno);
    fx_start(x, extra);
}

static void fx_sample(struct fixture *x)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    cr_assert_eq(gt_source_cpu.sample(&x->src, &x->snap, &d), 0, "sample: %s", d.msg);
    cr_assert_eq(x->snap.nsamples, 1);
    cr_assert_geq(x->snap.t_end_ns, x->snap.t_start_ns);
}

static void fx_close(struct fixture *x)
{
    gt_snapshot_free(&x->snap);
    gt_source_cpu.close(&x->src);
    gt_catalog_free(&x->src.catalog);
    free(x->fake);
}

static uint64_t value(const struct fixture *x, const char *name, uint32_t cluster)
{
    int i = gt_catalog_find(&x->src.catalog, name);

    cr_assert_geq(i, 0, "no counter %s", name);
    cr_assert_lt(cluster, x->src.catalog.counters[i].instances);
    return x->snap.deltas[x->src.catalog.counters[i].slot + cluster];
}

/* Checks the ticks of every cluster against the hand-computed sums of
 * its CPUs (first..last inclusive, ranges per cluster). */
static void expect_ticks(const struct fixture *x, const int *first, const int *last, int n)
{
    int c, i;

    for (c = 0; c < n; c++) {
        unsigned long long u = 0, s = 0, t = 0;
        for (i = first[c]; i <= last[c]; i++) {
            u += exp_user(i);
            s += exp_sys(i);
            t += exp_total(i);
        }
        cr_expect_eq(value(x, "CPUTicksUser", (uint32_t)c), u, "cluster %d user", c);
        cr_expect_eq(value(x, "CPUTicksSystem", (uint32_t)c), s, "cluster %d system", c);
        cr_expect_eq(value(x, "CPUTicksTotal", (uint32_t)c), t, "cluster %d total", c);
    }
}

/* ---- the engine over the source's catalogue ---- */

static const char layout_text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "section CPU\n  key x\n  group CPU performance\n"
    "    metric CPU activity user\n      expr $CPUActivityUser.Cluster[0..N]\n      show percent\n"
    "    metric CPU cycles\n      expr $CyclesCPUCycles.Cluster[0..N]\n      show count\n";

struct eng {
    struct gt_layout *l;
    struct gt_engine *e;
};

static void eng_new(struct eng *g, const struct gt_catalog *c)
{
    struct gt_diag d;

    g->l = gt_layout_parse("t.layout", layout_text, strlen(layout_text), &d);
    cr_assert_not_null(g->l, "%d:%d %s", d.line, d.col, d.msg);
    g->e = gt_engine_new(g->l, c);
    cr_assert_not_null(g->e);
}

static void eng_free(struct eng *g)
{
    gt_engine_free(g->e);
    gt_layout_free(g->l);
}

/* ---- clustering and tick deltas ---- */

/* Start, one rows_step, sample: checks the clusters' ticks, and
 * CPUActivityUser per cluster through the engine. */
static void run_interval(struct fixture *x, struct stat_rows *r, const int *first,
                         const int *last, int n)
{
    struct eng g;
    int c;

    rows_step(r);
    write_stat(r);
    fx_sample(x);
    expect_ticks(x, first, last, n);
    eng_new(&g, &x->src.catalog);
    cr_assert_null(gt_engine_unavailable(g.e, 0));
    cr_assert_eq(gt_engine_instanced(g.e, 0), 1);
    cr_assert_eq(gt_engine_instances(g.e, 0), (uint32_t)n);
    for (c = 0; c < n; c++) {
        double want = 100.0 * (double)value(x, "CPUTicksUser", (uint32_t)c) /
                      (double)value(x, "CPUTicksTotal", (uint32_t)c);
        cr_expect_float_eq(gt_engine_eval_instance(g.e, &x->snap, 0, (uint32_t)c), want, 1e-9,
                           "cluster %d", c);
    }
    eng_free(&g);
}

Test(cpu, cpufreq_policies_make_three_clusters)
{
    static const int first[] = { 0, 4, 7 }, last[] = { 3, 6, 7 };
    static const long pkg[NCPU] = { 0 };
    static struct stat_rows r;
    struct fixture x;
    struct eng g;

    make_tree();
    cpufreq_policies();
    topology("physical_package_id", pkg, NCPU);     /* cpufreq comes first */
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "3 clusters: 0-3, 4-6, 7 (cpufreq policies); cycles: off");
    cr_expect_eq(x.fake->perf_calls, 0);
    cr_expect_lt(gt_catalog_find(&x.src.catalog, "CyclesCPUCycles"), 0);
    run_interval(&x, &r, first, last, 3);
    /* By hand: cluster 0 user 11+12+13+14, total 70+71+72+73 */
    cr_expect_eq(value(&x, "CPUTicksUser", 0), 50);
    cr_expect_eq(value(&x, "CPUTicksSystem", 0), 28);
    cr_expect_eq(value(&x, "CPUTicksTotal", 0), 286);
    cr_expect_eq(value(&x, "CPUTicksUser", 1), 15 + 16 + 17);
    cr_expect_eq(value(&x, "CPUTicksTotal", 1), 74 + 75 + 76);
    cr_expect_eq(value(&x, "CPUTicksUser", 2), 18);
    cr_expect_eq(value(&x, "CPUTicksTotal", 2), 77);
    /* each CPU on its own too: cpu7 is cluster 2 alone, cpu4..6 sum to cluster 1 */
    cr_expect_eq(value(&x, "CPUCoreTicksUser", 7), 18);
    cr_expect_eq(value(&x, "CPUCoreTicksTotal", 7), 77);
    cr_expect_eq(value(&x, "CPUCoreTicksTotal", 4) + value(&x, "CPUCoreTicksTotal", 5) +
                 value(&x, "CPUCoreTicksTotal", 6), 74 + 75 + 76);
    eng_new(&g, &x.src.catalog);
    cr_expect_float_eq(gt_engine_eval_instance(g.e, &x.snap, 0, 0), 100.0 * 50 / 286, 1e-9);
    cr_expect_float_eq(gt_engine_eval_instance(g.e, &x.snap, 0, 2), 100.0 * 18 / 77, 1e-9);
    cr_expect_not_null(gt_engine_unavailable(g.e, 1));       /* no cycles counter */
    cr_expect(isnan(gt_engine_eval_instance(g.e, &x.snap, 1, 0)));
    eng_free(&g);
    /* and the next interval measures from this one */
    run_interval(&x, &r, first, last, 3);
    fx_close(&x);
    remove_tree();
}

Test(cpu, cluster_id_comes_first_and_numbers_by_lowest_cpu)
{
    static const int first[] = { 0, 4 }, last[] = { 3, 7 };
    static const long ids[NCPU] = { 256, 256, 256, 256, 0, 0, 0, 0 };
    static struct stat_rows r;
    struct fixture x;

    make_tree();
    cpufreq_policies();
    topology("cluster_id", ids, NCPU);
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "2 clusters: 0-3, 4-7 (cluster_id); cycles: off");
    run_interval(&x, &r, first, last, 2);
    fx_close(&x);
    remove_tree();
}

Test(cpu, cluster_id_minus_one_falls_back_to_cpufreq)
{
    static const long ids[NCPU] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    static struct stat_rows r;
    struct fixture x;

    make_tree();
    cpufreq_policies();
    topology("cluster_id", ids, NCPU);
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "3 clusters: 0-3, 4-6, 7 (cpufreq policies); cycles: off");
    fx_close(&x);
    remove_tree();
}

Test(cpu, packages_when_no_cluster_or_cpufreq)
{
    static const long pkg[NCPU] = { 0, 1, 0, 1, 0, 1, 0, 1 };
    static struct stat_rows r;
    struct fixture x;
    int c, i;

    make_tree();
    topology("physical_package_id", pkg, NCPU);
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail,
                     "2 clusters: [0,2,4,6], [1,3,5,7] (physical_package_id); cycles: off");
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    for (c = 0; c < 2; c++) {
        unsigned long long u = 0, t = 0;
        for (i = c; i < NCPU; i += 2) {
            u += exp_user(i);
            t += exp_total(i);
        }
        cr_expect_eq(value(&x, "CPUTicksUser", (uint32_t)c), u);
        cr_expect_eq(value(&x, "CPUTicksTotal", (uint32_t)c), t);
    }
    fx_close(&x);
    remove_tree();
}

Test(cpu, no_topology_is_one_cluster)
{
    static const int first[] = { 0 }, last[] = { 7 };
    static struct stat_rows r;
    struct fixture x;

    make_tree();
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "1 cluster: 0-7 (no topology); cycles: off");
    cr_expect_eq(x.src.catalog.counters[gt_catalog_find(&x.src.catalog, "CPUTicksUser")].instances,
                 1);
    run_interval(&x, &r, first, last, 1);
    fx_close(&x);
    remove_tree();
}

Test(cpu, clusters_argument_forces_a_grouping)
{
    static const long ids[NCPU] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    static struct stat_rows r;
    struct fixture x;
    struct gt_diag d;

    make_tree();
    cpufreq_policies();
    topology("cluster_id", ids, NCPU);
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off,clusters=cpufreq");
    cr_expect_str_eq(x.src.info.detail, "3 clusters: 0-3, 4-6, 7 (cpufreq policies); cycles: off");
    fx_close(&x);
    fx_open(&x, 0, "cycles=off,clusters=none");
    cr_expect_str_eq(x.src.info.detail, "1 cluster: 0-7 (no topology); cycles: off");
    fx_close(&x);
    x.fake = fake_new(0);
    cr_expect_eq(try_open(&x, &x.fake->sys, "clusters=package", &d), -1);
    cr_expect(strstr(d.msg, "cannot group CPUs by package under") != NULL, "%s", d.msg);
    cr_expect(strstr(d.msg, tree) != NULL, "%s", d.msg);
    free(x.fake);
    remove_tree();
}

/* ---- hotplug and odd counters ---- */

Test(cpu, unplugged_cpu_and_counters_going_backwards)
{
    static struct stat_rows r;
    struct fixture x;
    unsigned long long before;

    make_tree();
    cpufreq_policies();
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");

    /* cpu5 unplugged; cpu2's user count went back (a replug) */
    rows_step(&r);
    r.present[5] = 0;
    before = r.v[2][0];
    r.v[2][0] -= 100 + 10 + 2;        /* undo this step's user and go back 100 */
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksUser", 0), exp_user(0) + exp_user(1) + 1 + exp_user(3));
    cr_expect_eq(value(&x, "CPUTicksTotal", 0),
                 exp_total(0) + exp_total(1) + (exp_total(2) - 12) + exp_total(3));
    cr_expect_eq(value(&x, "CPUTicksUser", 1), exp_user(4) + exp_user(6));
    cr_expect_eq(value(&x, "CPUTicksTotal", 1), exp_total(4) + exp_total(6));
    cr_expect_eq(value(&x, "CPUTicksTotal", 2), exp_total(7));

    /* cpu5 back with higher counts: its first line is a new baseline */
    rows_step(&r);
    r.present[5] = 1;
    r.v[5][3] += 100000;
    r.v[2][0] = before + 12;          /* forwards again from the low value */
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksTotal", 1), exp_total(4) + exp_total(6));
    cr_expect_eq(value(&x, "CPUTicksUser", 0),
                 exp_user(0) + exp_user(1) + (before + 12 - (before - 112)) + 1 + exp_user(3));

    /* and the interval after that counts it again */
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksTotal", 1), exp_total(4) + exp_total(5) + exp_total(6));
    fx_close(&x);
    remove_tree();
}

Test(cpu, cpu_hotplugged_after_open_is_left_out)
{
    static struct stat_rows r;
    struct fixture x;

    make_tree();
    rows_init(&r, NCPU);
    r.present[7] = 0;
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "1 cluster: 0-6 (no topology); cycles: off");
    rows_step(&r);
    r.present[7] = 1;
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksTotal", 0), 70 * 7 + 21);
    fx_close(&x);
    remove_tree();
}

Test(cpu, large_stat_is_read_whole)
{
    static struct stat_rows r;
    struct fixture x;
    unsigned long long want = 0;
    int i;

    make_tree();
    rows_init(&r, MAX_FAKE);          /* about 150 KiB of /proc/stat */
    for (i = 0; i < MAX_FAKE; i++)
        r.v[i][0] = 1000000000000ull;
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    cr_expect_str_eq(x.src.info.detail, "1 cluster: 0-2047 (no topology); cycles: off");
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    for (i = 0; i < MAX_FAKE; i++)
        want += exp_total(i);
    cr_expect_eq(value(&x, "CPUTicksTotal", 0), want);
    fx_close(&x);
    remove_tree();
}

/* ---- malformed files ---- */

static void expect_open_error(const char *stat, const char *where, const char *what)
{
    struct fixture x;
    struct gt_diag d;
    char path[1100];

    make_tree();
    put_file("proc/stat", "%s", stat);
    x.fake = fake_new(0);
    cr_assert_eq(try_open(&x, &x.fake->sys, "", &d), -1, "opened '%s'", stat);
    snprintf(path, sizeof(path), "%s/proc/stat%s", tree, where);
    cr_expect(strstr(d.msg, path) != NULL, "'%s' lacks '%s'", d.msg, path);
    cr_expect(strstr(d.msg, what) != NULL, "'%s' lacks '%s'", d.msg, what);
    cr_expect_eq(x.fake->perf_calls, 0);
    free(x.fake);
    remove_tree();
}

Test(cpu, malformed_stat_names_file_and_line)
{
    expect_open_error("cpu  1 2 3 4\ncpu0 1 2 3 4 5\ncpu1 1 2 x3 4 5\n", ":3:",
                      "cpu1 field 3 (system): 'x3' is not a number");
    expect_open_error("cpu  1 2 3 4\ncpu0 1 2 3 4 5\ncpu1 1 2\n", ":3:",
                      "cpu1 has 2 fields, expected at least 4");
    expect_open_error("cpu0 1 2 3 4 5 6 7 8 9 10 11 12z\n", ":1:",
                      "field 12 (extra): '12z' is not a number");
    expect_open_error("cpu0 1 2 3 99999999999999999999999\n", ":1:",
                      "field 4 (idle): '99999999999999999999999' is not a number");
    expect_open_error("cpu0 1 2 3 -4\n", ":1:", "'-4' is not a number");
    expect_open_error("intr 1\ncpu7x 1 2 3 4\n", ":2:", "'cpu7x' is not a CPU name");
    expect_open_error("cpu1 1 2 3 4\ncpu0 1 2 3 4\n", ":2:", "cpu0 listed after cpu1");
    expect_open_error("intr 1 2 3\nctxt 5\n", "", "lists no CPUs");
}

Test(cpu, malformed_stat_while_sampling_is_an_error_then_recovers)
{
    static struct stat_rows r;
    struct fixture x;
    struct gt_diag d;
    char want[1100];

    make_tree();
    rows_init(&r, 4);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    put_file("proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2 3 4\ncpu2 1 2 3 4 five\n");
    gt_diag_clear(&d);
    cr_assert_eq(gt_source_cpu.sample(&x.src, &x.snap, &d), -1);
    snprintf(want, sizeof(want), "%s/proc/stat:4: cpu2 field 5 (iowait): 'five' is not a number",
             tree);
    cr_expect(strstr(d.msg, want) != NULL, "%s", d.msg);
    put_file("proc/stat", "cpu0 1 2 3 4\ncpu0 1 2 3 4\n");
    cr_assert_eq(gt_source_cpu.sample(&x.src, &x.snap, &d), -1);
    cr_expect(strstr(d.msg, ":2: cpu0 listed twice") != NULL, "%s", d.msg);
    /* the failed reads changed nothing: the next good one measures from start */
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksTotal", 0), 70 + 71 + 72 + 73);
    /* A failed read names the file and the error; the next sample opens
     * the file afresh and measures from the last good read. */
    x.fake->stat_errno = EIO;
    cr_assert_eq(gt_source_cpu.sample(&x.src, &x.snap, &d), -1);
    snprintf(want, sizeof(want), "cannot read %s/proc/stat: %s", tree, strerror(EIO));
    cr_expect(strstr(d.msg, want) != NULL, "%s", d.msg);
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksTotal", 0), 70 + 71 + 72 + 73);
    remove_tree();
    fx_close(&x);
}

/* n samples, each after one step of two CPUs' ticks. */
static void sample_steps(struct fixture *x, struct stat_rows *r, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        rows_step(r);
        write_stat(r);
        fx_sample(x);
        cr_expect_eq(value(x, "CPUTicksTotal", 0), 70 + 71);
    }
}

/* /proc/stat is opened once and read again from its start every sample;
 * a seam without pread gets the open-read-close of before. */
Test(cpu, proc_stat_stays_open_between_samples)
{
    static struct stat_rows r;
    struct fixture x;

    make_tree();
    rows_init(&r, 2);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    sample_steps(&x, &r, 5);
    cr_expect_eq(x.fake->stat_opens, 1);
    fx_close(&x);

    x.fake = fake_new(0);
    x.fake->sys.pread = NULL;
    fx_start(&x, "cycles=off");
    sample_steps(&x, &r, 3);
    /* open, start and three samples */
    cr_expect_eq(x.fake->stat_opens, 5);
    fx_close(&x);
    remove_tree();
}

/* One pread a sample: the kernel writes /proc/stat out whole for a read
 * from its start (fs/proc/stat.c opens it with single_open_size, and
 * fs/seq_file.c's seq_read_iter runs the show function again for a read
 * at another offset), so a read short of the buffer is the whole file,
 * and asking for its end-of-file would make the kernel write it all out
 * a second time. */
Test(cpu, one_read_of_proc_stat_a_sample)
{
    static struct stat_rows r;
    struct fixture x;
    int before;

    make_tree();
    rows_init(&r, 2);
    write_stat(&r);
    fx_open(&x, 0, "cycles=off");
    sample_steps(&x, &r, 1);
    before = x.fake->preads;
    sample_steps(&x, &r, 4);
    cr_expect_eq(x.fake->preads - before, 4, "%d preads for 4 samples",
                 x.fake->preads - before);
    fx_close(&x);
    remove_tree();
}

Test(cpu, arguments_and_availability)
{
    struct fixture x;
    struct gt_diag d;
    char why[512];
    struct gt_sys sys = *gt_sys_real();

    make_tree();
    sys.root = tree;
    cr_expect_eq(gt_source_cpu.available(&sys, why, sizeof(why)), -1);
    cr_expect(strstr(why, "/proc/stat") != NULL && strstr(why, tree) != NULL, "%s", why);
    cr_expect_eq(gt_source_cpu.available(&sys, NULL, 0), -1);
    x.fake = fake_new(0);
    cr_expect_eq(try_open(&x, &x.fake->sys, "", &d), -1);
    cr_expect(strstr(d.msg, "cannot read") != NULL && strstr(d.msg, "No such file") != NULL,
              "%s", d.msg);
    put_file("proc/stat", "cpu0 1 2 3 4\n");
    cr_expect_eq(gt_source_cpu.available(&sys, why, sizeof(why)), 0);
    cr_expect_eq(try_open(&x, &x.fake->sys, "bogus=1", &d), -1);
    cr_expect_str_eq(d.msg, "source 'cpu' has no option 'bogus'");
    cr_expect_eq(try_open(&x, &x.fake->sys, "cycles=maybe", &d), -1);
    cr_expect(strstr(d.msg, "cycles 'maybe'") != NULL, "%s", d.msg);
    cr_expect_eq(try_open(&x, &x.fake->sys, "clusters=dies", &d), -1);
    cr_expect(strstr(d.msg, "clusters 'dies'") != NULL, "%s", d.msg);
    cr_expect_eq(strcmp(gt_source_cpu.name, "cpu"), 0);
    cr_expect_eq(gt_source_cpu.kind, GT_SOURCE_CPU);
    free(x.fake);
    remove_tree();
}

/* ---- cycles ---- */

Test(cpu, perf_refused_leaves_cycles_out_and_says_why)
{
    static struct stat_rows r;
    struct fixture x;
    struct eng g;

    make_tree();
    cpufreq_policies();
    put_file("proc/sys/kernel/perf_event_paranoid", "3\n");
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, EACCES, "");
    cr_expect_str_eq(x.src.info.detail,
                     "3 clusters: 0-3, 4-6, 7 (cpufreq policies); "
                     "cycles unavailable: perf_event_paranoid=3");
    cr_expect_lt(gt_catalog_find(&x.src.catalog, "CyclesCPUCycles"), 0);
    eng_new(&g, &x.src.catalog);
    cr_expect_null(gt_engine_unavailable(g.e, 0));
    cr_expect_not_null(gt_engine_unavailable(g.e, 1));
    cr_expect(strstr(gt_engine_unavailable(g.e, 1), "CyclesCPUCycles") != NULL);
    eng_free(&g);
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CPUTicksUser", 2), exp_user(7));
    fx_close(&x);

    put_file("proc/sys/kernel/perf_event_paranoid", "-1\n");
    fx_open(&x, EACCES, "");
    cr_expect(strstr(x.src.info.detail, "cycles unavailable: perf_event_open: Permission denied "
                                        "(perf_event_paranoid=-1)") != NULL,
              "%s", x.src.info.detail);
    fx_close(&x);
    remove_tree();
}

Test(cpu, perf_failure_reasons)
{
    static struct stat_rows r;
    struct fixture x;
    struct gt_diag d;

    make_tree();
    rows_init(&r, NCPU);
    write_stat(&r);
    fx_open(&x, ENOENT, "");
    cr_expect(strstr(x.src.info.detail, "cycles unavailable: no CPU cycle counter on cpu0") != NULL,
              "%s", x.src.info.detail);
    fx_close(&x);

    /* counters open on cpu0-2, then cpu3 fails: all of them are closed */
    x.fake = fake_new(EMFILE);
    x.fake->fail_on_cpu = 3;
    cr_assert_eq(try_open(&x, &x.fake->sys, "", &d), 0, "%s", d.msg);
    cr_expect_eq(x.fake->perf_open, 3);
    cr_expect_eq(x.fake->closes, 3);
    cr_expect(strstr(x.src.info.detail, "cycles unavailable: perf_event_open on cpu3: Too many") !=
              NULL, "%s", x.src.info.detail);
    cr_expect_lt(gt_catalog_find(&x.src.catalog, "CyclesCPUCycles"), 0);
    gt_source_cpu.close(&x.src);
    gt_catalog_free(&x.src.catalog);
    cr_expect_eq(x.fake->closes, 3);

    /* a seam without perf_event_open */
    x.fake->sys.perf_event_open = NULL;
    cr_assert_eq(try_open(&x, &x.fake->sys, "", &d), 0, "%s", d.msg);
    cr_expect(strstr(x.src.info.detail, "cycles unavailable: no perf_event_open") != NULL, "%s",
              x.src.info.detail);
    gt_source_cpu.close(&x.src);
    gt_catalog_free(&x.src.catalog);

    /* cycles=on makes it an error */
    x.fake->perf_errno = ENOENT;
    x.fake->sys.perf_event_open = fake_perf_open;
    x.fake->fail_on_cpu = -1;
    cr_expect_eq(try_open(&x, &x.fake->sys, "cycles=on", &d), -1);
    cr_expect(strstr(d.msg, "cycles=on but no CPU cycle counter on cpu0") != NULL, "%s", d.msg);
    free(x.fake);
    remove_tree();
}

static void set_count(struct fake *f, int cpu, unsigned long long v, unsigned long long enabled,
                      unsigned long long running)
{
    f->count[cpu][0] = v;
    f->count[cpu][1] = enabled;
    f->count[cpu][2] = running;
}

Test(cpu, perf_cycles_summed_per_cluster)
{
    static struct stat_rows r;
    struct fixture x;
    struct gt_catalog ref;
    struct eng g;
    size_t i;
    int cpu;

    make_tree();
    cpufreq_policies();
    rows_init(&r, NCPU);
    write_stat(&r);
    x.fake = fake_new(0);
    {
        struct gt_diag d;
        cr_assert_eq(try_open(&x, &x.fake->sys, "", &d), 0, "%s", d.msg);
    }
    cr_expect_str_eq(x.src.info.detail, "3 clusters: 0-3, 4-6, 7 (cpufreq policies); cycles: perf");
    cr_expect_eq(x.fake->perf_open, NCPU);
    cr_expect_eq(x.fake->last_attr.type, PERF_TYPE_HARDWARE);
    cr_expect_eq(x.fake->last_attr.config, PERF_COUNT_HW_CPU_CYCLES);

    /* the catalogue starts with exactly gt_catalog_add_cpu's, then the
     * five per-CPU counters */
    gt_catalog_init(&ref);
    cr_assert_eq(gt_catalog_add_cpu(&ref, 3), 0);
    cr_assert_eq(x.src.catalog.ncounters, ref.ncounters + 5);
    cr_assert_eq(x.src.catalog.nslots, ref.nslots + 3 * NCPU);
    for (i = 0; i < ref.ncounters; i++) {
        cr_expect_str_eq(x.src.catalog.counters[i].name, ref.counters[i].name);
        cr_expect_eq(x.src.catalog.counters[i].slot, ref.counters[i].slot);
        cr_expect_eq(x.src.catalog.counters[i].kind, ref.counters[i].kind);
        cr_expect_eq(x.src.catalog.counters[i].denominator, ref.counters[i].denominator);
    }
    gt_catalog_free(&ref);

    for (cpu = 0; cpu < NCPU; cpu++)
        set_count(x.fake, cpu, 1000000ull * (unsigned)cpu, 500, 500);
    cr_assert_eq(gt_snapshot_init(&x.snap, x.src.catalog.nslots), 0);
    {
        struct gt_diag d;
        cr_assert_eq(gt_source_cpu.start(&x.src, &d), 0, "%s", d.msg);
    }
    /* cpu i runs (i+1) million cycles; cpu5 was multiplexed: counted half
     * the time, so its 3 million read as 6 million */
    for (cpu = 0; cpu < NCPU; cpu++)
        set_count(x.fake, cpu, 1000000ull * (unsigned)cpu + 1000000ull * (unsigned)(cpu + 1),
                  1500, cpu == 5 ? 1000 : 1500);
    x.fake->count[5][0] = 5000000ull + 3000000ull;
    rows_step(&r);
    write_stat(&r);
    fx_sample(&x);
    cr_expect_eq(value(&x, "CyclesCPUCycles", 0), (1 + 2 + 3 + 4) * 1000000ull);
    cr_expect_eq(value(&x, "CyclesCPUCycles", 1), (5 + 6 + 7) * 1000000ull);
    cr_expect_eq(value(&x, "CyclesCPUCycles", 2), 8 * 1000000ull);
    cr_expect_eq(value(&x, "CPUTicksUser", 0), 50);
    eng_new(&g, &x.src.catalog);
    cr_expect_null(gt_engine_unavailable(g.e, 1));
    cr_expect_float_eq(gt_engine_eval_instance(g.e, &x.snap, 1, 1), 18e6, 1e-3);
    eng_free(&g);

    /* a counter that went backwards or was never running adds nothing */
    x.fake->count[0][0] = 0;
    x.fake->count[7][1] += 100;
    fx_sample(&x);
    cr_expect_eq(value(&x, "CyclesCPUCycles", 0), 0);
    cr_expect_eq(value(&x, "CyclesCPUCycles", 2), 0);
    fx_close(&x);
    remove_tree();
}

/* ---- this machine ---- */

Test(cpu, live)
{
    struct gt_source s;
    struct gt_snapshot snap;
    struct gt_diag d;
    struct timespec ts = { 0, 50000000 };
    uint32_t c, n;
    int user, sys, total;

    memset(&s, 0, sizeof(s));
    s.type = &gt_source_cpu;
    s.sys = gt_sys_real();
    gt_catalog_init(&s.catalog);
    cr_assert_eq(gt_source_cpu.available(s.sys, NULL, 0), 0);
    cr_assert_eq(gt_source_cpu.open(&s, "root=", &d), 0, "%s", d.msg);
    cr_log_info("cpu source here: %s", s.info.detail);
    cr_assert_eq(gt_snapshot_init(&snap, s.catalog.nslots), 0);
    cr_assert_eq(gt_source_cpu.start(&s, &d), 0, "%s", d.msg);
    nanosleep(&ts, NULL);
    cr_assert_eq(gt_source_cpu.sample(&s, &snap, &d), 0, "%s", d.msg);
    cr_expect_geq(gt_snapshot_ns(&snap), 50000000ull);
    user = gt_catalog_find(&s.catalog, "CPUTicksUser");
    sys = gt_catalog_find(&s.catalog, "CPUTicksSystem");
    total = gt_catalog_find(&s.catalog, "CPUTicksTotal");
    n = s.catalog.counters[user].instances;
    cr_assert_geq(n, 1);
    for (c = 0; c < n; c++) {
        uint64_t u = snap.deltas[s.catalog.counters[user].slot + c];
        uint64_t y = snap.deltas[s.catalog.counters[sys].slot + c];
        uint64_t t = snap.deltas[s.catalog.counters[total].slot + c];
        cr_log_info("cluster %u: user %llu system %llu total %llu", c, (unsigned long long)u,
                    (unsigned long long)y, (unsigned long long)t);
        cr_expect_gt(t, 0, "cluster %u total", c);
        cr_expect_leq(u + y, t, "cluster %u", c);
    }
    gt_snapshot_free(&snap);
    gt_source_cpu.close(&s);
    gt_catalog_free(&s.catalog);
}
