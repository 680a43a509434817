/* gputop --probe for AMD GPUs: each GPU discovery lists, opened as the
 * amdgpu source, described, its layout's metrics counted and one sample
 * taken — or why not. */
#include "amd.h"
#include "gputop/amdgpu.h"
#include "gputop/engine.h"
#include "gputop/layout.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void report_metrics(struct gt_source *s, FILE *out, unsigned char **used)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load(s->info.layout, &d);
    struct gt_engine *e = l ? gt_engine_new(l, &s->catalog) : NULL;
    size_t k, n, unavailable = 0;

    *used = calloc(s->catalog.ncounters + 1, 1);
    if (!e || !*used) {
        fprintf(out, "layout:           cannot load '%s': %s\n", s->info.layout,
                l ? "out of memory" : d.msg);
        goto out;
    }
    gt_engine_used(e, *used);
    n = gt_engine_nmetrics(e);
    for (k = 0; k < n; k++)
        unavailable += gt_engine_unavailable(e, k) != NULL;
    fprintf(out, "layout:           %s, %zu of %zu metrics computable here\n", s->info.layout,
            n - unavailable, n);
out:
    gt_engine_free(e);
    gt_layout_free(l);
}

static int probe_one(const char *spec, const struct gt_sys *sys, FILE *out)
{
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    unsigned char *used = NULL;
    struct gt_source *s;
    struct gt_diag d;
    enum gt_sample_result r;
    int status = 1;
    uint64_t wait = 100000000ull;

    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s) {
        fprintf(out, "source:           %s\nerror:            gputop: %s\n", spec, d.msg);
        return 1;
    }
    gt_amd_describe_source(s, out);
    report_metrics(s, out, &used);
    gt_diag_clear(&d);
    if (gt_snapshot_init(&snap, s->catalog.nslots) < 0 || s->type->select(s, used, &d) < 0 ||
        s->type->start(s, &d) < 0) {
        fprintf(out, "first sample:     failed: %s\n", d.msg[0] ? d.msg : "out of memory");
        goto out;
    }
    /* 100 ms, or less when 32-bit counters would not survive the pass
     * (the sample's polls add most of the wait again). */
    wait = s->info.max_interval_ns && s->info.max_interval_ns / 4 < wait
           ? s->info.max_interval_ns / 4 : wait;
    nanosleep(&(struct timespec){ 0, (long)wait }, NULL);
    gt_diag_clear(&d);
    r = s->type->sample(s, &snap, &d);
    if (r == GT_SAMPLE_ERROR) {
        fprintf(out, "first sample:     failed: %s\n", d.msg);
        goto out;
    }
    fprintf(out, "first sample:     ok, %.1f ms%s%s\n", (double)gt_snapshot_ns(&snap) / 1e6,
            d.msg[0] ? "; " : "", d.msg);
    status = 0;
out:
    free(used);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return status;
}

enum gt_probe_result gt_amd_probe(const struct gt_probe *p, const char *args)
{
    struct gt_drm_device list[GT_AMD_MAX_DEVICES];
    enum gt_probe_result res = GT_PROBE_FAILED;
    struct gt_diag d;
    char one[512];
    int n, i;

    if (args) {
        snprintf(one, sizeof(one), "amdgpu:%s", args);
        return probe_one(one, p->sys, p->out) == 0 ? GT_PROBE_WORKS : GT_PROBE_FAILED;
    }
    gt_diag_clear(&d);
    n = gt_amd_discover(p->sys, list, GT_AMD_MAX_DEVICES, &d);
    if (n <= 0) {
        if (n < 0)
            fprintf(p->out, "amdgpu:           %s\n", d.msg);
        return GT_PROBE_NONE;
    }
    for (i = 0; i < n; i++) {
        if (i)
            fputc('\n', p->out);
        snprintf(one, sizeof(one), "amdgpu:%.63s",
                 list[i].render[0] ? list[i].render : list[i].primary);
        if (probe_one(one, p->sys, p->out) == 0)
            res = GT_PROBE_WORKS;
    }
    return res;
}
