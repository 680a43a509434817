/* Shared by the engine benchmark and its floor generator: the layout with
 * the most metrics, compiled against a catalogue of a large device. */
#ifndef GPUTOP_BENCH_SETUP_H
#define GPUTOP_BENCH_SETUP_H

#include <stdio.h>
#include <stdlib.h>
#include "gputop/engine.h"

struct bench_setup {
    struct gt_layout *layout;
    struct gt_catalog catalog;
    struct gt_engine *engine;
};

static inline int bench_setup(struct bench_setup *b)
{
    struct gt_diag d;
    struct gt_device_desc dev = { NULL, 12, 4, 128, 0 };
    size_t i, best = 0, most = 0;

    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct gt_layout *l = gt_layout_load(gt_embedded_layout_name(i), &d);
        if (l && l->nmetrics > most && l->ngpus > 0) {
            most = l->nmetrics;
            best = i;
        }
        gt_layout_free(l);
    }
    if (!most) {
        fprintf(stderr, "bench: no embedded layout with a gpu line\n");
        return -1;
    }
    b->layout = gt_layout_load(gt_embedded_layout_name(best), &d);
    gt_catalog_init(&b->catalog);
    dev.gpu = b->layout->gpus[0];
    /* with what a Mali source adds when the kernel sends clock cycles, so
     * the header's busy share and clock are evaluated too */
    if (gt_catalog_add_device(&b->catalog, &dev) < 0 ||
        gt_catalog_add(&b->catalog, GT_MALI_GPU_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1,
                       1.0) < 0 ||
        gt_catalog_add(&b->catalog, GT_MALI_SC_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1,
                       1.0) < 0 ||
        gt_catalog_add_constant(&b->catalog, GT_MALI_MAX_CLOCK_HZ, 1e9) < 0 ||
        gt_catalog_add_cpu(&b->catalog, 2) < 0)
        return -1;
    b->engine = gt_engine_new(b->layout, &b->catalog);
    return b->engine ? 0 : -1;
}

static inline void bench_teardown(struct bench_setup *b)
{
    gt_engine_free(b->engine);
    gt_catalog_free(&b->catalog);
    gt_layout_free(b->layout);
}

#endif
