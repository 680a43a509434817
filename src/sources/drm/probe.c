/* gputop --probe for DRM devices: every device with its driver, render
 * node and bus, then what the panfrost source reads from each panfrost
 * device (or why it cannot: unstable_ioctls, another owner, permissions). */
#include "gputop/drm.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#include <stdio.h>
#include <string.h>

static int got(enum gt_sample_result r)
{
    return r == GT_SAMPLE_OK || r == GT_SAMPLE_WARN;
}

static enum gt_probe_result probe_panfrost(const char *node, const struct gt_sys *sys, FILE *out)
{
    char spec[96];
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    enum gt_sample_result r = GT_SAMPLE_ERROR;

    snprintf(spec, sizeof(spec), "panfrost:%s", node);
    fprintf(out, "\npanfrost %s\n", node);
    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s) {
        fprintf(out, "  cannot read counters: %s\n", d.msg);
        return GT_PROBE_FAILED;
    }
    fprintf(out, "  GPU        %s (id 0x%08llx, core mask 0x%llx, %u L2 slice(s), %u-bit bus)\n"
                 "  interface  %s\n  layout     %s\n  counters   %zu\n",
            s->info.gpu, (unsigned long long)s->info.gpu_id,
            (unsigned long long)s->info.core_mask, s->info.l2_slices, s->info.bus_width_bits,
            s->info.detail, s->info.layout, s->catalog.ncounters);
    if (gt_snapshot_init(&snap, s->catalog.nslots) == 0 && s->type->start(s, &d) == 0)
        r = s->type->sample(s, &snap, &d);
    fprintf(out, "  first sample %s%s\n", got(r) ? "arrived" : "failed: ", got(r) ? "" : d.msg);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return got(r) ? GT_PROBE_WORKS : GT_PROBE_FAILED;
}

enum gt_probe_result gt_drm_probe(const struct gt_probe *p, const char *args)
{
    struct gt_drm_node list[GT_DRM_MAX_DEVICES];
    int n = gt_drm_list(p->sys, list, GT_DRM_MAX_DEVICES), i;
    enum gt_probe_result res = GT_PROBE_FAILED;
    char node[64];

    if (args && gt_args_get(args, "", node, sizeof(node)) && node[0])
        return probe_panfrost(node, p->sys, p->out);
    if (n <= 0)
        return GT_PROBE_NONE;
    gt_drm_describe(p->sys, p->out);
    for (i = 0; i < n; i++) {
        const char *path = list[i].dev.render[0] ? list[i].dev.render : list[i].dev.primary;
        if (strcmp(list[i].driver, "panfrost") == 0 && probe_panfrost(path, p->sys, p->out) == GT_PROBE_WORKS)
            res = GT_PROBE_WORKS;
    }
    return res;
}

/* gputop --probe --source drm-fdinfo[:ARGS]: the device chosen, its engine
 * slots by name, one sample, and the profiling switch when it is off. */
enum gt_probe_result gt_drm_fdinfo_probe(const struct gt_probe *p, const char *args)
{
    FILE *out = p->out;
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    char spec[512];
    size_t k;
    enum gt_sample_result r = GT_SAMPLE_ERROR;

    /* Engine time only: with no --source the devices' own probes speak. */
    if (!args)
        return GT_PROBE_NONE;
    snprintf(spec, sizeof(spec), "drm-fdinfo:%s", args);
    s = gt_source_open(spec, p->sys, &d);

    fprintf(out, "drm-fdinfo\n");
    if (!s) {
        fprintf(out, "  cannot open: %s\n", d.msg);
        return GT_PROBE_FAILED;
    }
    fprintf(out, "  device     %s\n  layout     %s\n  engines   ", s->info.device,
            s->info.layout);
    for (k = 0; k < s->catalog.ncounters; k++) {
        const struct gt_counter *c = &s->catalog.counters[k];
        size_t n = strlen(c->name);
        if (c->hw_name && n > 8 && strcmp(c->name + n - 8, "Capacity") == 0)
            fprintf(out, " %s", c->hw_name);
    }
    fputc('\n', out);
    gt_diag_clear(&d);
    if (gt_snapshot_init(&snap, s->catalog.nslots) == 0 && s->type->start(s, &d) == 0)
        r = s->type->sample(s, &snap, &d);
    fprintf(out, "  first sample %s%s\n", got(r) ? "arrived" : "failed: ", got(r) ? "" : d.msg);
    if (r == GT_SAMPLE_WARN)
        fprintf(out, "  warning    %s\n", d.msg);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return got(r) ? GT_PROBE_WORKS : GT_PROBE_FAILED;
}
