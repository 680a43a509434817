/* The panfrost source end to end on the fake panfrost device: the GPU
 * named from GET_PARAM, dump blocks mapped as the kbase source maps them,
 * the kernel's ENOSYS / EBUSY / ETIMEDOUT told to the user, and discovery
 * finding the node through sysfs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/fake_panfrost.h"
#include "gputop/cli.h"
#include "gputop/drm.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"

#define HAS(msg, text) cr_assert(strstr((msg), (text)), "'%s' not in: %s", (text), (msg))

/* Dump block positions for one L2 slice. */
enum { JM = 0, TILER = 1, L2 = 2, CORE0 = 3 };

struct pf {
    struct fake_panfrost *fp;
    struct gt_source *s;
    struct gt_layout *l;
    struct gt_engine *e;
    struct gt_snapshot snap;
    double out[512];
    struct gt_diag d;
};

static struct fake_panfrost *fake(int unstable, uint64_t shader_present)
{
    struct fp_config c = { .unstable_ioctls = unstable, .shader_present = shader_present };
    struct fake_panfrost *fp = fp_new(&c);

    cr_assert_not_null(fp);
    return fp;
}

static void pf_start(struct pf *t, struct fake_panfrost *fp, const char *spec)
{
    memset(t, 0, sizeof(*t));
    t->fp = fp;
    t->s = gt_source_open(spec, fp_sys(fp), &t->d);
    cr_assert_not_null(t->s, "%s: %s", spec, t->d.msg);
    t->l = gt_layout_load(t->s->info.layout, &t->d);
    cr_assert_not_null(t->l, "%s", t->d.msg);
    t->e = gt_engine_new(t->l, &t->s->catalog);
    cr_assert_not_null(t->e);
    cr_assert_eq(t->s->type->start(t->s, &t->d), 0, "%s", t->d.msg);
    cr_assert_eq(gt_snapshot_init(&t->snap, t->s->catalog.nslots), 0);
}

static int pf_sample(struct pf *t)
{
    gt_snapshot_zero(&t->snap);
    gt_diag_clear(&t->d);
    return t->s->type->sample(t->s, &t->snap, &t->d);
}

static double pf_metric(struct pf *t, const char *ref)
{
    int m = gt_layout_find_metric(t->l, ref);

    cr_assert_geq(m, 0, "no metric %s", ref);
    gt_engine_eval(t->e, &t->snap, t->out);
    return t->out[m];
}

static uint64_t pf_counter(struct pf *t, const char *name, uint32_t inst)
{
    int k = gt_catalog_find(&t->s->catalog, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    cr_assert_lt(inst, t->s->catalog.counters[k].instances);
    return t->snap.deltas[t->s->catalog.counters[k].slot + inst];
}

static void pf_stop(struct pf *t)
{
    const struct fp_stats *st;

    gt_snapshot_free(&t->snap);
    gt_engine_free(t->e);
    gt_layout_free(t->l);
    gt_source_close(t->s);
    st = fp_stats(t->fp);
    cr_expect_eq(st->open_fds, 0, "file descriptors left open: %d", st->open_fds);
    cr_expect_eq(st->owner_fd, -1, "the counters were left enabled");
    cr_expect_eq(st->protocol_errors, 0);
    fp_free(t->fp);
}

static const char *open_error(struct fake_panfrost *fp, const char *spec, struct gt_diag *d)
{
    struct gt_source *s = gt_source_open(spec, fp_sys(fp), d);

    cr_assert_null(s, "%s opened, but should have failed", spec);
    cr_expect_eq(fp_stats(fp)->open_fds, 0, "a failed open left a file open");
    return d->msg;
}

Test(panfrost, t830_named_from_get_param_with_the_kbase_layout)
{
    struct pf t;

    pf_start(&t, fake(1, 0), "panfrost:/dev/dri/renderD129");
    cr_assert_str_eq(t.s->info.gpu, "Mali-T830 MP4");
    cr_assert_str_eq(t.s->info.layout, "mali-t8xx");
    cr_assert_eq(t.s->info.gpu_id, 0x08301000ull);
    cr_assert_eq(t.s->info.shader_cores, 4);
    cr_assert_eq(t.s->info.l2_slices, 1);
    cr_assert_eq(t.s->info.bus_width_bits, 128);
    /* (1 L2 slice + fls(0xF) = 4 cores + 2) blocks * 64 values * 4 bytes */
    HAS(t.s->info.detail, "1792-byte dumps");
    HAS(t.s->info.detail, "r1p0");
    pf_stop(&t);
}

Test(panfrost, dump_blocks_reach_the_metrics)
{
    struct pf t;
    unsigned c;

    pf_start(&t, fake(1, 0), "panfrost:/dev/dri/renderD129");
    fp_set_counter(t.fp, JM, 6, 1000);           /* GPU_ACTIVE */
    fp_set_counter(t.fp, JM, 10, 750);           /* JS0_ACTIVE */
    for (c = 0; c < 4; c++)
        fp_set_counter(t.fp, CORE0 + c, 4, 100 * (c + 1));   /* FRAG_ACTIVE */
    cr_assert_eq(pf_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(pf_metric(&t, "3.1.1"), 1000, 1e-9);
    cr_assert_float_eq(pf_metric(&t, "3.2.2"), 75, 1e-9);
    for (c = 0; c < 4; c++)
        cr_assert_eq(pf_counter(&t, "MaliShaderCoreCyclesFragmentActive", c), 100 * (c + 1));
    cr_assert_gt(gt_snapshot_ns(&t.snap), 0);
    pf_stop(&t);
}

/* Kernels from 6.6 print the GPU's top clock in the node's own fdinfo
 * (drm-maxfreq-*): with it the T830 layout's busy share of max-clock time,
 * which the kbase source gets from GPU_FREQ_KHZ_MAX, works on panfrost too.
 * 200M active cycles in 1 s at 800 MHz: 25 %. */
Test(panfrost, max_clock_from_its_own_fdinfo_gives_the_busy_share)
{
    struct fp_config c = { .unstable_ioctls = 1, .maxfreq_hz = 800000000 };
    struct fake_panfrost *fp = fp_new(&c);
    struct pf t;
    int k;

    cr_assert_not_null(fp);
    pf_start(&t, fp, "panfrost");
    k = gt_catalog_find(&t.s->catalog, GT_MALI_MAX_CLOCK_HZ);
    cr_assert_geq(k, 0, "no max clock in the catalogue");
    cr_assert_float_eq(t.s->catalog.counters[k].value, 8e8, 1e-3);
    fp_set_counter(t.fp, JM, 6, 200000000);      /* GPU_ACTIVE */
    cr_assert_eq(pf_sample(&t), 0, "%s", t.d.msg);
    t.snap.t_start_ns = 1000000000ull;
    t.snap.t_end_ns = 2000000000ull;
    cr_assert_float_eq(pf_metric(&t, "GPU busy share of max-clock time"), 25.0, 1e-9);
    pf_stop(&t);
}

/* Before 6.6 the fdinfo has no drm-maxfreq: no constant, and the metric
 * says what it lacks rather than guessing. */
Test(panfrost, no_max_clock_on_kernels_that_do_not_print_it)
{
    struct pf t;
    int m;

    pf_start(&t, fake(1, 0), "panfrost");
    cr_assert_lt(gt_catalog_find(&t.s->catalog, GT_MALI_MAX_CLOCK_HZ), 0);
    m = gt_layout_find_metric(t.l, "GPU busy share of max-clock time");
    cr_assert_geq(m, 0);
    cr_assert_not_null(gt_engine_unavailable(t.e, (size_t)m));
    pf_stop(&t);
}

Test(panfrost, sparse_core_mask_skips_the_hole_in_the_dump)
{
    struct pf t;

    /* Cores 0, 1 and 3: the dump still carries a block for position 2. */
    pf_start(&t, fake(1, 0xB), "panfrost:/dev/dri/renderD129");
    cr_assert_str_eq(t.s->info.gpu, "Mali-T830 MP3");
    HAS(t.s->info.detail, "1792-byte dumps");
    fp_set_counter(t.fp, CORE0 + 0, 4, 10);
    fp_set_counter(t.fp, CORE0 + 1, 4, 20);
    fp_set_counter(t.fp, CORE0 + 2, 4, 999);     /* the hole: no core there */
    fp_set_counter(t.fp, CORE0 + 3, 4, 40);
    cr_assert_eq(pf_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(pf_counter(&t, "MaliShaderCoreCyclesFragmentActive", 0), 10);
    cr_assert_eq(pf_counter(&t, "MaliShaderCoreCyclesFragmentActive", 1), 20);
    cr_assert_eq(pf_counter(&t, "MaliShaderCoreCyclesFragmentActive", 2), 40);
    pf_stop(&t);
}

Test(panfrost, l2_and_tiler_blocks_land_in_memsys_and_tiler)
{
    struct pf t;
    int k;

    pf_start(&t, fake(1, 0), "panfrost:/dev/dri/renderD129");
    /* Every memsys and tiler counter of the table gets a value of its own
     * at its index in the dump's L2 and tiler blocks. */
    for (k = 0; k < (int)t.s->catalog.ncounters; k++) {
        const struct gt_counter *ct = &t.s->catalog.counters[k];
        if (ct->hw_index < 4 || ct->kind != GT_COUNTER_DELTA)
            continue;
        if (strcmp(ct->block, "memsys") == 0)
            fp_set_counter(t.fp, L2, (unsigned)ct->hw_index, 1000u + (unsigned)ct->hw_index);
        if (strcmp(ct->block, "tiler") == 0)
            fp_set_counter(t.fp, TILER, (unsigned)ct->hw_index, 2000u + (unsigned)ct->hw_index);
    }
    cr_assert_eq(pf_sample(&t), 0, "%s", t.d.msg);
    for (k = 0; k < (int)t.s->catalog.ncounters; k++) {
        const struct gt_counter *ct = &t.s->catalog.counters[k];
        uint64_t v = t.snap.deltas[ct->slot];
        if (ct->hw_index < 4 || ct->kind != GT_COUNTER_DELTA)
            continue;
        if (strcmp(ct->block, "memsys") == 0)
            cr_assert_eq(v, 1000u + (unsigned)ct->hw_index, "%s", ct->name);
        if (strcmp(ct->block, "tiler") == 0)
            cr_assert_eq(v, 2000u + (unsigned)ct->hw_index, "%s", ct->name);
    }
    pf_stop(&t);
}

Test(panfrost, same_catalogue_as_the_kbase_source_on_a_t830)
{
    struct fk_config kc = { .gpu = FK_T830, .api = FK_JM, .major = 11, .minor = 20,
                            .new_gate = 1 };
    struct fake_kbase *fk = fk_new(&kc);
    struct fake_panfrost *fp = fake(1, 0);
    struct gt_diag d;
    struct gt_source *mali = gt_source_open("mali", fk_sys(fk), &d);
    struct gt_source *pan = gt_source_open("panfrost", fp_sys(fp), &d);
    size_t k;

    cr_assert_not_null(mali);
    cr_assert_not_null(pan, "%s", d.msg);
    cr_assert_str_eq(pan->info.layout, mali->info.layout);
    cr_assert_str_eq(pan->info.gpu, mali->info.gpu);
    cr_assert_leq(pan->catalog.ncounters, mali->catalog.ncounters);
    for (k = 0; k < pan->catalog.ncounters; k++) {
        const struct gt_counter *a = &pan->catalog.counters[k], *b = &mali->catalog.counters[k];
        cr_assert_str_eq(a->name, b->name);
        cr_assert_eq(a->instances, b->instances, "%s", a->name);
        cr_assert_eq(a->hw_index, b->hw_index, "%s", a->name);
    }
    gt_source_close(mali);
    gt_source_close(pan);
    fk_free(fk);
    fp_free(fp);
}

Test(panfrost, enosys_says_how_to_set_unstable_ioctls)
{
    struct fake_panfrost *fp = fake(0, 0);
    struct gt_diag d;
    const char *m = open_error(fp, "panfrost", &d);

    HAS(m, "/dev/dri/renderD129");
    HAS(m, "ENOSYS");
    HAS(m, "echo Y > /sys/module/panfrost/parameters/unstable_ioctls");
    fp_free(fp);
}

Test(panfrost, ebusy_says_another_client_owns_the_counters)
{
    struct fake_panfrost *fp = fake(1, 0);
    struct gt_diag d;
    const char *m;

    fp_take_counters(fp);
    m = open_error(fp, "panfrost", &d);
    HAS(m, "/dev/dri/renderD129");
    HAS(m, "another program owns panfrost's counters");
    fp_free(fp);
}

Test(panfrost, a_dump_timeout_loses_one_interval_only)
{
    struct pf t;

    pf_start(&t, fake(1, 0), "panfrost");
    fp_set_counter(t.fp, JM, 6, 500);
    fp_hang_next_dump(t.fp);
    cr_assert_eq(pf_sample(&t), -1);
    HAS(t.d.msg, "/dev/dri/renderD129");
    HAS(t.d.msg, "ETIMEDOUT");
    cr_assert_eq(pf_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(pf_counter(&t, "MaliGPUCyclesGPUActive", 0), 500);
    pf_stop(&t);
}

Test(panfrost, not_a_mali_gpu_names_the_id)
{
    /* Mali-G71: named, but no counter table (G52, 0x7212, now has one) */
    struct fp_config c = { .unstable_ioctls = 1, .prod_id = 0x6000 };
    struct fake_panfrost *fp = fp_new(&c);
    struct gt_diag d;
    const char *m = open_error(fp, "panfrost", &d);

    HAS(m, "has no gputop counter table");
    HAS(m, "0x60001000");   /* GPU_ID: product 0x6000, revision 0x1000 */
    fp_free(fp);
}

Test(drm_discovery, lists_driver_render_node_and_platform_bus)
{
    struct fake_panfrost *fp = fake(1, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    gt_drm_describe(fp_sys(fp), f);
    fclose(f);
    HAS(buf, "DRM devices: 1");
    HAS(buf, "/dev/dri/card0  driver panfrost  render /dev/dri/renderD129  bus platform "
             "/gpu@ff9a0000");
    HAS(buf, "--source panfrost");
    cr_expect_eq(fp_stats(fp)->open_fds, 0);
    free(buf);
    fp_free(fp);
}

static char *probe(struct fake_panfrost *fp, int *status)
{
    struct gt_options o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    memset(&o, 0, sizeof(o));
    *status = gt_cmd_probe(&o, fp_sys(fp), f);
    fclose(f);
    return buf;
}

Test(drm_discovery, probe_lists_the_device_and_reads_a_panfrost_sample)
{
    struct fake_panfrost *fp = fake(1, 0);
    int status;
    char *out = probe(fp, &status);

    HAS(out, "driver panfrost  render /dev/dri/renderD129");
    HAS(out, "panfrost /dev/dri/renderD129");
    HAS(out, "Mali-T830 MP4 (id 0x08301000, core mask 0xf, 1 L2 slice(s), 128-bit bus)");
    HAS(out, "layout     mali-t8xx");
    HAS(out, "first sample arrived");
    cr_assert_eq(status, 0, "%s", out);
    cr_expect_eq(fp_stats(fp)->open_fds, 0);
    cr_expect_eq(fp_stats(fp)->owner_fd, -1);
    free(out);
    fp_free(fp);
}

Test(drm_discovery, probe_tells_how_to_unlock_the_counters)
{
    struct fake_panfrost *fp = fake(0, 0);
    int status;
    char *out = probe(fp, &status);

    HAS(out, "driver panfrost");
    HAS(out, "cannot read counters: /dev/dri/renderD129: panfrost's counter ioctls are off");
    HAS(out, "unstable_ioctls");
    cr_assert_neq(status, 0);
    free(out);
    fp_free(fp);
}
