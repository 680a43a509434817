/* gputop --probe for Mali kbase devices: the device node, the driver
 * interface, the GPU and its configuration, the layout, the counters
 * enabled, whether a first sample arrives, and how late the sampler wakes
 * up on this system. */
#include "gputop/engine.h"
#include "gputop/kbase.h"
#include "gputop/layout.h"
#include "gputop/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_NODES 8

/* The layout's counters enabled, one sample taken: the whole path. */
static int try_source(const struct gt_probe *p, const char *spec)
{
    FILE *out = p->out;
    struct gt_diag d;
    struct gt_source *s;
    struct gt_layout *l = NULL;
    struct gt_engine *e = NULL;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    unsigned char *used = NULL;
    size_t k, unavailable = 0;
    int status = 1;

    s = gt_source_open(spec, p->sys, &d);
    if (!s) {
        fprintf(out, "counters:         unavailable: %s\n", d.msg);
        return 1;
    }
    l = gt_layout_load_for(s->info.layout, &s->catalog, &d);
    e = l && gt_layout_bind_names(l, &s->catalog) == 0 ? gt_engine_new(l, &s->catalog) : NULL;
    used = calloc(s->catalog.ncounters + 1, 1);
    if (!l || !e || !used || gt_snapshot_init(&snap, s->catalog.nslots) < 0) {
        fprintf(out, "layout:           cannot load '%s': %s\n", s->info.layout,
                l ? "out of memory" : d.msg);
        goto out;
    }
    gt_engine_used(e, used);
    for (k = 0; k < gt_engine_nmetrics(e); k++)
        unavailable += gt_engine_unavailable(e, k) != NULL;
    fprintf(out, "metrics:          %zu of %zu computable from this GPU's counters\n",
            gt_engine_nmetrics(e) - unavailable, gt_engine_nmetrics(e));
    gt_kbase_describe_limits(s, out);
    for (k = 0; k < gt_engine_nmetrics(e); k++)
        if (gt_engine_unavailable(e, k))
            fprintf(out, "  not here: %s %s (%s)\n", l->metrics[k].ref ? l->metrics[k].ref : "",
                    l->metrics[k].title, gt_engine_unavailable(e, k));
    gt_diag_clear(&d);
    if (s->type->select(s, used, &d) < 0 || s->type->start(s, &d) < 0) {
        gt_kbase_describe_source(s, out);
        fprintf(out, "first sample:     failed: %s\n", d.msg);
        goto out;
    }
    gt_kbase_describe_source(s, out);
    nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
    gt_diag_clear(&d);
    if (s->type->sample(s, &snap, &d) == GT_SAMPLE_ERROR) {
        fprintf(out, "first sample:     failed: %s\n", d.msg);
        goto out;
    }
    fprintf(out, "first sample:     ok, %.1f ms of kernel time%s%s\n",
            (double)gt_snapshot_ns(&snap) / 1e6, d.msg[0] ? "; " : "", d.msg);
    status = 0;
    /* One reader at a time: the device is closed, then reopened for the
     * timing run. */
    gt_source_close(s);
    s = NULL;
    p->timing(p, spec, used);
out:
    free(used);
    gt_snapshot_free(&snap);
    gt_engine_free(e);
    gt_layout_free(l);
    if (s)
        gt_source_close(s);
    return status;
}

/* The node at path, opened as the mali source with args. */
static int probe_node(const struct gt_probe *p, const char *path, const char *args)
{
    struct gt_kbase_dev dev;
    struct gt_diag d;
    char spec[160];

    gt_diag_clear(&d);
    if (gt_kbase_dev_open(&dev, p->sys, path, &d) < 0) {
        fprintf(p->out, "device:           %s\nerror:            %s\n", path, d.msg);
        return 1;
    }
    gt_kbase_describe_dev(&dev, p->out);
    gt_kbase_dev_close(&dev);
    snprintf(spec, sizeof(spec), "mali:%s", args);
    return try_source(p, spec);
}

/* A node that exists answers open with anything but ENOENT. */
static int node_exists(const struct gt_sys *sys, const char *path)
{
    int fd = sys->open(sys->ctx, path, O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        sys->close(sys->ctx, fd);
        return 1;
    }
    return errno != ENOENT && errno != ENODEV && errno != ENXIO;
}

enum gt_probe_result gt_kbase_probe(const struct gt_probe *p, const char *args)
{
    char path[64];
    int i, found = 0, works = 0;

    if (args) {
        if (!gt_args_get(args, "", path, sizeof(path)) || !path[0])
            snprintf(path, sizeof(path), "/dev/mali0");
        return probe_node(p, path, args) == 0 ? GT_PROBE_WORKS : GT_PROBE_FAILED;
    }
    for (i = 0; i < MAX_NODES; i++) {
        snprintf(path, sizeof(path), "/dev/mali%d", i);
        if (!node_exists(p->sys, path))
            continue;
        if (found++)
            fputc('\n', p->out);
        works |= probe_node(p, path, path) == 0;
    }
    return !found ? GT_PROBE_NONE : works ? GT_PROBE_WORKS : GT_PROBE_FAILED;
}
