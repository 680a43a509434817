/* Batch writers: text for people (fitted to the terminal's width), CSV with
 * the layout's titles and units as header, and JSON Lines with one metadata
 * record then one record per sample. */
#include "gputop/batch.h"
#include "gputop/triage.h"
#include "gputop/format.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0"
#endif

/* A value as --precision asks: six significant digits by default, or
 * exactly ("" for no data, as an empty CSV field). */
static void format_value(char *buf, size_t len, double v, int digits)
{
    if (isnan(v)) {
        buf[0] = '\0';
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%s", v > 0 ? "1e999" : "-1e999");
        return;
    }
    gt_fmt_sig(buf, len, v, digits == GT_DIGITS_FULL ? 0 : digits ? digits : GT_DIGITS_DEFAULT);
}

void gt_format_number(char *buf, size_t len, double v)
{
    format_value(buf, len, v, GT_DIGITS_FULL);
}

/* Times in seconds to the nanosecond the clocks give, without the binary
 * fraction's noise (0.100907383, not 0.10090738299999999). */
static void format_seconds(char *buf, size_t len, double v)
{
    char *end;

    snprintf(buf, len, "%.9f", v);
    end = buf + strlen(buf);
    while (end[-1] == '0')
        *--end = '\0';
    if (end[-1] == '.')
        end[-1] = '\0';
}

/* A title another metric of the layout also has ("Fragment shading rate",
 * 4.7.1 and 6.3.4 in the Mali-G720 guide) gets the guide reference, or the
 * section without one. Checked against the whole layout, so a column's
 * name does not depend on what --metrics selects. */
static int title_shared(const struct gt_layout *l, size_t metric)
{
    size_t i;

    for (i = 0; i < l->nmetrics; i++)
        if (i != metric && strcmp(l->metrics[i].title, l->metrics[metric].title) == 0)
            return 1;
    return 0;
}

/* The column's name: the title, made unique, then [instance] for one
 * instance of a per-instance metric. */
static void column_title(char *buf, size_t len, const struct gt_layout *l, size_t metric,
                         int instance, const char *inst_name)
{
    const struct gt_metric_def *m = &l->metrics[metric];
    int n;

    if (!title_shared(l, metric))
        n = snprintf(buf, len, "%s", m->title);
    else
        n = snprintf(buf, len, "%s (%s)", m->title,
                     m->ref ? m->ref : l->sections[m->section].title);
    if (n < 0 || (size_t)n >= len)
        return;
    if (inst_name)
        snprintf(buf + n, len - (size_t)n, " [%s]", inst_name);
    else if (instance >= 0)
        snprintf(buf + n, len - (size_t)n, "[%d]", instance);
}

static int name_taken(const struct gt_column *cols, size_t n, size_t off, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp((const char *)&cols[i] + off, name) == 0)
            return 1;
    return 0;
}

/* Appends #2, #3, ... while an earlier column has the same text in the
 * field at off (key or title): layouts of one's own may repeat a title
 * within a section. */
static void make_unique(const struct gt_column *cols, size_t n, struct gt_column *c,
                        size_t off, size_t size)
{
    char *name = (char *)c + off;
    size_t base = strlen(name);
    int dup = 1;

    while (name_taken(cols, n, off, name) && dup < 1000)
        snprintf(name + base, size - base, "#%d", ++dup);
}

/* inst_name: a --per-core column's instance ("shader core 4"), else NULL. */
static int add_column(struct gt_column **cols, size_t *n, size_t *cap,
                      const struct gt_layout *l, size_t metric, int instance,
                      const char *inst_name, int pop)
{
    const struct gt_metric_def *m = &l->metrics[metric];
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
    c->per_core = inst_name != NULL;
    c->pop = pop;
    column_title(c->title, sizeof(c->title), l, metric, instance, inst_name);
    if (!m->ref)
        snprintf(c->key, sizeof(c->key), "%.*s", (int)sizeof(c->key) - 1, c->title);
    else if (inst_name)
        snprintf(c->key, sizeof(c->key), "%s [%s]", m->ref, inst_name);
    else if (instance >= 0)
        snprintf(c->key, sizeof(c->key), "%s[%d]", m->ref, instance);
    else
        snprintf(c->key, sizeof(c->key), "%s", m->ref);
    if (pop) {
        /* Room is left for the suffix: titles and keys are far shorter. */
        strncat(c->title, " % of peak", sizeof(c->title) - strlen(c->title) - 6);
        strncat(c->key, " % of peak", sizeof(c->key) - strlen(c->key) - 6);
    }
    /* Room for "#NNN" is kept at the end of both fields. */
    c->key[sizeof(c->key) - 5] = c->title[sizeof(c->title) - 5] = '\0';
    make_unique(*cols, *n, c, offsetof(struct gt_column, key), sizeof(c->key));
    make_unique(*cols, *n, c, offsetof(struct gt_column, title), sizeof(c->title));
    (*n)++;
    return 0;
}

/* --per-core: after the metric's own column, one per instance, named as
 * the dashboard names its rows ("Title [shader core 4]"). */
static int add_per_core(struct gt_column **cols, size_t *n, size_t *cap,
                        const struct gt_engine *e, const struct gt_layout *l, size_t metric)
{
    uint32_t k, ninst = gt_engine_unavailable(e, metric) ? 1 : gt_engine_instances(e, metric);
    char name[48];

    for (k = 0; ninst > 1 && k < ninst; k++) {
        gt_engine_instance_name(e, metric, k, 0, name, sizeof(name));
        if (add_column(cols, n, cap, l, metric, (int)k, name, 0) < 0)
            return -1;
    }
    return 0;
}

/* A metric with a peak gets a percent-of-peak column after its value,
 * unless it is a percentage whose peak is 100: that column would repeat
 * the value. */
static int pop_column(const struct gt_metric_def *m)
{
    if (!m->peak)
        return 0;
    return m->pop || m->show != GT_SHOW_PERCENT || strcmp(m->peak_text, "100") != 0;
}

long gt_batch_columns(const struct gt_layout *l, const struct gt_engine *e,
                      const struct gt_batch_opts *o, struct gt_column **cols,
                      struct gt_diag *d)
{
    size_t i, n = 0, cap = 0;
    long sec = o->section ? gt_layout_find_section(l, o->section, NULL) : -1;
    uint32_t k;

    *cols = NULL;
    if (o->section && sec < 0) {
        gt_diag_set(d, "no section '%s' in layout %s", o->section, l->name);
        return 0;
    }
    for (i = 0; i < l->nmetrics; i++) {
        const struct gt_metric_def *m = &l->metrics[i];
        if ((o->section && m->section != sec) || !gt_layout_metric_matches(m, o->pattern))
            continue;
        if (!gt_engine_instanced(e, i) || gt_engine_unavailable(e, i)) {
            if (add_column(cols, &n, &cap, l, i, -1, NULL, 0) < 0)
                return -1;
            if (pop_column(m) && add_column(cols, &n, &cap, l, i, -1, NULL, 1) < 0)
                return -1;
            if (o->per_core && add_per_core(cols, &n, &cap, e, l, i) < 0)
                return -1;
            continue;
        }
        for (k = 0; k < gt_engine_instances(e, i); k++)
            if (add_column(cols, &n, &cap, l, i, (int)k, NULL, 0) < 0)
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

    if (c->pop)
        return gt_engine_pop(e, c->metric);

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

void gt_json_string(FILE *f, const char *s)
{
    json_string(f, s);
}

static void json_number(FILE *f, double v, int digits)
{
    char buf[40];

    if (isnan(v) || isinf(v)) {
        fputs("null", f);
        return;
    }
    format_value(buf, sizeof(buf), v, digits);
    fputs(buf, f);
}

static void json_seconds(FILE *f, double v)
{
    char buf[40];

    format_seconds(buf, sizeof(buf), v);
    fputs(buf, f);
}

static void unit_of(char *buf, size_t len, const struct gt_metric_def *m, int per_second)
{
    if (!m)
        snprintf(buf, len, "%%");   /* a percent-of-peak column */
    else if (per_second && is_rate_kind(m->show))
        snprintf(buf, len, "%s/s", m->unit[0] ? m->unit : "count");
    else
        snprintf(buf, len, "%s", m->unit);
}

/* A column's metric for its unit; NULL for a percent-of-peak column. */
static const struct gt_metric_def *unit_metric(const struct gt_layout *l,
                                               const struct gt_column *c)
{
    return c->pop ? NULL : &l->metrics[c->metric];
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
    json_seconds(f, (double)interval_ns / 1e9);
    fprintf(f, ",\"per_second\":%s,\"significant_digits\":", o->per_second ? "true" : "false");
    if (o->digits == GT_DIGITS_FULL)
        fputs("null", f);   /* every digit needed to read the double back */
    else
        fprintf(f, "%d", o->digits ? o->digits : GT_DIGITS_DEFAULT);
    fputs(",\"metrics\":[", f);
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
        unit_of(unit, sizeof(unit), unit_metric(l, &cols[i]), o->per_second);
        fputs(",\"unit\":", f);
        json_string(f, unit);
        fputs(",\"show\":", f);
        json_string(f, cols[i].pop ? "percent" : show_name(m->show));
        fputs(",\"section\":", f);
        json_string(f, l->sections[m->section].title);
        fputs(",\"group\":", f);
        json_string(f, l->groups[m->group].title);
        if (cols[i].per_core) {
            char name[48];
            fputs(",\"instance\":", f);
            json_string(f, gt_engine_instance_name(e, cols[i].metric, (uint32_t)cols[i].instance,
                                                   0, name, sizeof(name)));
        }
        if (gt_engine_estimated(e, cols[i].metric))
            fputs(",\"estimated\":true", f);
        if (why) {
            fputs(",\"unavailable\":", f);
            json_string(f, why);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* ---- records ---- */

/* Where a text record's fields go, worked out once for the width. */
struct text_cols {
    int width;      /* no line is longer */
    int group;      /* indent of "Section / Group" lines */
    int indent;     /* of metric lines */
    int name;       /* names are padded or cut to this */
    int value;      /* values are right-aligned in this */
    int unit;       /* room kept for units; a longer one takes it from the name */
};

struct writer {
    FILE *f;
    const struct gt_layout *l;
    const struct gt_engine *e;
    const struct gt_column *cols;
    size_t ncols;
    const struct gt_batch_opts *o;
    uint64_t t0;
    struct text_cols tc;
    int have_t0;     /* t0 is set: 0 is a valid start (a CSV import starts there) */
    struct gt_source *const *sources;
    size_t nsources;
    char error[GT_DIAG_MSG + 64];   /* the sampler's last error, for no-data rows */
    struct gt_triage *triage;       /* the layout's decision tree, NULL without one */
    const char *verdict;            /* its verdict for the record being written */
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

/* One header line, each name followed by its unit in brackets
 * ("Bytes read [bytes/s]"): a spreadsheet or pandas takes the first line as
 * the column names, and a second header line would land among the data. */
static void write_header(const struct writer *w)
{
    char name[sizeof(w->cols->title) + 96], unit[80];
    size_t i;

    if (w->o->format != GT_FORMAT_CSV)
        return;
    fputs("time_s,interval_s", w->f);
    for (i = 0; i < w->ncols; i++) {
        unit_of(unit, sizeof(unit), unit_metric(w->l, &w->cols[i]), w->o->per_second);
        snprintf(name, sizeof(name), unit[0] ? "%s [%s]" : "%s", w->cols[i].title, unit);
        fputc(',', w->f);
        csv_field(w->f, name);
    }
    if (w->triage)
        fputs(",triage", w->f);
    fputc('\n', w->f);
}

/* ---- text ---- */

/* The columns text records may use: the terminal's width when out is a
 * terminal, else $COLUMNS as a shell exports it, else 80. */
static int output_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    struct winsize ws;
    int fd = fileno(out);
    char *end;
    long n;

    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    if (env && *env) {
        n = strtol(env, &end, 10);
        if (!*end && n > 0 && n < 10000)
            return (int)n;
    }
    return 80;
}

/* Columns of UTF-8 text, one per character: the layouts' titles hold no
 * double-width or combining characters. */
static int text_columns(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s in at most cols columns, cut with "..." when longer (ASCII, since
 * text records also go to logs and TERM=dumb shells in the C locale), and
 * padded with spaces to cols when pad is set. */
static void print_fitted(FILE *f, const char *s, int cols, int pad)
{
    int n = text_columns(s), keep, i;

    if (cols < 0)
        cols = 0;
    if (n <= cols) {
        fprintf(f, "%s%*s", s, pad ? cols - n : 0, "");
        return;
    }
    keep = cols > 3 ? cols - 3 : cols;
    for (i = 0; *s; s++) {
        i += ((unsigned char)*s & 0xC0) != 0x80;
        if (i > keep)
            break;
        fputc(*s, f);
    }
    if (cols > 3)
        fputs("...", f);
}

static void text_layout(struct writer *w)
{
    struct text_cols *tc = &w->tc;
    char unit[80];
    int longest = 0, n;
    size_t i;

    for (i = 0; i < w->ncols; i++) {
        unit_of(unit, sizeof(unit), unit_metric(w->l, &w->cols[i]), w->o->per_second);
        n = text_columns(unit);
        longest = n > longest ? n : longest;
    }
    tc->width = w->o->width > 0 ? w->o->width : output_width(w->f);
    tc->group = tc->width >= 60 ? 2 : 0;
    tc->indent = tc->group + 2;
    tc->value = tc->width >= 60 ? 12 : 9;
    tc->unit = longest < tc->width / 4 ? longest : tc->width / 4;
    tc->name = tc->width - tc->indent - 1 - tc->value - 1 - tc->unit;
}

/* "name value unit": a value or unit longer than its room takes columns
 * from the name, then from the value's padding, so the line still fits
 * and the number stays whole. */
static void text_metric(const struct writer *w, const char *name, const char *value,
                        const char *unit)
{
    const struct text_cols *tc = &w->tc;
    int over_v = (int)strlen(value) - tc->value, over_u = text_columns(unit) - tc->unit;
    int cols = tc->name - (over_v > 0 ? over_v : 0) - (over_u > 0 ? over_u : 0);
    int vcols = tc->value + (cols < 0 ? cols : 0);

    fprintf(w->f, "%*s", tc->indent, "");
    print_fitted(w->f, name, cols, 1);
    fprintf(w->f, " %*s %s\n", vcols, value, unit);
}

static void write_text(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    int last_group = -1;
    size_t i;
    char line[256], num[40], unit[80];

    snprintf(line, sizeof(line), "t=%.3f s  interval %.1f ms%s",
             (double)(s->t_end_ns - w->t0) / 1e9, gt_engine_seconds(s) * 1e3,
             s->nsamples > 1 ? "  (merged)" : "");
    print_fitted(w->f, line, w->tc.width, 0);
    fputc('\n', w->f);
    if (w->verdict) {
        snprintf(line, sizeof(line), "  triage: %s", w->verdict);
        print_fitted(w->f, line, w->tc.width, 0);
        fputc('\n', w->f);
    }
    for (i = 0; i < w->ncols; i++) {
        const struct gt_metric_def *m = &w->l->metrics[w->cols[i].metric];
        double v = column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second);
        if (m->group != last_group) {
            snprintf(line, sizeof(line), "%s / %s", w->l->sections[m->section].title,
                     w->l->groups[m->group].title);
            fprintf(w->f, "%*s", w->tc.group, "");
            print_fitted(w->f, line, w->tc.width - w->tc.group, 0);
            fputc('\n', w->f);
            last_group = m->group;
        }
        /* '~': an estimate from multiplexed counters */
        num[0] = '~';
        format_value(num + 1, sizeof(num) - 1, v, w->o->digits);
        unit_of(unit, sizeof(unit), unit_metric(w->l, &w->cols[i]), w->o->per_second);
        text_metric(w, w->cols[i].title,
                    isnan(v) ? "-" : num + !gt_engine_estimated(w->e, w->cols[i].metric), unit);
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
        json_number(w->f, busy, w->o->digits);
        if (figure(w, GT_HEADER_CLOCK, vals, &clock)) {
            fputs(",\"clock\":", w->f);
            json_number(w->f, clock, w->o->digits);
            fputs(",\"clock_unit\":", w->f);
            json_string(w->f, w->l->metrics[w->l->header[GT_HEADER_CLOCK]].unit);
        }
        fputc('}', w->f);
    } else if (figure(w, GT_HEADER_BUSY_MAX, vals, &busy)) {
        fputs(",\"gpu\":{\"busy_of_max_clock_pct\":", w->f);
        json_number(w->f, busy, w->o->digits);
        fputc('}', w->f);
    }
}

static void write_record(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    double t = (double)(s->t_end_ns - w->t0) / 1e9;
    char num[40];
    size_t i;

    if (w->o->format == GT_FORMAT_NONE)
        return;
    if (w->o->format == GT_FORMAT_TEXT) {
        write_text(w, s, vals);
        return;
    }
    if (w->o->format == GT_FORMAT_CSV) {
        format_seconds(num, sizeof(num), t);
        fputs(num, w->f);
        format_seconds(num, sizeof(num), gt_engine_seconds(s));
        fprintf(w->f, ",%s", num);
        for (i = 0; i < w->ncols; i++) {
            format_value(num, sizeof(num),
                         column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second),
                         w->o->digits);
            fprintf(w->f, ",%s", num);
        }
        if (w->verdict) {
            fputc(',', w->f);
            csv_field(w->f, w->verdict);
        }
        fputc('\n', w->f);
        return;
    }
    fputs("{\"type\":\"sample\",\"t\":", w->f);
    json_seconds(w->f, t);
    fputs(",\"interval_s\":", w->f);
    json_seconds(w->f, gt_engine_seconds(s));
    fprintf(w->f, ",\"merged\":%u,\"values\":{", s->nsamples);
    for (i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->f);
        json_string(w->f, w->cols[i].key);
        fputc(':', w->f);
        json_number(w->f, column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second),
                    w->o->digits);
    }
    fputc('}', w->f);
    json_gpu(w, vals);
    if (w->verdict) {
        fputs(",\"triage\":", w->f);
        json_string(w->f, w->verdict);
    }
    fputs("}\n", w->f);
}

/* ---- intervals without data ---- */

static double record_time(const struct writer *w, const struct gt_snapshot *s)
{
    return (double)(s->t_end_ns - w->t0) / 1e9;
}

/* The sources that had no data, as a JSON array's items. */
static void missing_names(const struct writer *w, const struct gt_snapshot *s)
{
    size_t i;
    int n = 0;

    for (i = 0; i < w->nsources && i < 32; i++) {
        if (!(s->missing >> i & 1))
            continue;
        if (n++)
            fputc(',', w->f);
        json_string(w->f, w->sources[i]->type->name);
    }
}

/* A source failed or was being retried in this interval: the record says
 * so, with its time and length, and has no values (empty fields, null),
 * never zeros. */
static void write_no_data(const struct writer *w, const struct gt_snapshot *s)
{
    char num[40];
    size_t i;

    if (w->o->format == GT_FORMAT_NONE)
        return;
    if (w->o->format == GT_FORMAT_TEXT) {
        fprintf(w->f, "t=%.3f s  interval %.1f ms  no data: %s (retrying)\n\n",
                record_time(w, s), gt_engine_seconds(s) * 1e3, w->error);
        return;
    }
    if (w->o->format == GT_FORMAT_CSV) {
        format_seconds(num, sizeof(num), record_time(w, s));
        fputs(num, w->f);
        format_seconds(num, sizeof(num), gt_engine_seconds(s));
        fprintf(w->f, ",%s", num);
        for (i = 0; i < w->ncols; i++)
            fputc(',', w->f);
        fputc('\n', w->f);
        return;
    }
    fputs("{\"type\":\"sample\",\"t\":", w->f);
    json_seconds(w->f, record_time(w, s));
    fputs(",\"interval_s\":", w->f);
    json_seconds(w->f, gt_engine_seconds(s));
    fprintf(w->f, ",\"merged\":%u,\"no_data\":[", s->nsamples);
    missing_names(w, s);
    fputs("],\"state\":\"retrying\",\"error\":", w->f);
    json_string(w->f, w->error);
    fputs(",\"values\":{", w->f);
    for (i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->f);
        json_string(w->f, w->cols[i].key);
        fputs(":null", w->f);
    }
    fputs("}}\n", w->f);
}

/* One stderr line per run of no-data intervals with the same error, so a
 * device that stays away for seconds is not a line per interval. */
static void report_no_data(struct writer *w, struct gt_sampler *smp, const struct gt_snapshot *s,
                           int *in_run)
{
    struct gt_sampler_stats st;
    const char *why;

    gt_sampler_get_stats(smp, &st);
    why = st.last_error[0] ? st.last_error : "no answer";
    if (*in_run && strcmp(why, w->error) == 0)
        return;
    snprintf(w->error, sizeof(w->error), "%s", why);
    fprintf(stderr, "gputop: no data for the interval ending at t=%.3f s: %s (retrying)\n",
            record_time(w, s), w->error);
    *in_run = 1;
}

/* 0: go on; 1: the reader went away (EPIPE), which ends the run quietly
 * with status 0 (gputop | head); -1 with d set: a write error. */
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

/* A --count run that ends with fewer good samples than asked has failed
 * (a lost device, a source that ended early); a stop by signal has not. */
static int short_run(const struct gt_batch_opts *o, uint64_t good, uint64_t written, int ended,
                     struct gt_diag *d)
{
    uint64_t lost = written - good;

    if (!o->count || good >= o->count)
        return 0;
    if (lost)
        gt_diag_set(d, "%llu good samples of %llu asked (%llu interval%s without data)",
                    (unsigned long long)good, (unsigned long long)o->count,
                    (unsigned long long)lost, lost == 1 ? "" : "s");
    else if (ended)
        gt_diag_set(d, "%llu good samples of %llu asked (the source ended)",
                    (unsigned long long)good, (unsigned long long)o->count);
    else
        return 0;
    return 1;
}

int gt_batch_run(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                 const struct gt_layout *l, struct gt_source *const *sources, size_t nsources,
                 const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                 struct gt_diag *d)
{
    struct writer w = { .f = out, .l = l, .e = e, .o = o,
                        .sources = sources, .nsources = nsources };
    struct gt_column *cols = NULL;
    struct gt_snapshot snap;
    double *vals = NULL;
    uint64_t written = 0, good = 0, start = gt_now_ns();
    long n = gt_batch_columns(l, e, o, &cols, d);
    int r, status = 0, ended = 0, in_run = 0;
    uint64_t warned = 0;

    if (n <= 0)
        return -1;
    w.cols = cols;
    w.ncols = (size_t)n;
    if (o->format == GT_FORMAT_TEXT)
        text_layout(&w);
    vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    if (l->nsteps)
        w.triage = gt_triage_new(l, e);
    if (!vals || (l->nsteps && !w.triage) || gt_snapshot_init(&snap, gt_sampler_nslots(s)) < 0) {
        gt_diag_set(d, "out of memory");
        gt_triage_free(w.triage);
        free(vals);
        free(cols);
        return -1;
    }
    if (o->format == GT_FORMAT_JSON)
        json_meta(out, l, e, sources, nsources, cols, w.ncols, o, gt_sampler_interval(s));
    write_header(&w);
    if ((r = check_write(out, d)) != 0)
        goto write_stopped;
    while (!*stop && (!o->count || written < o->count)) {
        if (o->duration_s > 0 && (double)(gt_now_ns() - start) / 1e9 >= o->duration_s)
            break;
        r = gt_sampler_take(s, &snap, 200000000ull);
        if (r < 0) {
            ended = 1;
            break;
        }
        if (r == 0)
            continue;
        if (!w.have_t0) {
            w.t0 = snap.t_start_ns;
            w.have_t0 = 1;
        }
        warned = report_warning(s, warned);
        if (snap.missing) {
            report_no_data(&w, s, &snap, &in_run);
            write_no_data(&w, &snap);
            if (o->tap.fn)
                o->tap.fn(o->tap.arg, &snap, vals);
        } else {
            in_run = 0;
            gt_engine_eval(e, &snap, vals);
            if (w.triage)
                w.verdict = gt_triage_update(w.triage, &snap, vals)->verdict;
            if (o->tap.fn)
                o->tap.fn(o->tap.arg, &snap, vals);
            write_record(&w, &snap, vals);
            good++;
        }
        written++;
        if ((r = check_write(out, d)) != 0)
            goto write_stopped;
    }
    r = *stop ? 0 : short_run(o, good, written, ended, d);
    goto done;
write_stopped:
    /* the reader gone (1) is not a short run: status 0 */
    r = r < 0 ? -1 : 0;
done:
    status = r < 0 ? -1 : r;
    gt_snapshot_free(&snap);
    gt_triage_free(w.triage);
    free(vals);
    free(cols);
    return status;
}
