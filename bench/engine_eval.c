/* Engine benchmark: evaluates every built-in layout over 100k synthetic
 * snapshots and compares with the same expressions compiled as native C
 * (the floor, bench/tools/gen_floor.c: values, peaks and percent of peak).
 * Prints figures and each layout's ratio; no pass/fail. */
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

static void floor_of(const struct bench_floor *fl, const struct gt_snapshot *s, struct bufs *b)
{
    fl->eval(s->deltas, gt_engine_seconds(s), (double)gt_snapshot_ns(s), b->ref, b->peak, b->pop);
}

/* Values, peaks and percents of peak that differ from the floor's. */
static size_t mismatches(const struct bench_setup *b, const struct bench_floor *fl,
                         const struct gt_snapshot *ring, struct bufs *x)
{
    size_t i, m, nm = gt_engine_nmetrics(b->engine), bad = 0;

    for (i = 0; i < RING; i++) {
        gt_engine_eval(b->engine, &ring[i], x->out);
        floor_of(fl, &ring[i], x);
        for (m = 0; m < nm; m++) {
            bad += !same(x->out[m], x->ref[m]);
            if (gt_engine_has_peak(b->engine, m) && !gt_engine_unavailable(b->engine, m))
                bad += !same(gt_engine_peak(b->engine, m), x->peak[m]) +
                       !same(gt_engine_pop(b->engine, m), x->pop[m]);
        }
    }
    return bad;
}

/* Returns the ratio engine / floor, or -1 when the layout cannot be set up. */
static double bench_layout(const struct bench_floor *fl, size_t *bad)
{
    struct bench_setup b;
    static struct gt_snapshot ring[RING];
    struct bufs x;
    double t0, t1, t_engine = 1e9, t_floor = 1e9, sink = 0;
    size_t i, m, nm, navail = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int r;

    if (bench_setup(&b, fl->layout) < 0) {
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
    *bad = mismatches(&b, fl, ring, &x);
    /* Rounds alternate engine and floor and the best of each is kept, so
     * a noisy neighbour or a frequency change hits both alike. */
    for (r = 0; r < ROUNDS; r++) {
        t0 = now_s();
        for (i = 0; i < SNAPSHOTS; i++) {
            gt_engine_eval(b.engine, &ring[i % RING], x.out);
            sink += x.out[i % nm];
        }
        t1 = now_s() - t0;
        t_engine = t1 < t_engine ? t1 : t_engine;
        t0 = now_s();
        for (i = 0; i < SNAPSHOTS; i++) {
            floor_of(fl, &ring[i % RING], &x);
            sink += x.ref[i % nm];
        }
        t1 = now_s() - t0;
        t_floor = t1 < t_floor ? t1 : t_floor;
    }
    printf("layout %-16s %3zu metrics (%3zu available), %4u slots: engine %7.1f ns, floor %7.1f ns "
           "per snapshot; ratio %.2fx (goal <= %.1fx); %s\n",
           fl->layout, nm, navail, b.catalog.nslots, t_engine / SNAPSHOTS * 1e9,
           t_floor / SNAPSHOTS * 1e9, t_engine / t_floor, GOAL,
           *bad ? "RESULTS DIFFER from the floor" : "results identical to the floor");
    if (sink == 12345.678)
        printf(" ");
    for (i = 0; i < RING; i++)
        gt_snapshot_free(&ring[i]);
    free(x.out);
    free(x.ref);
    free(x.peak);
    free(x.pop);
    bench_teardown(&b);
    return t_engine / t_floor;
}

int main(int argc, char **argv)
{
    size_t i, bad, any_bad = 0;
    double ratio;

    printf("engine vs the same layout as native C, best of %d rounds of %d snapshots each:\n",
           ROUNDS, SNAPSHOTS);
    for (i = 0; i < bench_nfloors; i++) {
        /* A layout's name as argument: that one only (for perf). */
        if (argc > 1 && strcmp(argv[1], bench_floors[i].layout) != 0)
            continue;
        ratio = bench_layout(&bench_floors[i], &bad);
        if (ratio < 0) {
            printf("layout %s: cannot be set up here\n", bench_floors[i].layout);
            continue;
        }
        any_bad += bad;
        /* One line per figure for the table at the end of make bench. */
        printf("summary: engine/native C, layout %s\t%.2fx\t<= %.1fx\t%s\n",
               bench_floors[i].layout, ratio, GOAL, ratio <= GOAL ? "yes" : "no");
    }
    return any_bad ? 1 : 0;
}
