/* The Mali source on the kernel variants real phones run (issue 12): what
 * kinstr_prfcnt's ENUM_INFO says it can deliver, shader block numbers by
 * physical core whatever the version claims, (major, minor) version
 * gates, the legacy reader's old mmap rule, pre-r21 failures in the call
 * header, EPERM/EBUSY DUMP semantics and a suspended GPU. Expected values
 * are worked out from the injected deltas by hand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/mali_harness.h"

static struct fk_config kernel(enum fk_gpu gpu, enum fk_api api, unsigned major, unsigned minor)
{
    struct fk_config c;

    memset(&c, 0, sizeof(c));
    c.gpu = gpu;
    c.api = api;
    c.major = major;
    c.minor = minor;
    c.new_gate = 1;
    return c;
}

static struct fake_kbase *fake_of(const struct fk_config *c)
{
    struct fake_kbase *fk = fk_new(c);

    cr_assert_not_null(fk);
    return fk;
}

static int metric_unavailable(struct kb *t, const char *ref)
{
    int m = gt_layout_find_metric(t->l, ref);

    cr_assert_geq(m, 0, "no metric %s", ref);
    return gt_engine_unavailable(t->e, (size_t)m) != NULL;
}

/* ---- item 1: frames from ENUM_INFO ---- */

Test(mali_kernels, csf_kernel_with_64_value_blocks_leaves_out_counters_64_to_127)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 21);
    struct kb t;
    unsigned i;

    c.nvalues = 64;   /* PRFCNT_FEATURES not valid: the kernel's default */
    kb_start(&t, fake_of(&c), "mali");
    HAS(t.s->info.detail, "kinstr_prfcnt");
    HAS(t.s->info.detail, "64 values per block");
    cr_assert_lt(gt_catalog_find(&t.s->catalog, "MaliCoreThreadsFragmentThreads"), 0,
                 "FRAG_SHADER_THREADS is counter 69: out of reach");
    cr_assert(metric_unavailable(&t, "4.4.3"), "fragments per pixel needs counter 69");
    cr_assert(!metric_unavailable(&t, "5.3.1"), "shader core usage needs 4 and 53 only");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    for (i = 0; i < 7; i++)
        fk_set_counter(t.fk, FK_SHADER, i, 53, 300);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "5.3.1"), 30.0, 1e-9);
    cr_assert(isnan(kb_metric(&t, "4.4.3")), "no number for a metric it cannot compute");
    kb_stop(&t);
}

Test(mali_kernels, g720_on_64_value_blocks_gives_no_wrong_percentages)
{
    struct fk_config c = kernel(FK_G720, FK_CSF, 1, 24);
    struct kb t;
    size_t m, cut = 0;

    c.nvalues = 64;
    kb_start(&t, fake_of(&c), "mali");
    /* every metric that reads a counter at 64 or above is unavailable,
     * none is computed from the counters below 64 alone with zeros */
    for (m = 0; m < gt_engine_nmetrics(t.e); m++)
        cut += gt_engine_unavailable(t.e, m) != NULL;
    cr_assert_geq(cut, 21, "only %zu metrics unavailable", cut);
    for (m = 0; m < t.s->catalog.ncounters; m++)
        cr_assert_lt(t.s->catalog.counters[m].hw_index, 64, "%s",
                     t.s->catalog.counters[m].name);
    kb_stop(&t);
}

Test(mali_kernels, probe_names_the_metrics_64_value_blocks_make_unavailable)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 21);
    struct fake_kbase *fk;
    int status;
    char *out;

    c.nvalues = 64;
    fk = fake_of(&c);
    out = probe(fk, &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "64 values per block");
    HAS(out, "counters 64..127");
    HAS(out, "not here: 4.4.3");
    free(out);
    fk_free(fk);
}

Test(mali_kernels, shader_instances_as_core_count_or_fls64_are_both_accepted)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 21);
    struct kb t;
    unsigned i;

    c.core_mask = 0x177;        /* 7 cores, highest at position 8 */
    c.enum_shader = FK_ENUM_FLS;
    kb_start(&t, fake_of(&c), "mali");
    cr_assert_eq(t.s->info.shader_cores, 7);
    for (i = 0; i < 7; i++)
        fk_set_counter(t.fk, FK_SHADER, i, 53, 10 + i);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    for (i = 0; i < 7; i++)
        cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", i), 10 + i, "core %u", i);
    kb_stop(&t);

    c.enum_shader = 0;          /* the core count */
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_SHADER, 6, 53, 77);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", 6), 77);
    kb_stop(&t);
}

Test(mali_kernels, any_other_shader_instance_count_fails_at_open_naming_both)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 21);
    struct fake_kbase *fk;
    struct gt_diag d;

    c.core_mask = 0x177;
    c.enum_shader = 5;
    fk = fake_of(&c);
    HAS(open_error(fk, "mali", &d), "5 shader-core");
    HAS(d.msg, "7 cores");
    HAS(d.msg, "0x177");
    HAS(d.msg, "/dev/mali0");
    fk_free(fk);
}

/* ---- item 2: physical block_idx found by behaviour ---- */

Test(mali_kernels, physical_block_idx_on_a_kernel_claiming_the_fix_is_remapped)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 21);
    struct kb t;
    unsigned i, s;

    c.block_idx = FK_IDX_PHYSICAL;      /* mask 0xEF: positions 0..3, 5..7 */
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    for (i = 0; i < 7; i++)
        fk_set_counter(t.fk, FK_SHADER, i, 53, 100 * (i + 1));
    for (s = 0; s < 3; s++) {
        cr_assert_eq(kb_sample(&t), 0, "sample %u: %s", s, t.d.msg);
        for (i = 0; i < 7; i++)
            cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", i), 100 * (i + 1),
                         "core %u", i);
        /* mean 400 of 1000 cycles */
        cr_assert_float_eq(kb_metric(&t, "5.3.1"), 40.0, 1e-9);
    }
    cr_assert_eq(fk_stats(t.fk)->kinstr_setups, 2, "never reopened");
    kb_stop(&t);
}

Test(mali_kernels, physical_block_idx_below_the_enum_count_is_found_by_its_gaps)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 24);
    struct kb t;
    unsigned i;

    c.core_mask = 0x177;                /* positions 0,1,2,4,5,6,8: all below 9 */
    c.enum_shader = FK_ENUM_FLS;
    c.block_idx = FK_IDX_PHYSICAL;
    kb_start(&t, fake_of(&c), "mali");
    for (i = 0; i < 7; i++)
        fk_set_counter(t.fk, FK_SHADER, i, 53, 10 + i);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    for (i = 0; i < 7; i++)
        cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", i), 10 + i, "core %u", i);
    kb_stop(&t);
}

Test(mali_kernels, dense_block_idx_on_a_kernel_in_the_buggy_range_is_taken_as_is)
{
    struct fk_config c = kernel(FK_G715, FK_CSF, 1, 12);
    struct kb t;
    unsigned i;

    c.block_idx = FK_IDX_DENSE;         /* a vendor kernel with the fix backported */
    kb_start(&t, fake_of(&c), "mali");
    for (i = 0; i < 7; i++)
        fk_set_counter(t.fk, FK_SHADER, i, 53, 10 + i);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    for (i = 0; i < 7; i++)
        cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", i), 10 + i, "core %u", i);
    kb_stop(&t);
}

/* ---- item 5: (major, minor) pairs; block state bits by version ---- */

Test(mali_kernels, versions_are_compared_as_major_minor_pairs)
{
    struct kb t;

    kb_start(&t, fake(FK_G715, FK_CSF, 2, 0), "mali");
    HAS(t.s->info.detail, "kinstr_prfcnt");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    kb_stop(&t);

    kb_start(&t, fake(FK_T830, FK_JM, 12, 0), "mali");
    HAS(t.s->info.detail, "kinstr_prfcnt");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 1000, 1e-9);
    kb_stop(&t);
}

Test(mali_kernels, block_state_bits_are_ignored_before_the_versions_defining_them)
{
    struct fk_config c = kernel(FK_G720, FK_CSF, 1, 21);
    struct kb t;

    c.stale_state = 1;
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_SHADER, 2, 53, 500);
    fk_set_block_state(t.fk, FK_SHADER, 2, 1u | 32u);      /* "PROTECTED": meaningless here */
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesAnyWorkloadActive", 2), 500);
    kb_stop(&t);

    c.minor = 23;                                           /* defined from 1.23 */
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_SHADER, 2, 53, 500);
    fk_set_block_state(t.fk, FK_SHADER, 2, 1u | 32u);
    cr_assert_eq(kb_sample(&t), 2, "%s", t.d.msg);
    HAS(t.d.msg, "protected mode");
    kb_stop(&t);
}

/* ---- item 3: old legacy-reader kernels ---- */

Test(mali_kernels, old_mmap_rule_takes_a_ring_of_whole_pages)
{
    struct fk_config c = kernel(FK_T830, FK_JM, 11, 20);
    struct kb t;
    struct fake_kbase *fk;
    struct gt_diag d;

    /* T830 MP3: 6 blocks, 1536 bytes a dump; with 16 KiB pages a ring of
     * 16 is 1.5 pages, one of 32 is 3 */
    c.core_mask = 0x7;
    c.page_size = 16384;
    c.old_mmap = 1;
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 1000, 1e-9);
    kb_stop(&t);

    /* T830 MP2: 1280 bytes; 32 and 16 fail to allocate, 8 is 2.5 pages */
    c.core_mask = 0x3;
    c.page_size = 4096;
    c.max_buffers = 8;
    fk = fake_of(&c);
    HAS(open_error(fk, "mali", &d), "whole number of");
    HAS(d.msg, "1280");
    HAS(d.msg, "4096");
    HAS(d.msg, "older");
    fk_free(fk);

    c.old_mmap = 0;                     /* the newer rule takes the 2.5 pages */
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    kb_stop(&t);
}

Test(mali_kernels, pre_r21_setup_failure_in_the_header_retries_a_smaller_ring)
{
    struct fk_config c = kernel(FK_T830, FK_PRE_R21, 10, 6);
    struct kb t;

    c.new_gate = 0;
    c.max_buffers = 8;
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 4242);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 4242, 1e-9);
    kb_stop(&t);
}

Test(mali_kernels, eperm_dump_on_an_old_kernels_full_ring_is_drained)
{
    struct fk_config c = kernel(FK_T830, FK_JM, 11, 10);
    struct kb t;
    uint64_t v;

    c.old_dump = 1;
    kb_start(&t, fake_of(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_fill_ring(t.fk);
    cr_assert_eq(kb_sample(&t), 2, "%s", t.d.msg);
    HAS(t.d.msg, "ring was full");
    v = kb_counter(&t, "MaliGPUCyclesGPUActive", 0);
    cr_assert(v > 1000 && v % 1000 == 0, "every drained dump added: %llu", (unsigned long long)v);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    kb_stop(&t);
}

Test(mali_kernels, suspended_gpu_is_reported_and_waited_for_not_reopened)
{
    struct fk_config c = kernel(FK_T830, FK_JM, 11, 10);
    struct kb t;
    int setups, r, n, suspended = 0;

    c.old_dump = 1;
    kb_start(&t, fake_of(&c), "mali");
    setups = fk_stats(t.fk)->reader_setups;
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_suspend(t.fk, 5);
    for (n = 0; n < 10 && (r = kb_sample(&t)) < 0; n++) {
        HAS(t.d.msg, "suspended");
        HAS(t.d.msg, "/dev/mali0");
        suspended++;
    }
    cr_assert_geq(suspended, 2, "a suspension of several dumps is seen");
    cr_assert_eq(r, 0, "back with data: %s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    cr_assert_eq(fk_stats(t.fk)->reader_setups, setups, "the device was not reopened");
    kb_stop(&t);
}

Test(mali_kernels, newer_kernel_dumps_through_a_suspension)
{
    struct kb t;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_suspend(t.fk, 3);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    kb_stop(&t);
}

/* ---- item 4 (source side): no priming dump handed out as data ---- */

Test(mali_kernels, first_sample_after_a_reopen_is_not_data)
{
    struct kb t;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    fk_lose_device(t.fk);
    cr_assert_eq(kb_sample(&t), -1);
    fk_restore_device(t.fk);
    cr_assert_eq(kb_sample(&t), -1, "the interval since the loss was not measured");
    HAS(t.d.msg, "reopened");
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    kb_stop(&t);
}

/* ---- end to end: the binary, batch CSV ---- */

/* The value fields of the CSV's data rows, without the time columns. */
static char *csv_values(const char *out)
{
    char *copy = strdup(out), *line, *save = NULL, *res = calloc(1, strlen(out) + 1);

    cr_assert(copy && res);
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *comma = strchr(line, ',');
        if (!comma || !strchr("0123456789", line[0]))
            continue;
        strcat(res, comma);
        strcat(res, "\n");
    }
    free(copy);
    return res;
}

Test(mali_kernels, batch_csv_on_64_value_blocks_has_no_data_for_counters_past_63, .timeout = 60)
{
    int status;
    /* FRAG_SHADER_THREADS (69) injected, but this kernel delivers 0..63 */
    char *out = run("G715 csf 1.21 values=64 0:0:4=1000 3:0:53=300 3:0:69=250 -- -b -f csv -n 2 "
                    "-i 50 --no-cpu --metrics '4.4.3'", &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "Fragments per pixel");
    HAS(out, "0.1,0.1,,");             /* an empty field: no data (then the triage) */
    HASNT(out, ",0,");
    free(out);
    out = run("G715 csf 1.21 values=64 0:0:4=1000 3:0:53=300 -- -b -f csv -n 2 -i 50 --no-cpu "
              "--metrics '5.3.1'", &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, ",4.28571,");             /* 300 of 1000 on one core of 7, 6 digits; triage */
    free(out);
    out = run("G715 csf 1.21 values=64 -- --probe", &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "not here: 4.4.3 Fragments per pixel");
    HAS(out, "counters 64..127: not delivered");
    HAS(out, "64 values per block");
    free(out);
}

Test(mali_kernels, batch_csv_with_physical_block_idx_matches_a_fixed_kernel, .timeout = 60)
{
    static const char counters[] = "0:0:4=1000 3:0:53=100 3:1:53=200 3:2:53=300 3:3:53=400 "
                                   "3:4:53=500 3:5:53=600 3:6:53=700";
    char args[512];
    int status;
    char *fixed, *buggy, *a, *b;

    snprintf(args, sizeof(args), "G715 csf 1.21 %s -- -b -f csv -n 3 -i 50 --no-cpu "
             "--metrics '5.3.1'", counters);
    fixed = run(args, &status);
    cr_assert_eq(status, 0, "%s", fixed);
    snprintf(args, sizeof(args), "G715 csf 1.21 idx=physical %s -- -b -f csv -n 3 -i 50 "
             "--no-cpu --metrics '5.3.1'", counters);
    buggy = run(args, &status);
    cr_assert_eq(status, 0, "%s", buggy);
    a = csv_values(fixed);
    b = csv_values(buggy);
    cr_assert_str_eq(b, a, "physical numbering:\n%s\nfixed kernel:\n%s", buggy, fixed);
    HAS(a, ",40,");                     /* mean 400 of 1000 cycles, then the triage */
    free(a);
    free(b);
    free(fixed);
    free(buggy);
}

Test(mali_kernels, a_second_start_is_a_no_op_as_on_the_kernel)
{
    struct kb t;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    cr_assert_eq(t.s->type->start(t.s, &t.d), 0, "%s", t.d.msg);
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    kb_stop(&t);
}

Test(mali_kernels, a_refused_dump_names_the_call_and_what_it_means)
{
    struct fk_config c = kernel(FK_T830, FK_JM, 11, 20);
    struct fake_kbase *fk;
    struct gt_source *s;
    struct gt_diag d;

    c.deny_request = 0x4004BE10ul;      /* DUMP */
    c.deny_errno = EPERM;
    fk = fake_of(&c);
    s = gt_source_open("mali", fk_sys(fk), &d);
    cr_assert_not_null(s, "%s", d.msg);
    gt_diag_clear(&d);
    cr_assert_eq(s->type->start(s, &d), -1);
    HAS(d.msg, "/dev/mali0");
    HAS(d.msg, "DUMP");
    HAS(d.msg, "Operation not permitted");
    HAS(d.msg, "not a full ring");
    gt_source_close(s);
    fk_free(fk);
}
