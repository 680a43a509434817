/* The simulated Bifrost (G52) and Valhall job-manager (G78) GPUs with their
 * layouts: every metric computes, percentages stay inside 0..100 before the
 * references' clamping, per-core cycles keep their order, and every counter
 * the layout reads moves in some busy scene. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/engine.h"
#include "gputop/source.h"

static const char *const busy[] = { "game", "compute", "memory-bound" };

struct run {
    struct gt_source *s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    double out[512];
};

static void open_run(struct run *r, const char *family, const char *scene)
{
    char spec[160];
    struct gt_diag d;

    snprintf(spec, sizeof(spec), "sim:%s,scene=%s,seed=7,step=100000000", family, scene);
    r->s = gt_source_open(spec, gt_sys_real(), &d);
    cr_assert_not_null(r->s, "%s: %s", spec, d.msg);
    /* the family's layout first, then gpu-clocks' (the clocks it models) */
    cr_assert(strncmp(r->s->info.layout, family, strlen(family)) == 0 &&
              strcmp(r->s->info.layout + strlen(family), " gpu-clocks") == 0, "%s",
              r->s->info.layout);
    r->l = gt_layout_load(family, &d);
    cr_assert_not_null(r->l, "%s", d.msg);
    r->e = gt_engine_new(r->l, &r->s->catalog);
    cr_assert_not_null(r->e);
    cr_assert_eq(r->s->type->start(r->s, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
}

static void close_run(struct run *r)
{
    gt_snapshot_free(&r->snap);
    gt_engine_free(r->e);
    gt_layout_free(r->l);
    gt_source_close(r->s);
}

static void sample(struct run *r)
{
    struct gt_diag d;

    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&d);
    cr_assert_eq(r->s->type->sample(r->s, &r->snap, &d), 0, "%s", d.msg);
    gt_engine_eval(r->e, &r->snap, r->out);
}

static uint64_t total(const struct run *r, const char *name)
{
    int k = gt_catalog_find(&r->s->catalog, name);
    uint64_t sum = 0;
    uint32_t i;

    cr_assert_geq(k, 0, "no counter %s", name);
    for (i = 0; i < r->s->catalog.counters[k].instances; i++)
        sum += r->snap.deltas[r->s->catalog.counters[k].slot + i];
    return sum;
}

/* a <= b for every instance of a per-core counter; b per core, or the
 * GPU-wide GPU active cycles when b is NULL */
static void per_core_leq(const struct run *r, const char *a, const char *b)
{
    const struct gt_catalog *c = &r->s->catalog;
    int ka = gt_catalog_find(c, a), kb = b ? gt_catalog_find(c, b) : -1;
    uint64_t gpu = total(r, "MaliGPUCyclesGPUActive");
    uint32_t i;

    cr_assert(ka >= 0 && (!b || kb >= 0), "%s / %s", a, b ? b : "GPU active");
    for (i = 0; i < c->counters[ka].instances; i++)
        cr_expect_leq(r->snap.deltas[c->counters[ka].slot + i],
                      b ? r->snap.deltas[c->counters[kb].slot + i] : gpu, "%s <= %s on core %u",
                      a, b ? b : "GPU active", i);
}

static void check_family(const char *family, const char *any_active)
{
    unsigned char *moved = NULL;
    size_t s, k, m;
    int n;

    for (s = 0; s < sizeof(busy) / sizeof(busy[0]); s++) {
        struct run r;
        open_run(&r, family, busy[s]);
        if (!moved)
            moved = calloc(r.s->catalog.ncounters + 1, 1);
        /* all but the CPU rows, which the cpu source beside it feeds */
        for (m = 0; m < gt_engine_nmetrics(r.e); m++)
            cr_assert(strncmp(r.l->metrics[m].title, "CPU ", 4) == 0 ||
                      !gt_engine_unavailable(r.e, m), "%s: %s unavailable", family,
                      r.l->metrics[m].title);
        for (n = 0; n < 5; n++) {
            sample(&r);
            /* the references clamp to 0..100; the model must not need it */
            cr_expect_leq(total(&r, "MaliGPUCyclesFragmentQueueActive"),
                          total(&r, "MaliGPUCyclesGPUActive"));
            per_core_leq(&r, "MaliShaderCoreCyclesExecutionCoreActive", any_active);
            per_core_leq(&r, "MaliShaderCoreCyclesFragmentActive", any_active);
            per_core_leq(&r, "MaliTextureUnitCyclesFilteringActive",
                         "MaliShaderCoreCyclesExecutionCoreActive");
            for (k = 0; k < r.s->catalog.ncounters; k++)
                if (gt_engine_uses(r.e, k) && r.s->catalog.counters[k].kind == GT_COUNTER_DELTA)
                    moved[k] |= total(&r, r.s->catalog.counters[k].name) > 0;
        }
        if (s + 1 == sizeof(busy) / sizeof(busy[0]))
            for (k = 0; k < r.s->catalog.ncounters; k++)
                if (gt_engine_uses(r.e, k) && r.s->catalog.counters[k].kind == GT_COUNTER_DELTA)
                    cr_expect(moved[k], "%s: %s never moves", family,
                              r.s->catalog.counters[k].name);
        close_run(&r);
    }
    free(moved);
}

Test(sim_families, bifrost_g52)
{
    /* Bifrost has no any-workload counter: each core's cycles stay under
     * the GPU's active cycles */
    check_family("mali-bifrost", NULL);
}

Test(sim_families, valhall_jm_g78)
{
    check_family("mali-valhall-jm", "MaliShaderCoreCyclesAnyWorkloadActive");
}

Test(sim_families, products_and_core_masks)
{
    struct run r;

    open_run(&r, "mali-bifrost", "game");
    cr_assert_str_eq(r.s->info.gpu, "Mali-G52 MC2");
    cr_assert_eq(r.s->info.shader_cores, 2);
    close_run(&r);
    open_run(&r, "mali-valhall-jm", "game");
    cr_assert_str_eq(r.s->info.gpu, "Mali-G78 MC10");
    cr_assert_eq(r.s->info.core_mask, 0x7F7);
    cr_assert_eq(r.s->info.l2_slices, 2);
    close_run(&r);
}
