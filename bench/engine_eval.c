/* Engine benchmark: the cost of one evaluation of each built-in layout
 * (every metric's value, peak and percent of peak), bound as the default
 * dashboard binds it, over synthetic snapshots. Goal: 1 µs or less per
 * layout. Baseline, measured in the same run: the same metrics by the
 * reference tree walk (gt_engine_eval_instance, instance 0: the per-core
 * view's path), which the compiled program's sharing and folding beat.
 * Fails when a layout cannot be set up or the two disagree on a metric
 * both compute alike. `engine_eval LAYOUT` runs one layout (for perf). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "bench_setup.h"
#include "gputop/embedded.h"

#define SNAPSHOTS 100000   /* per round, engine */
#define WALKS     10000    /* per round, tree walk (slower) */
#define ROUNDS 7
#define RING 256
#define GOAL_NS 1000.0     /* issue 48: every built-in layout within 1 µs */

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
    return (isnan(a) && isnan(b)) || a == b;
}

/* The metrics whose tree walk at instance 0 is the whole-device value: one
 * instance, no per-instance reference. */
static int walk_is_whole(const struct gt_engine *e, size_t m)
{
    return gt_engine_instances(e, m) == 1 && !gt_engine_instanced(e, m);
}

/* Metrics on which the engine and the tree walk differ, over the ring. */
static size_t mismatches(struct gt_engine *e, const struct gt_snapshot *ring, double *out)
{
    size_t i, m, nm = gt_engine_nmetrics(e), bad = 0;

    for (i = 0; i < RING; i++) {
        gt_engine_eval(e, &ring[i], out);
        for (m = 0; m < nm; m++)
            if (walk_is_whole(e, m) && !gt_engine_unavailable(e, m))
                bad += !same(out[m], gt_engine_eval_instance_as(e, &ring[i], m, 0,
                                                                GT_INSTANCE_SCALED));
    }
    return bad;
}

/* Seconds per evaluation, of SNAPSHOTS of them. */
static double time_engine(struct gt_engine *e, const struct gt_snapshot *ring, double *out,
                          size_t nm, double *sink)
{
    double t0 = now_s();
    size_t i;

    for (i = 0; i < SNAPSHOTS; i++) {
        gt_engine_eval(e, &ring[i % RING], out);
        *sink += out[i % nm];
    }
    return (now_s() - t0) / SNAPSHOTS;
}

/* Seconds per tree walk of every metric, of WALKS of them. */
static double time_walk(struct gt_engine *e, const struct gt_snapshot *ring, size_t nm,
                        double *sink)
{
    double t0 = now_s();
    size_t i, m;

    for (i = 0; i < WALKS; i++)
        for (m = 0; m < nm; m++)
            *sink += gt_engine_eval_instance_as(e, &ring[i % RING], m, 0, GT_INSTANCE_SCALED);
    return (now_s() - t0) / WALKS;
}

static double least(double a, double b) { return a < b ? a : b; }

static void fill_ring(struct gt_snapshot *ring, uint32_t nslots)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    size_t i, m;

    for (i = 0; i < RING; i++) {
        gt_snapshot_init(&ring[i], nslots);
        for (m = 0; m < nslots; m++)
            ring[i].deltas[m] = rng(&seed) % 100000000u;
        ring[i].t_start_ns = i * 100000000ull;
        ring[i].t_end_ns = (i + 1) * 100000000ull;
    }
}

/* Times one layout and prints its lines; returns 0, 1 when the engine
 * and the tree walk disagree, -1 when it cannot be set up. */
static int bench_layout(const char *name)
{
    static struct gt_snapshot ring[RING];
    struct bench_setup b;
    double *out, sink = 0, eval = 1e9, walk = 1e9, ratio;
    size_t i, nm, ninputs, ninstr, bad;
    int r;

    if (bench_setup(&b, name) < 0) {
        bench_teardown(&b);
        return -1;
    }
    nm = gt_engine_nmetrics(b.engine);
    out = calloc(nm + 1, sizeof(double));
    fill_ring(ring, b.catalog.nslots);
    bad = mismatches(b.engine, ring, out);
    /* Rounds alternate the two and keep the best of each, so a noisy
     * neighbour or a frequency change hits both alike. */
    for (r = 0; r < ROUNDS; r++) {
        eval = least(eval, time_engine(b.engine, ring, out, nm, &sink));
        walk = least(walk, time_walk(b.engine, ring, nm, &sink));
    }
    gt_engine_size(b.engine, &ninputs, &ninstr);
    ratio = eval / walk;
    printf("layout %-16s %3zu metrics, %4u slots, %3zu inputs, %4zu instructions: "
           "%7.1f ns an evaluation (goal <= %.0f ns), tree walk %8.1f ns, %.2fx; %s\n",
           name, nm, b.catalog.nslots, ninputs, ninstr, eval * 1e9, GOAL_NS, walk * 1e9, ratio,
           bad ? "RESULTS DIFFER from the tree walk" : "results identical to the tree walk");
    printf("summary: engine evaluation, layout %s (%.2fx the tree walk)\t%.0f ns\t<= %.0f ns\t%s\n",
           name, ratio, eval * 1e9, GOAL_NS, eval * 1e9 <= GOAL_NS ? "yes" : "no");
    if (sink == 12345.678)
        printf(" ");
    for (i = 0; i < RING; i++)
        gt_snapshot_free(&ring[i]);
    free(out);
    bench_teardown(&b);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    size_t i;
    int r, failed = 0;

    printf("engine evaluation per snapshot, best of %d rounds of %d (tree walk: %d):\n", ROUNDS,
           SNAPSHOTS, WALKS);
    for (i = 0; i < gt_embedded_layouts_count; i++) {
        const char *name = gt_embedded_layouts[i].path;
        if (argc > 1 && strcmp(argv[1], name) != 0)
            continue;
        r = bench_layout(name);
        if (r < 0)
            printf("layout %s: cannot be set up here\n", name);
        failed |= r != 0;
    }
    return failed;
}
