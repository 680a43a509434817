/* Bifrost and Valhall job-manager GPUs, and GPUs with no counter table, on
 * the fake kbase kernel: deltas injected at the hardware indices of the
 * upstream lists (gator's MaliHwCntrNamesGenerated.h, checked against
 * libGPUCounters' offsets) reach the layouts' metrics with values worked out
 * by hand; an unknown GPU gets the raw view. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/mali_harness.h"
#include "fakes/tmux.h"

static struct fake_kbase *fake_id(enum fk_gpu gpu, enum fk_api api, unsigned major,
                                  unsigned minor, uint64_t id)
{
    struct fk_config c;
    struct fake_kbase *fk;

    memset(&c, 0, sizeof(c));
    c.gpu = gpu;
    c.api = api;
    c.major = major;
    c.minor = minor;
    c.new_gate = 1;
    c.gpu_id = id;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    return fk;
}

/* G52: GPU_ACTIVE front-end 6, JS0_ACTIVE 10, FRAG_ACTIVE shader 4,
 * EXEC_CORE_ACTIVE 26, L2_EXT_READ_BEATS memsys 32. */
Test(mali_families, g52_legacy_reader_feeds_the_bifrost_layout)
{
    struct kb t;

    kb_start(&t, fake(FK_G52, FK_JM, 11, 20), "mali");
    HAS(t.s->info.gpu, "Mali-G52 MP2");
    cr_assert_str_eq(t.s->info.layout, "mali-bifrost");
    HAS(t.s->info.detail, "legacy");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_set_counter(t.fk, FK_FE, 0, 10, 800);
    fk_set_counter(t.fk, FK_SHADER, 0, 4, 600);
    fk_set_counter(t.fk, FK_SHADER, 1, 4, 400);
    fk_set_counter(t.fk, FK_SHADER, 0, 26, 500);
    fk_set_counter(t.fk, FK_SHADER, 1, 26, 300);
    fk_set_counter(t.fk, FK_MEMSYS, 0, 32, 10);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "Fragment queue utilization"), 80, 1e-9);
    cr_assert_float_eq(kb_metric(&t, "Fragment utilization"), 50, 1e-9);        /* 1000/2/1000 */
    cr_assert_float_eq(kb_metric(&t, "Execution core utilization"), 40, 1e-9);  /* 800/2/1000 */
    cr_assert_eq(kb_counter(&t, "MaliExternalBusBeatsReadBeats", 0), 10);
    cr_assert_float_eq(kb_metric(&t, "Read bytes"), 10.0 * t.s->info.bus_width_bits / 8, 1e-9);
    kb_stop(&t);
}

/* G78: FRAG_ACTIVE shader 4, SHADER_CORE_ACTIVE 53; ten cores on mask
 * 0x7F7, read through kinstr_prfcnt (JM 11.40 has no legacy reader). */
Test(mali_families, g78_kinstr_feeds_the_valhall_jm_layout)
{
    struct kb t;
    unsigned c;

    kb_start(&t, fake(FK_G78, FK_JM, 11, 40), "mali");
    HAS(t.s->info.gpu, "Mali-G78 MP10");
    cr_assert_str_eq(t.s->info.layout, "mali-valhall-jm");
    HAS(t.s->info.detail, "kinstr");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    for (c = 0; c < 10; c++) {
        fk_set_counter(t.fk, FK_SHADER, c, 4, 100);
        fk_set_counter(t.fk, FK_SHADER, c, 53, 150);
    }
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "Fragment utilization"), 100.0 * 1000 / 1500, 1e-9);
    cr_assert_float_eq(kb_metric(&t, "Shader core clock ratio"), 15, 1e-9);    /* 1500/10/1000 */
    kb_stop(&t);
}

/* The legacy reader puts shader blocks at their physical core: logical
 * core 3 of mask 0x7F7 is physical core 4 (core 3 is fused off). */
Test(mali_families, g78_legacy_reader_skips_the_fused_off_core)
{
    struct kb t;

    kb_start(&t, fake(FK_G78, FK_JM, 11, 20), "mali");
    HAS(t.s->info.detail, "legacy");
    fk_set_counter(t.fk, FK_SHADER, 3, 4, 77);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesFragmentActive", 3), 77);
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesFragmentActive", 2), 0);
    kb_stop(&t);
}

/* A GPU id gputop has never heard of, on a CSF kernel with 128 values a
 * block: every counter as a rate, titled by block and index. */
Test(mali_families, unknown_gpu_gets_the_raw_view)
{
    struct kb t;
    unsigned c;

    kb_start(&t, fake_id(FK_G715, FK_CSF, 1, 21, 0xE2000000), "mali");
    cr_assert_str_eq(t.s->info.layout, "raw");
    HAS(t.s->info.gpu, "unknown id 0xe2000000");
    cr_assert_geq(gt_catalog_find(&t.s->catalog, "MaliRawShaderCore127"), 0);
    cr_assert_lt(gt_catalog_find(&t.s->catalog, "MaliRawShaderCore3"), 0, "header values");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    for (c = 0; c < 7; c++)
        fk_set_counter(t.fk, FK_SHADER, c, 100, 50);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    /* 100 ms intervals: 1000 counts are 10000 a second; 7 cores x 50 = 350 */
    cr_assert_float_eq(kb_metric(&t, "front-end 4"), 10000, 1e-6);
    cr_assert_float_eq(kb_metric(&t, "shadercore 100"), 3500, 1e-6);
    kb_stop(&t);
}

/* A GPU gputop names but has no table for (Mali-G71) on a 64-value
 * job-manager kernel: the raw view stops at index 63. */
Test(mali_families, named_gpu_without_a_table_gets_the_raw_view)
{
    struct kb t;
    int status;
    char *out;

    kb_start(&t, fake_id(FK_G52, FK_JM, 11, 20, 0x60000000), "mali");
    cr_assert_str_eq(t.s->info.layout, "raw");
    HAS(t.s->info.gpu, "Mali-G71");
    cr_assert_geq(gt_catalog_find(&t.s->catalog, "MaliRawMemsys63"), 0);
    cr_assert_lt(gt_catalog_find(&t.s->catalog, "MaliRawMemsys64"), 0);
    kb_stop(&t);
    out = probe(fake_id(FK_G52, FK_JM, 11, 20, 0x60000000), &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "layout:           raw");
    HAS(out, "Mali-G71, which has no counter table");
    HAS(out, "first sample:     ok");
    free(out);
}

Test(mali_families, probe_says_which_layout_and_why)
{
    int status;
    char *out = probe(fake(FK_G78, FK_JM, 11, 40), &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "layout:           mali-valhall-jm");
    HAS(out, "product id 0x9002 is Mali-G78: counter table G78, Valhall, job manager layout");
    free(out);
    out = probe(fake(FK_G52, FK_JM, 11, 20), &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "layout:           mali-bifrost");
    HAS(out, "Bifrost, job manager");
    free(out);
}

Test(mali_families, raw_view_on_the_dashboard, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s G715 csf 1.21 id=e2000000 0:0:4=1000 -- --no-cpu",
             fake_bin());
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "front-end 4", 10000, &found);
    cr_assert(found, "the raw view's first section:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "10", 10000, &found);
    cr_assert(found, "%s", s);
    free(s);
    tmux_literal(&t, "4");                      /* the shader-core section */
    s = tmux_wait_for(&t, "shadercore 4 ", 10000, &found);
    cr_assert(found, "every delivered counter from index 4:\n%s", s);
    cr_assert(strstr(s, "Counter 4 of the shadercore block"), "%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}

/* The Bifrost dashboard as a person sees it: a G52 on the legacy reader,
 * 800 of 1000 GPU cycles with fragment work queued (JS0_ACTIVE, index 10;
 * GPU_ACTIVE, index 6). */
Test(mali_families, bifrost_dashboard_shows_the_injected_values, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s G52 jm 11.20 0:0:6=1000 0:0:10=800 -- --no-cpu", fake_bin());
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "Mali-G52 MP2", 10000, &found);
    cr_assert(found, "header names the GPU:\n%s", s);
    free(s);
    tmux_literal(&t, "2");                      /* GPU activity */
    s = tmux_wait_for(&t, "80.0 %", 10000, &found);
    cr_assert(found, "fragment queue utilization 80.0 %% on screen:\n%s", s);
    cr_assert(strstr(s, "Fragment queue utilization"), "%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}
