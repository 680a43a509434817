/* gputop --probe's sampling check: after the first sample, the sampler
 * runs on the device for a moment and reports how late it woke up. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "gputop/cli.h"

static char *probe(enum fk_gpu gpu, enum fk_api api, unsigned major, unsigned minor,
                   int real_clock, int *status)
{
    struct fk_config c;
    struct fake_kbase *fk;
    struct gt_options o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    memset(&c, 0, sizeof(c));
    c.gpu = gpu;
    c.api = api;
    c.major = major;
    c.minor = minor;
    c.new_gate = 1;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    if (real_clock)
        fk_real_clock(fk);
    memset(&o, 0, sizeof(o));
    *status = gt_cmd_probe(&o, fk_sys(fk), f);
    fclose(f);
    cr_assert_eq(fk_stats(fk)->protocol_errors, 0, "%s", fk_stats(fk)->last_error);
    fk_free(fk);
    return buf;
}

static void check_timing_line(const char *out)
{
    const char *t = strstr(out, "\nsampler timing:   1 ms period, ");
    unsigned long long n = 0, over = 0;

    cr_assert_not_null(t, "%s", out);
    cr_assert_eq(sscanf(t, "\nsampler timing:   1 ms period, %llu wake-ups late by p50 ", &n), 1,
                 "%s", t);
    cr_assert_geq(n, 100, "%s", t);
    t = strstr(t, " max ");
    cr_assert_not_null(t, "%s", out);
    t = strchr(t + 5, ',');
    cr_assert_not_null(t, "%s", out);
    cr_assert_eq(sscanf(t, ", %llu late by more than a period", &over), 1, "%s", t);
    cr_assert_leq(over, n);
}

/* The fake kernel dates each periodic sample at its tick, a whole
 * multiple of the period (kbase's next_dump_time_ns): kernel-timed, the
 * timestamps lie on the grid, 0 off it, for every sample past the first
 * (whose start is the reader's start, not a tick). */
static void check_kernel_line(const char *out)
{
    const char *t = strstr(out, "\nkernel timing:    1 ms period, ");
    unsigned long long n = 0;

    cr_assert_not_null(t, "%s", out);
    cr_assert_eq(sscanf(t, "\nkernel timing:    1 ms period, %llu samples; ", &n), 1, "%s", t);
    cr_assert_geq(n, 300, "%s", t);
    cr_assert(strstr(t, "; timestamps off the grid by p50 0 us, p99 0 us, max "), "%s", t);
    cr_assert(strstr(t, "; handed over after p50 "), "%s", t);
}

Test(probe, sampler_lateness_after_the_first_sample, .timeout = 60)
{
    int status;
    char *out = probe(FK_G715, FK_CSF, 1, 21, 1, &status);

    cr_assert_eq(status, 0, "%s", out);
    cr_assert(strstr(out, "first sample:     ok"), "%s", out);
    check_timing_line(out);
    check_kernel_line(out);
    free(out);
    out = probe(FK_T830, FK_JM, 11, 20, 1, &status);
    cr_assert_eq(status, 0, "%s", out);
    check_timing_line(out);
    check_kernel_line(out);
    free(out);
}

/* A kernel that never fills its ring in periodic mode (the fake's clock
 * stands still): --probe says kernel timing is not used, and why. */
Test(probe, kernel_timing_not_used_says_why, .timeout = 60)
{
    int status;
    char *out = probe(FK_G715, FK_CSF, 1, 21, 0, &status);

    cr_assert_eq(status, 0, "%s", out);
    cr_assert(strstr(out, "\nkernel timing:    not used: mali: its kernel left the ring empty"),
              "%s", out);
    free(out);
}

/* gputop --probe --source spec, on the real system. */
static char *probe_named(const char *spec, int *status)
{
    struct gt_options o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    memset(&o, 0, sizeof(o));
    o.sources[o.nsources++] = spec;
    *status = gt_cmd_probe(&o, gt_sys_real(), f);
    fclose(f);
    return buf;
}

/* --probe --source sim:mali-g715 probes what is named: the simulated
 * GPU opened, its layout, a first sample and the sampler's timing
 * (issue 43.7: it probed the hardware instead). */
Test(probe, probes_the_source_named, .timeout = 60)
{
    int status;
    char *buf = probe_named("sim:mali-g715", &status);

    cr_assert_eq(status, 0, "%s", buf);
    cr_assert(strstr(buf, "source:           sim:mali-g715\n"), "%s", buf);
    cr_assert(strstr(buf, "Mali-G715"), "%s", buf);
    cr_assert(strstr(buf, "layout:           mali-g715, "), "%s", buf);
    cr_assert(strstr(buf, "first sample:     ok"), "%s", buf);
    check_timing_line(buf);
    cr_assert_null(strstr(buf, "/dev/mali"), "no hardware probed: %s", buf);
    free(buf);
}

/* A source named that is not one says so, and the status says it failed. */
Test(probe, an_unknown_source_fails)
{
    int status;
    char *buf = probe_named("amdgpuX", &status);

    cr_assert_eq(status, 1, "%s", buf);
    cr_assert(strstr(buf, "unknown source 'amdgpuX'"), "%s", buf);
    free(buf);
}
