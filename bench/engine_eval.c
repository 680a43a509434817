/* Engine benchmark: evaluates the largest layout over 100k synthetic
 * snapshots and compares with the same expressions compiled as native C
 * (the floor). Prints figures; no pass/fail. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "bench_setup.h"

#define SNAPSHOTS 100000   /* per round */
#define ROUNDS 7
#define RING 256

void floor_eval(const uint64_t *d, double secs, double *out);

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

int main(void)
{
    struct bench_setup b;
    static struct gt_snapshot ring[RING];
    double *out, *ref, t0, t1, t_engine, t_floor, sink = 0;
    int r;
    size_t i, m, nm, navail = 0, mismatches = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;

    if (bench_setup(&b) < 0)
        return 1;
    nm = gt_engine_nmetrics(b.engine);
    out = calloc(nm, sizeof(double));
    ref = calloc(nm, sizeof(double));
    for (i = 0; i < RING; i++) {
        gt_snapshot_init(&ring[i], b.catalog.nslots);
        for (m = 0; m < b.catalog.nslots; m++)
            ring[i].deltas[m] = rng(&seed) % 100000000u;
        ring[i].t_start_ns = i * 100000000ull;
        ring[i].t_end_ns = (i + 1) * 100000000ull;
    }
    for (m = 0; m < nm; m++)
        navail += gt_engine_unavailable(b.engine, m) == NULL;
    for (i = 0; i < RING; i++) {
        gt_engine_eval(b.engine, &ring[i], out);
        floor_eval(ring[i].deltas, gt_engine_seconds(&ring[i]), ref);
        for (m = 0; m < nm; m++)
            mismatches += !same(out[m], ref[m]);
    }
    /* Rounds alternate engine and floor and the best of each is kept, so
     * a noisy neighbour or a frequency change hits both alike. */
    t_engine = t_floor = 1e9;
    for (r = 0; r < ROUNDS; r++) {
        t0 = now_s();
        for (i = 0; i < SNAPSHOTS; i++) {
            gt_engine_eval(b.engine, &ring[i % RING], out);
            sink += out[i % nm];
        }
        t1 = now_s() - t0;
        t_engine = t1 < t_engine ? t1 : t_engine;
        t0 = now_s();
        for (i = 0; i < SNAPSHOTS; i++) {
            floor_eval(ring[i % RING].deltas, gt_engine_seconds(&ring[i % RING]), ref);
            sink += ref[i % nm];
        }
        t1 = now_s() - t0;
        t_floor = t1 < t_floor ? t1 : t_floor;
    }
    printf("layout %s: %zu metrics (%zu available), %u counter slots\n",
           b.layout->name, nm, navail, b.catalog.nslots);
    printf("engine: %.1f ns per snapshot, %.2f ns per metric\n",
           t_engine / SNAPSHOTS * 1e9, t_engine / SNAPSHOTS / (double)nm * 1e9);
    printf("floor (native C): %.1f ns per snapshot, %.2f ns per metric\n",
           t_floor / SNAPSHOTS * 1e9, t_floor / SNAPSHOTS / (double)nm * 1e9);
    printf("ratio engine/floor: %.2fx (target: within 3x; best of %d rounds of %d)\n",
           t_engine / t_floor, ROUNDS, SNAPSHOTS);
    printf("results identical to the floor: %s (%zu mismatches)\n",
           mismatches ? "NO" : "yes", mismatches);
    if (sink == 12345.678)
        printf(" ");
    for (i = 0; i < RING; i++)
        gt_snapshot_free(&ring[i]);
    free(out);
    free(ref);
    bench_teardown(&b);
    return mismatches ? 1 : 0;
}
