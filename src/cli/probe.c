/* gputop --probe: each source type probes its own devices (its probe
 * op); this runs them, the named ones or every hardware type, and lends
 * them the sampler's timing run. A source without a probe op (sim,
 * replay, ...) is opened, described and sampled here. */
#include "gputop/cli.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIMING_PERIOD_NS 1000000ull
#define TIMING_SAMPLES   300

/* The sampler on this device for TIMING_SAMPLES samples at 1 ms, on its
 * own timer or kernel-timed; st gets its figures. 0, or -1 with d set. */
static int time_sampler(const struct gt_probe *p, const char *spec, const unsigned char *used,
                        int timer_only, struct gt_sampler_stats *st, struct gt_diag *d)
{
    struct gt_sampler_config cfg;
    struct gt_sampler *smp = NULL;
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    struct gt_source *s;
    uint64_t got = 0, give_up = gt_now_ns() + 5000000000ull;
    uint32_t off = 0;
    int r = -1;

    gt_diag_clear(d);
    s = gt_source_open(spec, p->sys, d);
    if (!s || (s->type->select && s->type->select(s, used, d) < 0))
        goto out;
    if (gt_snapshot_init(&snap, s->catalog.nslots) < 0) {
        gt_diag_set(d, "out of memory");
        goto out;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &s;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = s->catalog.nslots;
    cfg.interval_ns = TIMING_PERIOD_NS;
    cfg.timer_only = timer_only;
    smp = gt_sampler_new(&cfg);
    if (!smp) {
        gt_diag_set(d, "out of memory");
        goto out;
    }
    if (gt_sampler_start(smp, d) < 0)
        goto out;
    while (got < TIMING_SAMPLES && gt_now_ns() < give_up)
        if (gt_sampler_take(smp, &snap, 1000000000ull) > 0)
            got += snap.nsamples;
    gt_sampler_stop(smp);
    gt_sampler_get_stats(smp, st);
    gt_diag_clear(d);
    r = 0;
out:
    gt_sampler_free(smp);
    gt_snapshot_free(&snap);
    if (s)
        gt_source_close(s);
    return r;
}

/* How late the sampler's own timer woke against its deadlines (the
 * sampler measures them itself): a phone's power management or a busy
 * core shows here. */
static void report_timer(const struct gt_probe *p, const char *spec, const unsigned char *used)
{
    struct gt_sampler_stats st;
    struct gt_diag d;
    char buf[160];

    if (time_sampler(p, spec, used, 1, &st, &d) < 0) {
        fprintf(p->out, "sampler timing:   not measured: %s\n", d.msg);
        return;
    }
    gt_lateness_format(&st.lateness, buf, sizeof(buf));
    fprintf(p->out, "sampler timing:   1 ms period, %llu wake-ups late by %s",
            (unsigned long long)st.lateness.count, buf);
    if (st.errors)
        fprintf(p->out, "; %llu failed samples (%s)", (unsigned long long)st.errors,
                st.last_error);
    fputc('\n', p->out);
}

/* Where the kernel times the samples, lateness means nothing: how far its
 * timestamps lie off the period's grid, and how long a sample waits, from
 * its end, before the sampler hands it over. */
static void report_kernel(const struct gt_probe *p, const char *spec, const unsigned char *used)
{
    struct gt_sampler_stats st;
    struct gt_diag d;
    char jit[96], lat[96];

    if (time_sampler(p, spec, used, 0, &st, &d) < 0) {
        fprintf(p->out, "kernel timing:    not measured: %s\n", d.msg);
        return;
    }
    if (!st.kernel_timed || !st.jitter.count) {
        fprintf(p->out, "kernel timing:    not used: %s\n",
                st.last_warning[0] ? st.last_warning : "the kernel gave no periodic samples");
        return;
    }
    gt_lateness_quantiles(&st.jitter, jit, sizeof(jit));
    gt_lateness_quantiles(&st.drain, lat, sizeof(lat));
    fprintf(p->out, "kernel timing:    1 ms period, %llu samples; timestamps off the grid by "
                    "%s; handed over after %s\n",
            (unsigned long long)st.drain.count, jit, lat);
}

static void report_timing(const struct gt_probe *p, const char *spec, const unsigned char *used)
{
    char name[32];
    size_t n = gt_source_name_len(spec);
    const struct gt_source_type *t;

    snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), spec);
    t = gt_source_type_find(name);
    report_timer(p, spec, used);
    if (t && t->periodic)
        report_kernel(p, spec, used);
}

/* How many of the layout's metrics the source's counters compute; used
 * gets the counters they read. The layout is the first the source lists,
 * its own: those beside it (the simulator's clocks) belong to others. */
static void report_metrics(const struct gt_probe *p, struct gt_source *s, unsigned char *used)
{
    struct gt_diag d;
    char name[64] = "";
    struct gt_layout *l;
    struct gt_engine *e;
    size_t k, unavailable = 0;

    sscanf(s->info.layout, "%63s", name);
    l = gt_layout_load_named(name, &s->catalog, &d);
    e = l && gt_layout_bind_names(l, &s->catalog) == 0 ? gt_engine_new(l, &s->catalog) : NULL;
    if (!e) {
        fprintf(p->out, "layout:           cannot load '%s': %s\n", name,
                l ? "out of memory" : d.msg);
        gt_layout_free(l);
        return;
    }
    gt_engine_used(e, used);
    for (k = 0; k < gt_engine_nmetrics(e); k++)
        unavailable += gt_engine_unavailable(e, k) != NULL;
    fprintf(p->out, "layout:           %s, %zu of %zu metrics computable\n", name,
            gt_engine_nmetrics(e) - unavailable, gt_engine_nmetrics(e));
    gt_engine_free(e);
    gt_layout_free(l);
}

/* A source without a probe op of its own: what it opens as, its layout,
 * a first sample and the sampler's timing. */
static enum gt_probe_result probe_opened(const struct gt_probe *p, const char *spec)
{
    struct gt_snapshot snap = { 0, 0, 0, 0, NULL, 0 };
    unsigned char *used = NULL;
    struct gt_source *s;
    struct gt_diag d;
    enum gt_probe_result res = GT_PROBE_FAILED;

    s = gt_source_open(spec, p->sys, &d);
    fprintf(p->out, "source:           %s\n", spec);
    if (!s) {
        fprintf(p->out, "error:            %s\n", d.msg);
        return GT_PROBE_FAILED;
    }
    fprintf(p->out, "device:           %s%s%s\n", s->info.device, s->info.gpu[0] ? ", " : "",
            s->info.gpu);
    if (s->info.detail[0])
        fprintf(p->out, "detail:           %s\n", s->info.detail);
    fprintf(p->out, "counters:         %zu\n", s->catalog.ncounters);
    used = calloc(s->catalog.ncounters + 1, 1);
    if (used && s->info.layout[0])
        report_metrics(p, s, used);
    gt_diag_clear(&d);
    if (!used || gt_snapshot_init(&snap, s->catalog.nslots) < 0) {
        fprintf(p->out, "first sample:     failed: out of memory\n");
        goto out;
    }
    if ((s->type->select && s->type->select(s, used, &d) < 0) || s->type->start(s, &d) < 0 ||
        s->type->sample(s, &snap, &d) == GT_SAMPLE_ERROR) {
        fprintf(p->out, "first sample:     failed: %s\n", d.msg);
        goto out;
    }
    fprintf(p->out, "first sample:     ok%s%s\n", d.msg[0] ? "; " : "", d.msg);
    res = GT_PROBE_WORKS;
    gt_source_close(s);
    s = NULL;
    report_timing(p, spec, used);
out:
    free(used);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    return res;
}

/* One --source named: its type's own probe, else the generic one. */
static enum gt_probe_result probe_named(const struct gt_probe *p, const char *spec)
{
    size_t n = gt_source_name_len(spec);
    const struct gt_source_type *t = NULL;
    enum gt_probe_result r;
    char name[32], why[256];

    if (n < sizeof(name)) {
        snprintf(name, sizeof(name), "%.*s", (int)n, spec);
        t = gt_source_type_find(name);
    }
    if (!t || !t->probe)
        return probe_opened(p, spec);
    r = t->probe(p, spec[n] ? spec + n + 1 : "");
    if (r != GT_PROBE_NONE)
        return r;
    if (!t->available || t->available(p->sys, why, sizeof(why)) == 0)
        snprintf(why, sizeof(why), "none found");
    fprintf(p->out, "%s: no device: %s\n", t->name, why);
    return GT_PROBE_FAILED;
}

/* t's probe of every device it has, its report after a blank line when
 * one came before (a type that finds none prints nothing). */
static enum gt_probe_result probe_type(const struct gt_probe *p, const struct gt_source_type *t,
                                       int *printed)
{
    struct gt_probe q = *p;
    enum gt_probe_result r;
    char *buf = NULL;
    size_t len = 0;

    q.out = open_memstream(&buf, &len);
    if (!q.out) {
        if ((*printed)++)
            fputc('\n', p->out);
        return t->probe(p, NULL);
    }
    r = t->probe(&q, NULL);
    fclose(q.out);
    if (len && (*printed)++)
        fputc('\n', p->out);
    fwrite(buf, 1, len, p->out);
    free(buf);
    return r;
}

/* No --source: every hardware type's devices; the reasons each gave when
 * none was found. */
static int probe_all(const struct gt_probe *p)
{
    char why[256], none[1024] = "";
    int i, found = 0, printed = 0, status = 1;

    for (i = 0; gt_source_types[i]; i++) {
        const struct gt_source_type *t = gt_source_types[i];
        enum gt_probe_result r;
        if (t->kind != GT_SOURCE_HARDWARE || !t->probe)
            continue;
        r = probe_type(p, t, &printed);
        if (r == GT_PROBE_NONE) {
            if (t->available && t->available(p->sys, why, sizeof(why)) < 0)
                snprintf(none + strlen(none), sizeof(none) - strlen(none), "\n  %s: %s",
                         t->name, why);
            continue;
        }
        found++;
        if (r == GT_PROBE_WORKS)
            status = 0;
    }
    if (!found)
        fprintf(p->out, "no GPU device found; probed:%s\ntry the simulated GPU: gputop "
                        "--source sim\n", none[0] ? none : " (no hardware sources built in)");
    return status;
}

int gt_cmd_probe(const struct gt_options *o, const struct gt_sys *sys, FILE *out)
{
    struct gt_probe p = { sys, out, report_timing };
    int i, status = 0;

    if (o->nsources == 0)
        return probe_all(&p);
    for (i = 0; i < o->nsources; i++) {
        if (i)
            fputc('\n', out);
        if (probe_named(&p, o->sources[i]) != GT_PROBE_WORKS)
            status = 1;
    }
    return status;
}
