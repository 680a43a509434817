/* Batch writers: text for people, CSV with the layout's titles as header,
 * and JSON Lines with one metadata record then one record per sample. */
#include "gputop/batch.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0"
#endif

void gt_format_number(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        buf[0] = '\0';
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%s", v > 0 ? "1e999" : "-1e999");
        return;
    }
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

static int section_matches(const struct gt_layout *l, size_t sec, const char *want)
{
    const struct gt_section_def *s = &l->sections[sec];

    if (!want)
        return 1;
    if (strlen(want) == 1 && want[0] == s->key)
        return 1;
    return strcasecmp(want, s->title) == 0;
}

static int metric_matches(const struct gt_metric_def *m, const char *pattern)
{
    if (!pattern)
        return 1;
    if (fnmatch(pattern, m->title, FNM_CASEFOLD) == 0)
        return 1;
    return m->ref && fnmatch(pattern, m->ref, 0) == 0;
}

static void unique_key(struct gt_column *cols, size_t n, struct gt_column *c,
                       const struct gt_metric_def *m)
{
    size_t i;
    int dup = 1;

    snprintf(c->key, sizeof(c->key), "%s", m->ref ? m->ref : m->title);
    if (c->instance >= 0)
        snprintf(c->key + strlen(c->key), sizeof(c->key) - strlen(c->key), "[%d]", c->instance);
    for (;;) {
        int clash = 0;
        for (i = 0; i < n; i++)
            clash |= strcmp(cols[i].key, c->key) == 0;
        if (!clash)
            return;
        dup++;
        snprintf(c->key + strcspn(c->key, "#"), sizeof(c->key) - strcspn(c->key, "#"), "#%d", dup);
    }
}

static int add_column(struct gt_column **cols, size_t *n, size_t *cap,
                      const struct gt_metric_def *m, size_t metric, int instance)
{
    struct gt_column *c;

    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        c = realloc(*cols, ncap * sizeof(*c));
        if (!c)
            return -1;
        *cols = c;
        *cap = ncap;
    }
    c = &(*cols)[*n];
    c->metric = metric;
    c->instance = instance;
    if (instance >= 0)
        snprintf(c->title, sizeof(c->title), "%s[%d]", m->title, instance);
    else
        snprintf(c->title, sizeof(c->title), "%s", m->title);
    unique_key(*cols, *n, c, m);
    (*n)++;
    return 0;
}

long gt_batch_columns(const struct gt_layout *l, const struct gt_engine *e,
                      const struct gt_batch_opts *o, struct gt_column **cols,
                      struct gt_diag *d)
{
    size_t i, n = 0, cap = 0;
    int any_section = 0;
    uint32_t k;

    *cols = NULL;
    for (i = 0; i < l->nsections; i++)
        any_section |= section_matches(l, i, o->section);
    if (!any_section) {
        gt_diag_set(d, "no section '%s' in layout %s", o->section, l->name);
        return 0;
    }
    for (i = 0; i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        if (!section_matches(l, (size_t)m->section, o->section) || !metric_matches(m, o->pattern))
            continue;
        if (!gt_engine_instanced(e, i) || gt_engine_unavailable(e, i)) {
            if (add_column(cols, &n, &cap, m, i, -1) < 0)
                return -1;
            continue;
        }
        for (k = 0; k < gt_engine_instances(e, i); k++)
            if (add_column(cols, &n, &cap, m, i, (int)k) < 0)
                return -1;
    }
    if (n == 0)
        gt_diag_set(d, "no metric matches '%s'%s%s", o->pattern ? o->pattern : "*",
                    o->section ? " in section " : "", o->section ? o->section : "");
    return (long)n;
}

static int is_rate_kind(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

static double column_value(const struct gt_column *c, const struct gt_engine *e,
                           const struct gt_layout *l, const struct gt_snapshot *s,
                           const double *vals, int per_second)
{
    double v = c->instance < 0 ? vals[c->metric]
                               : gt_engine_eval_instance(e, s, c->metric, (uint32_t)c->instance);
    double secs = gt_engine_seconds(s);

    if (per_second && is_rate_kind(l->metrics[c->metric].show))
        v = secs > 0 ? v / secs : NAN;
    return v;
}

static const char *show_name(enum gt_show s)
{
    switch (s) {
    case GT_SHOW_PERCENT: return "percent";
    case GT_SHOW_COUNT: return "count";
    case GT_SHOW_VALUE: return "value";
    case GT_SHOW_BUCKET: return "bucket";
    }
    return "value";
}

/* ---- JSON ---- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v)
{
    char buf[40];

    if (isnan(v) || isinf(v)) {
        fputs("null", f);
        return;
    }
    gt_format_number(buf, sizeof(buf), v);
    fputs(buf, f);
}

static void unit_of(char *buf, size_t len, const struct gt_metric_def *m, int per_second)
{
    if (per_second && is_rate_kind(m->show))
        snprintf(buf, len, "%s/s", m->unit[0] ? m->unit : "count");
    else
        snprintf(buf, len, "%s", m->unit);
}

static void json_meta(FILE *f, const struct gt_layout *l, const struct gt_engine *e,
                      struct gt_source *const *src, size_t nsrc, const struct gt_column *cols,
                      size_t ncols, const struct gt_batch_opts *o, uint64_t interval_ns)
{
    size_t i;
    char unit[80];

    fputs("{\"type\":\"meta\",\"gputop\":", f);
    json_string(f, GPUTOP_VERSION);
    fputs(",\"layout\":", f);
    json_string(f, l->name);
    fputs(",\"sources\":[", f);
    for (i = 0; i < nsrc; i++) {
        const struct gt_source_info *in = &src[i]->info;
        fputs(i ? ",{\"type\":" : "{\"type\":", f);
        json_string(f, src[i]->type->name);
        fputs(",\"device\":", f);
        json_string(f, in->device);
        fputs(",\"gpu\":", f);
        json_string(f, in->gpu);
        fputs(",\"detail\":", f);
        json_string(f, in->detail);
        fprintf(f, ",\"shader_cores\":%u,\"l2_slices\":%u}", in->shader_cores, in->l2_slices);
    }
    fprintf(f, "],\"interval_s\":");
    json_number(f, (double)interval_ns / 1e9);
    fprintf(f, ",\"per_second\":%s,\"metrics\":[", o->per_second ? "true" : "false");
    for (i = 0; i < ncols; i++) {
        const struct gt_metric_def *m = &l->metrics[cols[i].metric];
        const char *why = gt_engine_unavailable(e, cols[i].metric);
        fputs(i ? ",{\"key\":" : "{\"key\":", f);
        json_string(f, cols[i].key);
        fputs(",\"title\":", f);
        json_string(f, cols[i].title);
        fputs(",\"ref\":", f);
        if (m->ref)
            json_string(f, m->ref);
        else
            fputs("null", f);
        unit_of(unit, sizeof(unit), m, o->per_second);
        fputs(",\"unit\":", f);
        json_string(f, unit);
        fputs(",\"show\":", f);
        json_string(f, show_name(m->show));
        fputs(",\"section\":", f);
        json_string(f, l->sections[m->section].title);
        fputs(",\"group\":", f);
        json_string(f, l->groups[m->group].title);
        if (why) {
            fputs(",\"unavailable\":", f);
            json_string(f, why);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* ---- records ---- */

struct writer {
    FILE *f;
    const struct gt_layout *l;
    const struct gt_engine *e;
    const struct gt_column *cols;
    size_t ncols;
    const struct gt_batch_opts *o;
    uint64_t t0;
};

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_header(const struct writer *w)
{
    size_t i;

    if (w->o->format != GT_FORMAT_CSV)
        return;
    fputs("time_s,interval_s", w->f);
    for (i = 0; i < w->ncols; i++) {
        fputc(',', w->f);
        csv_field(w->f, w->cols[i].title);
    }
    fputc('\n', w->f);
}

static void write_text(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    int last_group = -1;
    size_t i;
    char num[40], unit[80];

    fprintf(w->f, "t=%.3f s  interval %.1f ms%s\n", (double)(s->t_end_ns - w->t0) / 1e9,
            gt_engine_seconds(s) * 1e3, s->nsamples > 1 ? "  (merged)" : "");
    for (i = 0; i < w->ncols; i++) {
        const struct gt_metric_def *m = &w->l->metrics[w->cols[i].metric];
        double v = column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second);
        if (m->group != last_group) {
            fprintf(w->f, "  %s / %s\n", w->l->sections[m->section].title,
                    w->l->groups[m->group].title);
            last_group = m->group;
        }
        gt_format_number(num, sizeof(num), v);
        if (!isnan(v) && fabs(v) >= 1e6 && fabs(v) < 1e15)
            snprintf(num, sizeof(num), "%.0f", v);
        else if (!isnan(v) && v != floor(v))
            snprintf(num, sizeof(num), "%.3f", v);
        unit_of(unit, sizeof(unit), m, w->o->per_second);
        fprintf(w->f, "    %-56s %16s %s\n", w->cols[i].title, isnan(v) ? "-" : num, unit);
    }
    fputc('\n', w->f);
}

/* A header figure's value, when the layout names one the source feeds. */
static int figure(const struct writer *w, enum gt_header_fig f, const double *vals, double *v)
{
    int m = w->l->header[f];

    if (m < 0 || gt_engine_unavailable(w->e, (size_t)m))
        return 0;
    *v = vals[m];
    return 1;
}

/* The dashboard header's figures: ,"gpu":{"busy_pct":60,"clock":850,
 * "clock_unit":"MHz"}, or {"busy_of_max_clock_pct":51} when the source
 * knows only the max clock; left out when it knows neither. */
static void json_gpu(const struct writer *w, const double *vals)
{
    double busy, clock;

    if (figure(w, GT_HEADER_BUSY, vals, &busy)) {
        fputs(",\"gpu\":{\"busy_pct\":", w->f);
        json_number(w->f, busy);
        if (figure(w, GT_HEADER_CLOCK, vals, &clock)) {
            fputs(",\"clock\":", w->f);
            json_number(w->f, clock);
            fputs(",\"clock_unit\":", w->f);
            json_string(w->f, w->l->metrics[w->l->header[GT_HEADER_CLOCK]].unit);
        }
        fputc('}', w->f);
    } else if (figure(w, GT_HEADER_BUSY_MAX, vals, &busy)) {
        fputs(",\"gpu\":{\"busy_of_max_clock_pct\":", w->f);
        json_number(w->f, busy);
        fputc('}', w->f);
    }
}

static void write_record(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    double t = (double)(s->t_end_ns - w->t0) / 1e9;
    char num[40];
    size_t i;

    if (w->o->format == GT_FORMAT_TEXT) {
        write_text(w, s, vals);
        return;
    }
    if (w->o->format == GT_FORMAT_CSV) {
        gt_format_number(num, sizeof(num), t);
        fputs(num, w->f);
        gt_format_number(num, sizeof(num), gt_engine_seconds(s));
        fprintf(w->f, ",%s", num);
        for (i = 0; i < w->ncols; i++) {
            gt_format_number(num, sizeof(num),
                             column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second));
            fprintf(w->f, ",%s", num);
        }
        fputc('\n', w->f);
        return;
    }
    fputs("{\"type\":\"sample\",\"t\":", w->f);
    json_number(w->f, t);
    fputs(",\"interval_s\":", w->f);
    json_number(w->f, gt_engine_seconds(s));
    fprintf(w->f, ",\"merged\":%u,\"values\":{", s->nsamples);
    for (i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->f);
        json_string(w->f, w->cols[i].key);
        fputc(':', w->f);
        json_number(w->f, column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second));
    }
    fputc('}', w->f);
    json_gpu(w, vals);
    fputs("}\n", w->f);
}

static int check_write(FILE *f, struct gt_diag *d)
{
    if (fflush(f) == 0 && !ferror(f))
        return 0;
    if (errno == EPIPE)
        return 1;
    gt_diag_set(d, "cannot write output: %s", strerror(errno));
    return -1;
}

/* A source's warning (a saturated counter, a drained ring) goes to
 * stderr once, apart from the records on stdout. */
static uint64_t report_warning(struct gt_sampler *s, uint64_t seen)
{
    struct gt_sampler_stats st;

    gt_sampler_get_stats(s, &st);
    if (st.warnings != seen && st.last_warning[0])
        fprintf(stderr, "gputop: warning: %s\n", st.last_warning);
    return st.warnings;
}

int gt_batch_run(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                 const struct gt_layout *l, struct gt_source *const *sources, size_t nsources,
                 const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                 struct gt_diag *d)
{
    struct writer w = { out, l, e, NULL, 0, o, 0 };
    struct gt_column *cols = NULL;
    struct gt_snapshot snap;
    double *vals = NULL;
    uint64_t written = 0, start = gt_now_ns();
    long n = gt_batch_columns(l, e, o, &cols, d);
    int r, status = 0;
    uint64_t warned = 0;

    if (n <= 0)
        return -1;
    w.cols = cols;
    w.ncols = (size_t)n;
    vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    if (!vals || gt_snapshot_init(&snap, gt_sampler_nslots(s)) < 0) {
        gt_diag_set(d, "out of memory");
        free(vals);
        free(cols);
        return -1;
    }
    if (o->format == GT_FORMAT_JSON)
        json_meta(out, l, e, sources, nsources, cols, w.ncols, o, gt_sampler_interval(s));
    write_header(&w);
    if ((r = check_write(out, d)) != 0)
        goto done;
    while (!*stop && (!o->count || written < o->count)) {
        if (o->duration_s > 0 && (double)(gt_now_ns() - start) / 1e9 >= o->duration_s)
            break;
        r = gt_sampler_take(s, &snap, 200000000ull);
        if (r < 0)
            break;
        if (r == 0)
            continue;
        if (!w.t0)
            w.t0 = snap.t_start_ns;
        warned = report_warning(s, warned);
        gt_engine_eval(e, &snap, vals);
        write_record(&w, &snap, vals);
        written++;
        if ((r = check_write(out, d)) != 0)
            goto done;
    }
    r = 0;
done:
    status = r < 0 ? -1 : 0;
    gt_snapshot_free(&snap);
    free(vals);
    free(cols);
    return status;
}
