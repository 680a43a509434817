/* gputop --probe for DRM devices: every device with its driver, render
 * node and bus, then what the panfrost source reads from each panfrost
 * device (or why it cannot: unstable_ioctls, another owner, permissions). */
#include "gputop/drm.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#include <stdio.h>
#include <string.h>

static int probe_panfrost(const char *node, const struct gt_sys *sys, FILE *out)
{
    char spec[96];
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    int r = -1;

    snprintf(spec, sizeof(spec), "panfrost:%s", node);
    fprintf(out, "\npanfrost %s\n", node);
    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s) {
        fprintf(out, "  cannot read counters: %s\n", d.msg);
        return 1;
    }
    fprintf(out, "  GPU        %s (id 0x%08llx, core mask 0x%llx, %u L2 slice(s), %u-bit bus)\n"
                 "  interface  %s\n  layout     %s\n  counters   %zu\n",
            s->info.gpu, (unsigned long long)s->info.gpu_id,
            (unsigned long long)s->info.core_mask, s->info.l2_slices, s->info.bus_width_bits,
            s->info.detail, s->info.layout, s->catalog.ncounters);
    if (gt_snapshot_init(&snap, s->catalog.nslots) == 0 && s->type->start(s, &d) == 0)
        r = s->type->sample(s, &snap, &d);
    fprintf(out, "  first sample %s%s\n", r == 0 || r == 2 ? "arrived" : "failed: ",
            r == 0 || r == 2 ? "" : d.msg);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return r == 0 || r == 2 ? 0 : 1;
}

int gt_drm_probe(const char *spec, const struct gt_sys *sys, FILE *out)
{
    struct gt_drm_node list[GT_DRM_MAX_DEVICES];
    int n = gt_drm_list(sys, list, GT_DRM_MAX_DEVICES), i, status = 1;
    const char *want = strchr(spec, ':') ? strchr(spec, ':') + 1 : "";
    char node[64];

    if (want[0]) {
        snprintf(node, sizeof(node), "%.*s", (int)strcspn(want, ","), want);
        return probe_panfrost(node, sys, out);
    }
    if (n <= 0)
        return 2;
    gt_drm_describe(sys, out);
    for (i = 0; i < n; i++) {
        const char *p = list[i].dev.render[0] ? list[i].dev.render : list[i].dev.primary;
        if (strcmp(list[i].driver, "panfrost") == 0 && probe_panfrost(p, sys, out) == 0)
            status = 0;
    }
    return status;
}

/* gputop --probe --source drm-fdinfo[:ARGS]: the device chosen, its engine
 * slots by name, one sample, and the profiling switch when it is off. */
int gt_drm_fdinfo_probe(const char *spec, const struct gt_sys *sys, FILE *out)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open(spec, sys, &d);
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    size_t k;
    int r = -1;

    fprintf(out, "drm-fdinfo\n");
    if (!s) {
        fprintf(out, "  cannot open: %s\n", d.msg);
        return 1;
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
    fprintf(out, "  first sample %s%s\n", r == 0 || r == 2 ? "arrived" : "failed: ",
            r == 0 || r == 2 ? "" : d.msg);
    if (r == 2)
        fprintf(out, "  warning    %s\n", d.msg);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return r == 0 || r == 2 ? 0 : 1;
}
