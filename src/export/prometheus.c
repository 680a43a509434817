/* The Prometheus text exposition (format 0.0.4) of the latest interval:
 * percentages and plain values as gauges, counts as cumulative counters
 * (so rate() sees every interval, not the one before a scrape), and the
 * sampler's own counters. The view thread publishes; the HTTP thread
 * renders from a copy taken under the lock. */
#include "gputop/export.h"
#include "gputop/triage.h"
#include "gputop/batch.h"
#include "gputop/fdinfo.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0"
#endif

struct prom_metric {
    size_t metric;
    int counter;
    char name[200];
    char inst_name[256];         /* its instances' own metric: name with _per_core */
    uint32_t ninst;              /* --per-core: its instances, 0 none */
    size_t inst_at;              /* their first index in inst_latest / inst_total */
};

struct gt_prom {
    const struct gt_layout *l;
    const struct gt_engine *e;
    struct gt_sampler *sampler;
    struct prom_metric *pm;
    size_t npm;
    char labels[768];            /* device="...",gpu="...",layout="..." */
    struct gt_fdinfo_watch *procs;   /* --processes: per-client series; NULL none */
    unsigned procs_top;
    pthread_mutex_t lock;
    /* Under lock: */
    double *latest;              /* per layout metric, NaN: no data yet */
    double *total;               /* counts summed over every interval */
    double *inst_latest, *inst_total;  /* the same per instance (--per-core) */
    char verdict[128], verdict_raw[128];  /* held, and the interval's own */
};

/* An output buffer that grows; a failed allocation sticks. */
struct out {
    char *p;
    size_t len, cap;
    int oom;
};

static void out_add(struct out *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n + 1)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void out_str(struct out *o, const char *s)
{
    out_add(o, s, strlen(s));
}

static void out_fmt(struct out *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n > 0)
        out_add(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Another control byte (from a capture's header, a device's name) as
 * the text \xHH, its backslash escaped: the format knows no other escape,
 * and a raw ESC would reach whoever reads the page in a terminal. */
static int control_byte(struct out *o, unsigned char c)
{
    if (c == '\n' || (c >= 0x20 && c != 0x7f))
        return 0;
    out_fmt(o, "\\\\x%02x", c);
    return 1;
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(struct out *o, const char *s)
{
    for (; *s; s++) {
        if (control_byte(o, (unsigned char)*s))
            continue;
        if (*s == '\\' || *s == '"')
            out_add(o, "\\", 1);
        if (*s == '\n')
            out_str(o, "\\n");
        else
            out_add(o, s, 1);
    }
}

/* HELP text: backslash and newline escaped. */
static void help_text(struct out *o, const char *s)
{
    for (; *s; s++) {
        if (control_byte(o, (unsigned char)*s))
            continue;
        if (*s == '\\')
            out_str(o, "\\\\");
        else if (*s == '\n')
            out_str(o, "\\n");
        else
            out_add(o, s, 1);
    }
}

static void value(struct out *o, double v)
{
    char num[40];

    if (isnan(v))
        snprintf(num, sizeof(num), "NaN");
    else if (isinf(v))
        snprintf(num, sizeof(num), "%s", v > 0 ? "+Inf" : "-Inf");
    else
        gt_format_number(num, sizeof(num), v);
    out_str(o, num);
}

static int is_count(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

static int name_used(const struct gt_prom *p, const char *name)
{
    size_t i;

    for (i = 0; i < p->npm; i++)
        if (strcmp(p->pm[i].name, name) == 0)
            return 1;
    return 0;
}

/* Two metrics of a layout may share a title within a section; the later
 * one gets _2, _3, ... before the unit, in layout order, so names stay
 * stable while the layout does. */
static void unique_name(struct gt_prom *p, struct prom_metric *pm)
{
    const struct gt_metric_def *m = &p->l->metrics[pm->metric];
    const char *sec = p->l->sections[m->section].title;
    char title[160];
    int k;

    gt_prom_name(pm->name, sizeof(pm->name), sec, m->title, m->unit, pm->counter);
    for (k = 2; name_used(p, pm->name) && k < 1000; k++) {
        snprintf(title, sizeof(title), "%s %d", m->title, k);
        gt_prom_name(pm->name, sizeof(pm->name), sec, title, m->unit, pm->counter);
    }
}

static void make_labels(struct gt_prom *p, struct gt_source *const *src, size_t nsrc)
{
    struct out o = { 0 };

    out_str(&o, "device=\"");
    label_value(&o, nsrc ? src[0]->info.device : "");
    out_str(&o, "\",gpu=\"");
    label_value(&o, nsrc ? src[0]->info.gpu : "");
    out_str(&o, "\",layout=\"");
    label_value(&o, p->l->name);
    out_str(&o, "\"");
    snprintf(p->labels, sizeof(p->labels), "%s", o.oom ? "" : o.p);
    free(o.p);
}

static int add_metrics(struct gt_prom *p, const struct gt_engine *e)
{
    size_t i;

    p->pm = calloc(p->l->nmetrics + 1, sizeof(*p->pm));
    if (!p->pm)
        return -1;
    for (i = 0; i < p->l->nmetrics; i++) {
        if (gt_engine_unavailable(e, i))
            continue;
        p->pm[p->npm].metric = i;
        p->pm[p->npm].counter = is_count(p->l->metrics[i].show);
        unique_name(p, &p->pm[p->npm]);
        p->npm++;
    }
    return 0;
}

struct gt_prom *gt_prom_new(const struct gt_layout *l, const struct gt_engine *e,
                            struct gt_source *const *src, size_t nsrc,
                            struct gt_sampler *sampler)
{
    struct gt_prom *p = calloc(1, sizeof(*p));
    size_t i;

    if (!p)
        return NULL;
    p->l = l;
    p->e = e;
    p->sampler = sampler;
    pthread_mutex_init(&p->lock, NULL);
    p->latest = calloc(l->nmetrics + 1, sizeof(double));
    p->total = calloc(l->nmetrics + 1, sizeof(double));
    if (!p->latest || !p->total || add_metrics(p, e) < 0) {
        gt_prom_free(p);
        return NULL;
    }
    for (i = 0; i < l->nmetrics; i++)
        p->latest[i] = NAN;
    make_labels(p, src, nsrc);
    return p;
}

void gt_prom_free(struct gt_prom *p)
{
    if (!p)
        return;
    pthread_mutex_destroy(&p->lock);
    free(p->pm);
    free(p->latest);
    free(p->total);
    free(p->inst_latest);
    free(p->inst_total);
    free(p);
}

/* The instances' metric name: the total's with "_per_core" (slice,
 * cluster) before its "_total", or at its end; a name of its own, so that
 * sum() over the total's name does not add each instance in twice. */
static void instance_name(const struct gt_prom *p, struct prom_metric *pm)
{
    const char *kind = gt_catalog_block_noun(gt_engine_instance_block(p->e, pm->metric), 1);
    size_t n = strlen(pm->name);
    char per[48];
    int i;

    snprintf(per, sizeof(per), "_per_%s", kind);
    for (i = 5; per[i]; i++)
        if (per[i] == ' ' || per[i] == '-')
            per[i] = '_';
    if (pm->counter && n > 6 && strcmp(pm->name + n - 6, "_total") == 0)
        snprintf(pm->inst_name, sizeof(pm->inst_name), "%.*s%s_total", (int)(n - 6), pm->name, per);
    else
        snprintf(pm->inst_name, sizeof(pm->inst_name), "%s%s", pm->name, per);
}

/* --per-core: a series per shader core, L2 slice or CPU cluster of every
 * metric that has several, labelled instance="shader core 4" as the
 * dashboard's rows are named; their values are the dashboard's too. */
int gt_prom_per_core(struct gt_prom *p)
{
    size_t i, n = 0;

    for (i = 0; i < p->npm; i++) {
        struct prom_metric *pm = &p->pm[i];
        uint32_t k = gt_engine_instances(p->e, pm->metric);
        if (k < 2 || gt_engine_instanced(p->e, pm->metric))
            continue;
        pm->ninst = k;
        pm->inst_at = n;
        n += k;
        instance_name(p, pm);
    }
    p->inst_latest = calloc(n + 1, sizeof(double));
    p->inst_total = calloc(n + 1, sizeof(double));
    if (!p->inst_latest || !p->inst_total)
        return -1;
    for (i = 0; i < n; i++)
        p->inst_latest[i] = NAN;
    return 0;
}

static void publish_instances(struct gt_prom *p, const struct gt_snapshot *s)
{
    size_t i;
    uint32_t k;

    for (i = 0; p->inst_latest && i < p->npm; i++) {
        const struct prom_metric *pm = &p->pm[i];
        for (k = 0; k < pm->ninst; k++) {
            double v = gt_engine_eval_instance(p->e, s, pm->metric, k);
            p->inst_latest[pm->inst_at + k] = v;
            if (pm->counter && !isnan(v))
                p->inst_total[pm->inst_at + k] += v;
        }
    }
}

void gt_prom_publish(void *prom, const struct gt_interval *iv)
{
    struct gt_prom *p = prom;
    const struct gt_snapshot *s = iv->snap;
    const double *vals = iv->vals;
    /* The view's verdict on the interval, the one its own line shows. */
    const struct gt_triage_result *r = iv->triage;
    const char *verdict = iv->verdict;
    size_t i;

    if (s->missing)
        return;
    pthread_mutex_lock(&p->lock);
    for (i = 0; i < p->l->nmetrics; i++) {
        p->latest[i] = vals[i];
        if (is_count(p->l->metrics[i].show) && !isnan(vals[i]))
            p->total[i] += vals[i];
    }
    publish_instances(p, s);
    snprintf(p->verdict, sizeof(p->verdict), "%s", verdict ? verdict : "");
    snprintf(p->verdict_raw, sizeof(p->verdict_raw), "%s", r ? r->raw : "");
    pthread_mutex_unlock(&p->lock);
}

static void family(struct out *o, const char *name, const char *type, const char *help)
{
    out_fmt(o, "# HELP %s ", name);
    help_text(o, help);
    out_fmt(o, "\n# TYPE %s %s\n", name, type);
}

/* name{labels[,extra]} value */
static void sample(struct out *o, const struct gt_prom *p, const char *name,
                   const char *extra_key, const char *extra_val, double v)
{
    out_str(o, name);
    out_str(o, "{");
    out_str(o, p->labels);
    if (extra_key) {
        out_fmt(o, ",%s=\"", extra_key);
        label_value(o, extra_val);
        out_str(o, "\"");
    }
    out_str(o, "} ");
    value(o, v);
    out_str(o, "\n");
}

static void metric_help(char *buf, size_t len, const struct gt_metric_def *m, int counter)
{
    snprintf(buf, len, "%s%s%s%s%s%s%s", m->title, m->ref ? " (" : "", m->ref ? m->ref : "",
             m->ref ? ")" : "", m->unit[0] ? ", " : "", m->unit,
             counter ? ", summed over every interval" : ", over the latest interval");
}

static void render_instances(struct out *o, const struct gt_prom *p,
                             const struct prom_metric *pm, const char *help)
{
    char name[64], h[600];
    uint32_t k;

    if (!p->inst_latest || !pm->ninst)
        return;
    snprintf(h, sizeof(h), "%s, per %s", help, gt_catalog_block_noun(gt_engine_instance_block(p->e, pm->metric), 0));
    family(o, pm->inst_name, pm->counter ? "counter" : "gauge", h);
    for (k = 0; k < pm->ninst; k++) {
        double v = pm->counter ? p->inst_total[pm->inst_at + k] : p->inst_latest[pm->inst_at + k];
        if (isnan(v))
            continue;
        gt_catalog_instance_name(gt_engine_instance_block(p->e, pm->metric),
                                 gt_engine_instance_number(p->e, pm->metric, k), 0, name,
                                 sizeof(name));
        sample(o, p, pm->inst_name, "instance", name, v);
    }
}

static void render_metrics(struct out *o, const struct gt_prom *p, const double *latest,
                           const double *total)
{
    char help[512];
    size_t i;

    for (i = 0; i < p->npm; i++) {
        const struct prom_metric *pm = &p->pm[i];
        double v = pm->counter ? total[pm->metric] : latest[pm->metric];
        metric_help(help, sizeof(help), &p->l->metrics[pm->metric], pm->counter);
        family(o, pm->name, pm->counter ? "counter" : "gauge", help);
        if (!isnan(v))
            sample(o, p, pm->name, NULL, NULL, v);
        render_instances(o, p, pm, help);
    }
}

static void counter(struct out *o, const struct gt_prom *p, const char *name,
                    const char *help, uint64_t v)
{
    family(o, name, "counter", help);
    sample(o, p, name, NULL, NULL, (double)v);
}

static const char *state_name(enum gt_sampler_state s)
{
    switch (s) {
    case GT_SAMPLER_IDLE: return "starting";
    case GT_SAMPLER_RUNNING: return "live";
    case GT_SAMPLER_RETRYING: return "retrying";
    case GT_SAMPLER_ENDED: return "ended";
    }
    return "live";
}

/* A gauge family of a summary's p50 and p99, in seconds. */
static void quantiles(struct out *o, const struct gt_prom *p, const char *name,
                      const char *help, const struct gt_lateness_summary *q)
{
    family(o, name, "gauge", help);
    sample(o, p, name, "quantile", "0.5", (double)q->p50_ns / 1e9);
    sample(o, p, name, "quantile", "0.99", (double)q->p99_ns / 1e9);
}

/* On the timer, how late it woke; kernel-timed, lateness means nothing:
 * how far the kernel's timestamps lay off the period's grid, and how long
 * after its end each sample was handed over. */
static void sampler_timing(struct out *o, const struct gt_prom *p,
                           const struct gt_sampler_stats *st)
{
    if (!st->kernel_timed) {
        quantiles(o, p, "gputop_sampler_wakeup_lateness_seconds",
                  "how late the sampler woke after its deadlines, since the start", &st->lateness);
        return;
    }
    quantiles(o, p, "gputop_sampler_kernel_jitter_seconds",
              "how far the kernel's sample timestamps lay off the period's grid, since the start",
              &st->jitter);
    quantiles(o, p, "gputop_sampler_drain_latency_seconds",
              "how long after its end each kernel-timed sample was handed over, since the start",
              &st->drain);
}

static void render_sampler(struct out *o, const struct gt_prom *p)
{
    static const enum gt_sampler_state states[] = {
        GT_SAMPLER_IDLE, GT_SAMPLER_RUNNING, GT_SAMPLER_RETRYING, GT_SAMPLER_ENDED,
    };
    struct gt_sampler_stats st;
    size_t i;

    if (!p->sampler)
        return;
    gt_sampler_get_stats(p->sampler, &st);
    counter(o, p, "gputop_sampler_samples_total", "sampling rounds with data from every source",
            st.samples);
    counter(o, p, "gputop_sampler_merged_samples_total",
            "rounds added into a snapshot no view had taken yet", st.merged);
    counter(o, p, "gputop_sampler_nodata_total", "rounds with a source's data missing",
            st.nodata);
    counter(o, p, "gputop_sampler_source_errors_total", "failed source samples", st.errors);
    counter(o, p, "gputop_capture_errors_total",
            "writes to the --record capture that failed (a full disk); recording stops at the first",
            st.capture_errors);
    counter(o, p, "gputop_sampler_late_wakeups_total",
            "wake-ups that missed their deadline by a whole interval", st.late);
    sampler_timing(o, p, &st);
    family(o, "gputop_source_state", "gauge",
           "1 for the sampler's current state: starting, live, retrying or ended");
    for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
        sample(o, p, "gputop_source_state", "state", state_name(states[i]),
               st.state == states[i]);
}

/* ---- per-process series (--serve ... --processes N) ---- */

#define PROC_ROWS 256

void gt_prom_set_processes(struct gt_prom *p, struct gt_fdinfo_watch *w, unsigned top)
{
    p->procs = w;
    p->procs_top = top;
}

/* Busiest first, then the most resident memory, then the lowest pid: so
 * that idle clients holding memory still make the top N. */
static int proc_before(const struct gt_fdinfo_row *a, const struct gt_fdinfo_row *b)
{
    if (a->busy_pct != b->busy_pct)
        return a->busy_pct > b->busy_pct;
    if (a->mem_resident != b->mem_resident)
        return a->mem_resident > b->mem_resident;
    return a->pid < b->pid;
}

static void top_rows(struct gt_fdinfo_row *r, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        struct gt_fdinfo_row x = r[i];
        for (j = i; j > 0 && proc_before(&x, &r[j - 1]); j--)
            r[j] = r[j - 1];
        r[j] = x;
    }
}

static void proc_sample(struct out *o, const struct gt_prom *p, const char *name,
                        const struct gt_fdinfo_row *r, double v)
{
    char pid[16];
    const char *keys[] = { "pid", "comm", "container", "driver", "drm_pdev" };
    const char *vals[] = { pid, r->comm, r->container, r->driver, r->pdev };
    size_t i;

    snprintf(pid, sizeof(pid), "%d", r->pid);
    out_str(o, name);
    out_str(o, "{");
    out_str(o, p->labels);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        out_fmt(o, ",%s=\"", keys[i]);
        label_value(o, vals[i]);
        out_str(o, "\"");
    }
    out_str(o, "} ");
    value(o, v);
    out_str(o, "\n");
}

/* One family a figure, each the top N clients by use; memory families
 * only for clients whose driver prints that figure. */
static void render_processes(struct out *o, const struct gt_prom *p)
{
    static const struct { const char *name, *help; } fam[] = {
        { "gputop_process_gpu_busy_percent", "the client's busiest engine over the watcher's "
          "last second, not clamped (a driver summing work that ran at once can pass 100)" },
        { "gputop_process_memory_resident_bytes", "GPU memory the client holds resident "
          "(drm-resident-*), shared buffers included" },
        { "gputop_process_memory_private_bytes", "GPU memory only this client holds "
          "(drm-total-* less drm-shared-*): sum these, not resident" },
        { "gputop_process_memory_vram_bytes", "resident in VRAM (amdgpu; on an APU the "
          "carve-out)" },
        { "gputop_process_memory_gtt_bytes", "resident in GTT, system memory the GPU maps "
          "(amdgpu; most of a compute job's memory on an APU)" },
    };
    struct gt_fdinfo_row *rows;
    uint64_t updates;
    size_t n, i, f;
    int off;

    if (!p->procs || !(rows = malloc(PROC_ROWS * sizeof(*rows))))
        return;
    n = gt_fdinfo_watch_rows(p->procs, rows, PROC_ROWS, &off, &updates);
    top_rows(rows, n);
    family(o, "gputop_processes_clients", "gauge", "DRM clients the watcher lists; the "
           "gputop_process_* series carry the top N of them by use");
    sample(o, p, "gputop_processes_clients", NULL, NULL, (double)n);
    if (n > p->procs_top)
        n = p->procs_top;
    for (f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
        family(o, fam[f].name, "gauge", fam[f].help);
        for (i = 0; i < n; i++) {
            const struct gt_fdinfo_row *r = &rows[i];
            if (f == 0)
                proc_sample(o, p, fam[f].name, r, r->busy_pct);
            else if (f == 1)
                proc_sample(o, p, fam[f].name, r, (double)r->mem_resident);
            else if (f == 2 && r->has_private)
                proc_sample(o, p, fam[f].name, r, (double)r->mem_private);
            else if (f >= 3 && r->has_vram_gtt)
                proc_sample(o, p, fam[f].name, r,
                            (double)(f == 3 ? r->mem_vram : r->mem_gtt));
        }
    }
    free(rows);
}

long gt_prom_render(struct gt_prom *p, char **text)
{
    size_t n = p->l->nmetrics + 1;
    double *latest = malloc(n * sizeof(double)), *total = malloc(n * sizeof(double));
    char verdict[sizeof(p->verdict)], raw[sizeof(p->verdict_raw)];
    struct out o = { 0 };

    *text = NULL;
    if (!latest || !total) {
        free(latest);
        free(total);
        return -1;
    }
    pthread_mutex_lock(&p->lock);
    memcpy(latest, p->latest, p->l->nmetrics * sizeof(double));
    memcpy(total, p->total, p->l->nmetrics * sizeof(double));
    memcpy(verdict, p->verdict, sizeof(verdict));
    memcpy(raw, p->verdict_raw, sizeof(raw));
    family(&o, "gputop_info", "gauge", "the device, GPU and layout gputop reports on");
    sample(&o, p, "gputop_info", "version", GPUTOP_VERSION, 1);
    /* Under the lock: the per-instance values are read in place. */
    render_metrics(&o, p, latest, total);
    pthread_mutex_unlock(&p->lock);
    render_sampler(&o, p);
    render_processes(&o, p);
    family(&o, "gputop_triage_verdict", "gauge",
           "1 with the held triage verdict (after the layout's triage hold and band, as the "
           "dashboard shows it): what the work is bound by");
    if (verdict[0])
        sample(&o, p, "gputop_triage_verdict", "verdict", verdict, 1);
    if (raw[0]) {
        family(&o, "gputop_triage_interval_verdict", "gauge",
               "1 with the latest interval's own triage verdict, before hold and band");
        sample(&o, p, "gputop_triage_interval_verdict", "verdict", raw, 1);
    }
    free(latest);
    free(total);
    if (o.oom) {
        free(o.p);
        return -1;
    }
    *text = o.p;
    return (long)o.len;
}

int gt_prom_http_handler(void *prom, const char *path, char **body, size_t *len,
                         const char **type)
{
    static const char page[] = "gputop: Prometheus metrics at /metrics\n";
    long n;

    *type = "text/plain; charset=utf-8";
    if (strcmp(path, "/metrics") != 0) {
        int root = strcmp(path, "/") == 0;
        const char *msg = root ? page : "gputop: not found; metrics are at /metrics\n";
        *body = strdup(msg);
        *len = strlen(msg);
        return *body ? (root ? 200 : 404) : -1;
    }
    n = gt_prom_render(prom, body);
    if (n < 0)
        return -1;
    *len = (size_t)n;
    *type = "text/plain; version=0.0.4; charset=utf-8";
    return 200;
}
