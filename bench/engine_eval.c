/* Engine benchmark: evaluates every built-in layout over 100k synthetic
 * snapshots and compares with the same expressions compiled as native C
 * (the floor, bench/tools/gen_floor.c: values, peaks and percent of peak).
 * The engine runs as the dashboard runs it (a built-in layout: its
 * generated code), and again as the interpreter (GPUTOP_ENGINE=vm: what a
 * user's layout costs). Prints figures and each layout's ratios; fails
 * only when results differ from the floor. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "bench_setup.h"

#define SNAPSHOTS 100000   /* per round */
#define ROUNDS 7
#define RING 256
#define GOAL 2.0           /* issue 29: within 2x of the floor on every layout */

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0 || a == b;
}

struct bufs {
    double *out, *ref, *peak, *pop;
};

/* Best times of one layout, in seconds per SNAPSHOTS. */
struct times {
    double engine, vm, floor;
};

static void floor_of(const struct bench_floor *fl, const struct gt_snapshot *s, struct bufs *b)
{
    fl->eval(s->deltas, gt_engine_seconds(s), (double)gt_snapshot_ns(s), b->ref, b->peak, b->pop);
}

/* Values, peaks and percents of peak that differ from the floor's. */
static size_t mismatches(struct gt_engine *e, const struct bench_floor *fl,
                         const struct gt_snapshot *ring, struct bufs *x)
{
    size_t i, m, nm = gt_engine_nmetrics(e), bad = 0;

    for (i = 0; i < RING; i++) {
        gt_engine_eval(e, &ring[i], x->out);
        floor_of(fl, &ring[i], x);
        for (m = 0; m < nm; m++) {
            bad += !same(x->out[m], x->ref[m]);
            if (gt_engine_has_peak(e, m) && !gt_engine_unavailable(e, m))
                bad += !same(gt_engine_peak(e, m), x->peak[m]) +
                       !same(gt_engine_pop(e, m), x->pop[m]);
        }
    }
    return bad;
}

/* SNAPSHOTS evaluations by engine e; returns the time taken. */
static double time_engine(struct gt_engine *e, const struct gt_snapshot *ring, struct bufs *x,
                          size_t nm, double *sink)
{
    double t0 = now_s();
    size_t i;

    for (i = 0; i < SNAPSHOTS; i++) {
        gt_engine_eval(e, &ring[i % RING], x->out);
        *sink += x->out[i % nm];
    }
    return now_s() - t0;
}

static double time_floor(const struct bench_floor *fl, const struct gt_snapshot *ring,
                         struct bufs *x, size_t nm, double *sink)
{
    double t0 = now_s();
    size_t i;

    for (i = 0; i < SNAPSHOTS; i++) {
        floor_of(fl, &ring[i % RING], x);
        *sink += x->ref[i % nm];
    }
    return now_s() - t0;
}

static double least(double a, double b) { return a < b ? a : b; }

/* The engine as a user's layout gets it: the interpreter. */
static struct gt_engine *vm_engine(const struct bench_setup *b)
{
    struct gt_engine *e;

    setenv("GPUTOP_ENGINE", "vm", 1);
    e = gt_engine_new(b->layout, &b->catalog);
    unsetenv("GPUTOP_ENGINE");
    return e;
}

/* Times layout fl's engine, interpreter and floor into t; returns 0, or
 * -1 when the layout cannot be set up. *bad: results that differ from
 * the floor's, either way. */
static int bench_layout(const struct bench_floor *fl, struct times *t, size_t *bad)
{
    struct bench_setup b;
    static struct gt_snapshot ring[RING];
    struct gt_engine *vm;
    struct bufs x;
    double sink = 0;
    size_t i, m, nm, navail = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int r;

    if (bench_setup(&b, fl->layout) < 0 || !(vm = vm_engine(&b))) {
        bench_teardown(&b);
        return -1;
    }
    nm = gt_engine_nmetrics(b.engine);
    x.out = calloc(nm + 1, sizeof(double));
    x.ref = calloc(nm + 1, sizeof(double));
    x.peak = calloc(nm + 1, sizeof(double));
    x.pop = calloc(nm + 1, sizeof(double));
    for (i = 0; i < RING; i++) {
        gt_snapshot_init(&ring[i], b.catalog.nslots);
        for (m = 0; m < b.catalog.nslots; m++)
            ring[i].deltas[m] = rng(&seed) % 100000000u;
        ring[i].t_start_ns = i * 100000000ull;
        ring[i].t_end_ns = (i + 1) * 100000000ull;
    }
    for (m = 0; m < nm; m++)
        navail += gt_engine_unavailable(b.engine, m) == NULL;
    *bad = mismatches(b.engine, fl, ring, &x) + mismatches(vm, fl, ring, &x);
    /* Rounds alternate engine, interpreter and floor and the best of each
     * is kept, so a noisy neighbour or a frequency change hits all alike. */
    t->engine = t->vm = t->floor = 1e9;
    for (r = 0; r < ROUNDS; r++) {
        t->engine = least(t->engine, time_engine(b.engine, ring, &x, nm, &sink));
        t->vm = least(t->vm, time_engine(vm, ring, &x, nm, &sink));
        t->floor = least(t->floor, time_floor(fl, ring, &x, nm, &sink));
    }
    printf("layout %-16s %3zu metrics (%3zu available), %4u slots: engine %7.1f ns (%s), "
           "interpreter %7.1f ns, floor %7.1f ns per snapshot; %s\n",
           fl->layout, nm, navail, b.catalog.nslots, t->engine / SNAPSHOTS * 1e9,
           gt_engine_native(b.engine) ? "native code" : "interpreter",
           t->vm / SNAPSHOTS * 1e9, t->floor / SNAPSHOTS * 1e9,
           *bad ? "RESULTS DIFFER from the floor" : "results identical to the floor");
    if (sink == 12345.678)
        printf(" ");
    for (i = 0; i < RING; i++)
        gt_snapshot_free(&ring[i]);
    free(x.out);
    free(x.ref);
    free(x.peak);
    free(x.pop);
    gt_engine_free(vm);
    bench_teardown(&b);
    return 0;
}

/* The ratios of one layout, as plain lines and for the table at the end
 * of make bench (the interpreter's has no goal: what a user layout costs). */
static void report(const char *layout, const struct times *t)
{
    double ratio = t->engine / t->floor, vm = t->vm / t->floor;

    printf("  %s: engine/native C %.2fx (goal <= %.1fx), interpreter/native C %.2fx\n", layout,
           ratio, GOAL, vm);
    printf("summary: engine/native C, layout %s\t%.2fx\t<= %.1fx\t%s\n", layout, ratio, GOAL,
           ratio <= GOAL ? "yes" : "no");
    printf("summary: interpreter/native C (user layouts), layout %s\t%.2fx\t-\t-\n", layout, vm);
}

int main(int argc, char **argv)
{
    size_t i, bad, any_bad = 0;
    struct times t;

    printf("engine vs the same layout as native C, best of %d rounds of %d snapshots each:\n",
           ROUNDS, SNAPSHOTS);
    for (i = 0; i < bench_nfloors; i++) {
        /* A layout's name as argument: that one only (for perf). */
        if (argc > 1 && strcmp(argv[1], bench_floors[i].layout) != 0)
            continue;
        if (bench_layout(&bench_floors[i], &t, &bad) < 0) {
            printf("layout %s: cannot be set up here\n", bench_floors[i].layout);
            continue;
        }
        any_bad += bad;
        report(bench_floors[i].layout, &t);
    }
    return any_bad ? 1 : 0;
}
