/* Sampler benchmark: the cost of one sample of the simulated G720 (or the
 * largest family available) through the engine, the sample rate that cost
 * allows, the rate actually sustained at a 1 ms period, and wake-up
 * jitter at 1 ms and 100 ms. Prints figures; no pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gputop/engine.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct setup {
    struct gt_source *src;
    struct gt_layout *layout;
    struct gt_engine *engine;
};

static int open_setup(struct setup *s, const char *spec)
{
    struct gt_diag d;

    s->src = gt_source_open(spec, NULL, &d);
    if (!s->src)
        return -1;
    s->layout = gt_layout_load(s->src->info.layout, &d);
    if (!s->layout)
        return -1;
    s->engine = gt_engine_new(s->layout, &s->src->catalog);
    return s->engine ? 0 : -1;
}

static void close_setup(struct setup *s)
{
    gt_engine_free(s->engine);
    gt_layout_free(s->layout);
    gt_source_close(s->src);
}

/* CPU time of sample + evaluate, in a tight loop. */
static double cost_per_sample(struct setup *s, int n)
{
    struct gt_snapshot snap;
    double *out = calloc(gt_engine_nmetrics(s->engine) + 1, sizeof(double)), t0;
    struct gt_diag d;
    int i;

    gt_snapshot_init(&snap, s->src->catalog.nslots);
    s->src->type->start(s->src, &d);
    t0 = cpu_s();
    for (i = 0; i < n; i++) {
        s->src->type->sample(s->src, &snap, &d);
        gt_engine_eval(s->engine, &snap, out);
    }
    t0 = cpu_s() - t0;
    gt_snapshot_free(&snap);
    free(out);
    return t0 / n;
}

/* Runs the real sampler at interval for n rounds with a reader that
 * evaluates every snapshot; reports the rate and wake-up lateness. */
static void run_sampler(const char *spec, uint64_t interval, int n)
{
    struct setup s;
    struct gt_sampler_config cfg;
    struct gt_sampler *smp;
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t t0, *late = calloc((size_t)n, sizeof(uint64_t)), prev_end = 0;
    double *out, wall, cpu0;
    uint32_t off = 0;
    int got = 0, k = 0;

    if (open_setup(&s, spec) < 0)
        return;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &s.src;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = s.src->catalog.nslots;
    cfg.interval_ns = interval;
    smp = gt_sampler_new(&cfg);
    out = calloc(gt_engine_nmetrics(s.engine) + 1, sizeof(double));
    gt_snapshot_init(&snap, cfg.nslots);
    cpu0 = cpu_s();
    t0 = gt_now_ns();
    gt_sampler_start(smp, &d);
    while (got < n) {
        if (gt_sampler_take(smp, &snap, 1000000000ull) <= 0)
            continue;
        gt_engine_eval(s.engine, &snap, out);
        got += (int)snap.nsamples;
        /* The sim stamps each interval's end when it samples: its lateness
         * against the grid start + k * interval. */
        if (snap.nsamples == 1 && k < n && snap.t_end_ns != prev_end)
            late[k++] = snap.t_end_ns - t0;
        prev_end = snap.t_end_ns;
    }
    wall = (double)(gt_now_ns() - t0) / 1e9;
    gt_sampler_get_stats(smp, &st);
    gt_sampler_free(smp);
    {
        uint64_t min = UINT64_MAX;
        int i;
        for (i = 0; i < k; i++) {
            uint64_t grid = ((late[i] + interval / 2) / interval) * interval;
            late[i] = late[i] > grid ? late[i] - grid : 0;
            min = late[i] < min ? late[i] : min;
        }
        /* The grid starts when the thread does, a little after t0: measure
         * from the earliest wake-up. */
        for (i = 0; i < k; i++)
            late[i] -= min;
        qsort(late, (size_t)k, sizeof(uint64_t), cmp_u64);
        printf("  %6.1f ms period: %llu samples in %.2f s (%.0f /s), %llu merged, %llu late; "
               "CPU %.1f us per sample; wake-up jitter p50 %.1f us, p99 %.1f us\n",
               (double)interval / 1e6, (unsigned long long)st.samples, wall, st.samples / wall,
               (unsigned long long)st.merged, (unsigned long long)st.late,
               (cpu_s() - cpu0) / (double)st.samples * 1e6,
               k ? (double)late[k / 2] / 1e3 : 0, k ? (double)late[k * 99 / 100] / 1e3 : 0);
    }
    gt_snapshot_free(&snap);
    free(out);
    free(late);
    close_setup(&s);
}

int main(void)
{
    static const char *const specs[] = { "sim:mali-g720", "sim:mali-g715", "sim:mali-t8xx" };
    const char *spec = NULL;
    struct setup s;
    double c;
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]) && !spec; i++)
        if (open_setup(&s, specs[i]) == 0)
            spec = specs[i];
        else if (s.src)
            close_setup(&s);
    if (!spec) {
        fprintf(stderr, "bench: no simulated family with a layout\n");
        return 1;
    }
    c = cost_per_sample(&s, 20000);
    printf("%s, layout %s (%zu metrics): %.2f us CPU per sample + evaluation, "
           "so up to %.0f samples/s on one core\n", spec, s.layout->name,
           gt_engine_nmetrics(s.engine), c * 1e6, 1 / c);
    close_setup(&s);
    run_sampler(spec, 1000000ull, 3000);
    run_sampler(spec, 100000000ull, 50);
    return 0;
}
