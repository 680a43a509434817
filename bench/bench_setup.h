/* Shared by the engine and capture benchmarks: a built-in
 * layout compiled against the catalogue the default dashboard gives it:
 * its simulated device (drm-fdinfo: every counter the reader can have; a
 * family with no simulator: a described 12-core device), and the cpu
 * source's counters beside it. */
#ifndef GPUTOP_BENCH_SETUP_H
#define GPUTOP_BENCH_SETUP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gputop/engine.h"
#include "gputop/fdinfo.h"
#include "gputop/gpu_clocks.h"
#include "gputop/source.h"

struct bench_setup {
    struct gt_layout *layout;
    struct gt_catalog catalog;
    struct gt_engine *engine;
};

/* A family with no simulator: its first GPU's counter table on a
 * described device (12 cores, 4 L2 slices), with what a Mali source adds
 * when the kernel sends clock cycles. */
static inline int bench_described(struct gt_catalog *c, const struct gt_layout *l)
{
    struct gt_device_desc dev = { NULL, 12, 4, 128, 0 };

    if (!l->ngpus)
        return -1;
    dev.gpu = l->gpus[0];
    if (gt_catalog_add_device(c, &dev) < 0 ||
        gt_catalog_add(c, GT_MALI_GPU_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0 ||
        gt_catalog_add(c, GT_MALI_SC_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0 ||
        gt_catalog_add_constant(c, GT_MALI_MAX_CLOCK_HZ, 1e9) < 0)
        return -1;
    return 0;
}

/* The device's counters for layout l: the simulator's, when it simulates
 * that family ("sim:NAME"), else a described device. */
static inline int bench_device(struct gt_catalog *c, const struct gt_layout *l)
{
    struct gt_source *src;
    struct gt_diag d;
    char spec[96];
    int r;

    if (strcmp(l->name, "drm-fdinfo") == 0)
        return gt_fdinfo_catalog_full(c);
    if (strcmp(l->name, "gpu-clocks") == 0)
        return gt_clk_catalog_full(c);
    snprintf(spec, sizeof(spec), "sim:%s", l->name);
    src = gt_source_open(spec, NULL, &d);
    if (!src) {
        if (bench_described(c, l) == 0)
            return 0;
        fprintf(stderr, "bench: layout %s: no simulator (%s) and no counter table\n", l->name,
                d.msg);
        return -1;
    }
    r = gt_catalog_merge(c, &src->catalog);
    gt_source_close(src);
    return r;
}

/* 0, or -1 when the layout has no device to bind it to here. */
static inline int bench_setup(struct bench_setup *b, const char *name)
{
    struct gt_diag d;

    b->engine = NULL;
    gt_catalog_init(&b->catalog);
    b->layout = gt_layout_load(name, &d);
    if (!b->layout || bench_device(&b->catalog, b->layout) < 0)
        return -1;
    /* The simulator models its phone's CPUs; other devices get the host
     * cpu source's counters, as the dashboard adds them. */
    if (gt_catalog_find(&b->catalog, "CPUTicksTotal") < 0 &&
        (gt_catalog_add_cpu(&b->catalog, 2) < 0 || gt_catalog_add_cpu_cores(&b->catalog, 2) < 0))
        return -1;
    b->engine = gt_engine_new(b->layout, &b->catalog);
    return b->engine ? 0 : -1;
}

/* The layout a source names as its own: the first of info.layout's
 * words (those after it are the layouts of sources beside it, such as
 * gpu-clocks). */
static inline struct gt_layout *bench_own_layout(const struct gt_source *src, struct gt_diag *d)
{
    char name[64] = "";

    sscanf(src->info.layout, "%63s", name);
    return gt_layout_load_named(name, &src->catalog, d);
}

static inline void bench_teardown(struct bench_setup *b)
{
    gt_engine_free(b->engine);
    gt_catalog_free(&b->catalog);
    gt_layout_free(b->layout);
}

#endif
