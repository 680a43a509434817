/* gputop --probe: what a new device offers, step by step — the device
 * node, the driver interface, the GPU and its configuration, the layout,
 * the counters enabled, whether a first sample arrives, and how late the
 * sampler wakes up on this system. */
#include "gputop/amdgpu.h"
#include "gputop/cli.h"
#include "gputop/drm.h"
#include "gputop/engine.h"
#include "gputop/kbase.h"
#include "gputop/layout.h"
#include "gputop/mips_cm.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_NODES 8

#define TIMING_PERIOD_NS 1000000ull
#define TIMING_SAMPLES   300

/* The sampler on this device for TIMING_SAMPLES rounds at 1 ms, and how
 * late its wake-ups were against their deadlines (the sampler measures
 * them itself): a phone's power management or a busy core shows here. */
static void report_timing(const char *spec, const struct gt_sys *sys, const unsigned char *used,
                          FILE *out)
{
    struct gt_sampler_config cfg;
    struct gt_sampler *smp = NULL;
    struct gt_sampler_stats st;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    struct gt_diag d;
    struct gt_source *s;
    uint64_t got = 0, give_up = gt_now_ns() + 5000000000ull;
    uint32_t off = 0;
    char buf[160];

    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s || s->type->select(s, used, &d) < 0)
        goto out;
    if (gt_snapshot_init(&snap, s->catalog.nslots) < 0) {
        gt_diag_set(&d, "out of memory");
        goto out;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &s;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = s->catalog.nslots;
    cfg.interval_ns = TIMING_PERIOD_NS;
    smp = gt_sampler_new(&cfg);
    if (!smp) {
        gt_diag_set(&d, "out of memory");
        goto out;
    }
    if (gt_sampler_start(smp, &d) < 0)
        goto out;
    while (got < TIMING_SAMPLES && gt_now_ns() < give_up)
        if (gt_sampler_take(smp, &snap, 1000000000ull) > 0)
            got += snap.nsamples;
    gt_sampler_stop(smp);
    gt_sampler_get_stats(smp, &st);
    gt_lateness_format(&st.lateness, buf, sizeof(buf));
    fprintf(out, "sampler timing:   1 ms period, %llu wake-ups late by %s",
            (unsigned long long)st.lateness.count, buf);
    if (st.errors)
        fprintf(out, "; %llu failed samples (%s)", (unsigned long long)st.errors, st.last_error);
    fputc('\n', out);
    gt_diag_clear(&d);
out:
    if (d.msg[0])
        fprintf(out, "sampler timing:   not measured: %s\n", d.msg);
    gt_sampler_free(smp);
    gt_snapshot_free(&snap);
    if (s)
        gt_source_close(s);
}

/* The layout's counters enabled, one sample taken: the whole path. */
static int try_source(const char *path, const struct gt_sys *sys, FILE *out)
{
    char spec[96];
    struct gt_diag d;
    struct gt_source *s;
    struct gt_layout *l = NULL;
    struct gt_engine *e = NULL;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    unsigned char *used = NULL;
    size_t k, unavailable = 0;
    int status = 1;

    snprintf(spec, sizeof(spec), "mali:%s", path);
    s = gt_source_open(spec, sys, &d);
    if (!s) {
        fprintf(out, "counters:         unavailable: %s\n", d.msg);
        return 1;
    }
    l = gt_layout_load_named(s->info.layout, &s->catalog, &d);
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
    if (s->type->sample(s, &snap, &d) < 0) {
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
    report_timing(spec, sys, used, out);
out:
    free(used);
    gt_snapshot_free(&snap);
    gt_engine_free(e);
    gt_layout_free(l);
    if (s)
        gt_source_close(s);
    return status;
}

static int probe_node(const char *path, const struct gt_sys *sys, FILE *out)
{
    struct gt_kbase_dev dev;
    struct gt_diag d;

    gt_diag_clear(&d);
    if (gt_kbase_dev_open(&dev, sys, path, &d) < 0) {
        fprintf(out, "device:           %s\nerror:            %s\n", path, d.msg);
        return 1;
    }
    gt_kbase_describe_dev(&dev, out);
    gt_kbase_dev_close(&dev);
    return try_source(path, sys, out);
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

int gt_cmd_probe(const struct gt_options *o, const struct gt_sys *sys, FILE *out)
{
    char path[32];
    int i, found = 0, status = 1;

    for (i = 0; i < o->nsources; i++) {
        const char *spec = o->sources[i];
        if (gt_source_name_len(spec) == 7 && strncmp(spec, "mips-cm", 7) == 0)
            return gt_mips_cm_probe(spec[7] ? spec + 8 : "", sys, out);
    }
    for (i = 0; i < o->nsources; i++)
        if (strncmp(o->sources[i], "amdgpu", 6) == 0)
            return gt_amd_probe(o->sources[i], sys, out) == 0 ? 0 : 1;
    for (i = 0; i < o->nsources; i++)
        if (strncmp(o->sources[i], "drm-fdinfo", 10) == 0)
            return gt_drm_fdinfo_probe(o->sources[i], sys, out);
    for (i = 0; i < o->nsources; i++)
        if (strncmp(o->sources[i], "panfrost", 8) == 0)
            return gt_drm_probe(o->sources[i], sys, out) == 0 ? 0 : 1;
    for (i = 0; i < o->nsources; i++)
        if (strncmp(o->sources[i], "mali:", 5) == 0) {
            char p[64];
            snprintf(p, sizeof(p), "%.*s", (int)strcspn(o->sources[i] + 5, ","),
                     o->sources[i] + 5);
            return probe_node(p, sys, out);
        }
    for (i = 0; i < MAX_NODES; i++) {
        snprintf(path, sizeof(path), "/dev/mali%d", i);
        if (!node_exists(sys, path))
            continue;
        if (found++)
            fputc('\n', out);
        if (probe_node(path, sys, out) == 0)
            status = 0;
    }
    /* DRM devices (panfrost, amdgpu, ...) after the kbase nodes. */
    if (found)
        fputc('\n', out);
    switch (gt_drm_probe("", sys, out)) {
    case 0:
        status = 0;
        /* fall through */
    case 1:
        found++;
        fputc('\n', out);
        break;
    default:
        break;
    }
    /* AMD GPUs after the Mali nodes: a board has one or the other. */
    switch (gt_amd_probe("", sys, out)) {
    case 0:
        return 0;
    case 1:
        return status;
    default:
        break;
    }
    if (!found)
        fprintf(out, "no Mali GPU device: /dev/mali0../dev/mali%d do not exist (no kbase "
                     "driver), and no AMD GPU is listed\ntry the simulated GPU: gputop "
                     "--source sim\n", MAX_NODES - 1);
    return status;
}
