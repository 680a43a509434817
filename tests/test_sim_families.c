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
#include "gputop/kbase.h"
#include "gputop/sim.h"
#include "gputop/source.h"

static const char *const busy[] = { "game", "compute", "memory-bound" };

struct run {
    struct gt_source *s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    double out[512];
    char own[64];        /* info.layout's first name: the source's own */
};

static void open_run(struct run *r, const char *family, const char *scene)
{
    char spec[160];
    struct gt_diag d;

    snprintf(spec, sizeof(spec), "sim:%s,scene=%s,seed=7,step=100000000", family, scene);
    r->s = gt_source_open(spec, gt_sys_real(), &d);
    cr_assert_not_null(r->s, "%s: %s", spec, d.msg);
    /* the source's own layout first, then gpu-clocks' when it models the
     * clocks (the Mali sims do; the AMD one has its own clock counters) */
    const char *sp = strchr(r->s->info.layout, ' ');
    cr_assert(!sp || strcmp(sp, " gpu-clocks") == 0, "%s", r->s->info.layout);
    cr_assert(sp || strncmp(family, "gfx", 3) == 0, "%s: %s", family, r->s->info.layout);
    snprintf(r->own, sizeof(r->own), "%.*s",
             sp ? (int)(sp - r->s->info.layout) : (int)strlen(r->s->info.layout),
             r->s->info.layout);
    r->l = gt_layout_load(r->own, &d);
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

static void check_moves(const char *gpu);

static void check_family(const char *family, const char *any_active)
{
    size_t s, m;
    int n;

    for (s = 0; s < sizeof(busy) / sizeof(busy[0]); s++) {
        struct run r;
        open_run(&r, family, busy[s]);
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
        }
        close_run(&r);
    }
    check_moves(family);
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

/* Every counter the layout reads moves in some busy scene: the model
 * feeds each one this GPU's table names. */
static void check_moves(const char *gpu)
{
    unsigned char *moved = NULL;
    size_t s, k;
    int n;

    for (s = 0; s < sizeof(busy) / sizeof(busy[0]); s++) {
        struct run r;
        open_run(&r, gpu, busy[s]);
        if (!moved)
            moved = calloc(r.s->catalog.ncounters + 1, 1);
        for (n = 0; n < 5; n++) {
            sample(&r);
            for (k = 0; k < r.s->catalog.ncounters; k++)
                if (gt_engine_uses(r.e, k) && r.s->catalog.counters[k].kind == GT_COUNTER_DELTA)
                    moved[k] |= total(&r, r.s->catalog.counters[k].name) > 0;
        }
        if (s + 1 == sizeof(busy) / sizeof(busy[0]))
            for (k = 0; k < r.s->catalog.ncounters; k++)
                if (gt_engine_uses(r.e, k) && r.s->catalog.counters[k].kind == GT_COUNTER_DELTA)
                    cr_expect(moved[k], "sim:%s: %s never moves", gpu,
                              r.s->catalog.counters[k].name);
        close_run(&r);
    }
    free(moved);
}

/* G710 and its smaller parts: the CSF front end without ray tracing; every
 * metric of its layout computes. */
Test(sim_families, valhall_csf_g710)
{
    struct run r;
    size_t m;

    open_run(&r, "mali-valhall-csf", "game");
    cr_expect_str_eq(r.s->info.gpu, "Mali-G710 MC10");
    for (m = 0; m < gt_engine_nmetrics(r.e); m++)
        cr_expect(strncmp(r.l->metrics[m].title, "CPU ", 4) == 0 ||
                  !gt_engine_unavailable(r.e, m), "%s unavailable", r.l->metrics[m].title);
    close_run(&r);
    check_moves("mali-valhall-csf");
}

/* Issue 43 item 5: sim: takes any GPU the counter tables know, as csv:'s
 * gpu= does, spelt as users write it, and runs it under the layout
 * gputop would pick on that hardware (kbase_props.c's model table, which
 * follows kbase's product table), its table's counters fed. A metric
 * whose counter that GPU's table lacks is unavailable as on hardware. */
Test(sim_families, any_gpu_the_tables_know)
{
    struct gt_mali_model g;
    char number[32], spelt[3][48];
    size_t i, k;

    for (i = 0; gt_mali_model_at(i, &g) == 0; i++) {
        const char *dash = strchr(g.name, '-');
        snprintf(number, sizeof(number), "%s", dash + 1);
        snprintf(spelt[0], sizeof(spelt[0]), "%s", number);
        snprintf(spelt[1], sizeof(spelt[1]), "%s", g.name);
        snprintf(spelt[2], sizeof(spelt[2]), "mali-%s", number);
        for (k = 0; k < 3; k++) {
            struct run r;
            open_run(&r, spelt[k], "game");
            cr_expect_str_eq(r.own, g.layout, "sim:%s", spelt[k]);
            cr_expect(strstr(r.s->info.gpu, number), "sim:%s is %s", spelt[k], r.s->info.gpu);
            close_run(&r);
        }
        check_moves(number);
    }
    cr_assert_gt(i, 20);
}

Test(sim_families, gpu_names_keep_their_part_and_id)
{
    struct run r;

    open_run(&r, "G57", "game");
    cr_expect_str_eq(r.s->info.gpu, "Mali-G57 MP10");   /* two-digit G: MPn (Arm) */
    cr_expect_eq(r.s->info.gpu_id, 0x9001);             /* TNAx */
    close_run(&r);
    open_run(&r, "G715", "game");                        /* 7 cores: not Immortalis */
    cr_expect_str_eq(r.s->info.gpu, "Mali-G715 MC7");
    close_run(&r);
    open_run(&r, "G925", "game");
    cr_expect_str_eq(r.s->info.gpu, "Immortalis-G925 MC12");
    cr_expect_str_eq(r.own, "mali-g720");
    close_run(&r);
    open_run(&r, "gfx1151", "idle");
    cr_expect_str_eq(r.own, "amd-gfx1151");
    close_run(&r);
}

Test(sim_families, a_gpu_without_a_table_says_so)
{
    struct gt_diag d;

    cr_assert_null(gt_source_open("sim:mali-g71", gt_sys_real(), &d));
    cr_expect(strstr(d.msg, "Mali-G71 has no counter table"), "%s", d.msg);
    cr_expect(strstr(d.msg, "G57"), "%s", d.msg);
}

/* --help and --list-sources say what sim: takes */
Test(sim_families, names_listed)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *want[] = { "mali-valhall-csf", "mips-cm", "G925", "T760", "gfx1151",
                           "memory-bound", "texture-bound", "cache-friendly", "drift" };
    size_t i;

    gt_sim_print_names(f, 2);
    fclose(f);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        cr_expect(strstr(buf, want[i]), "no %s in:\n%s", want[i], buf);
    free(buf);
}
