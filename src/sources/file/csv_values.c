/* gputop's own batch CSV read back (csv:FILE on a file whose header starts
 * "time_s,"): the metric values it holds, one record a row, shown under a
 * layout made from its header ("values", layout_raw.c) rather than
 * recomputed from counters, which such a file does not have. */
#include "gputop/source.h"
#include "csv_fields.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUES_MAX_LINE (4u << 20)

/* A value is written as n / d deltas (d a power of ten), since deltas are
 * whole numbers: d 0 is no data (an empty field), which the engine shows
 * as such. */
struct values {
    FILE *f;
    char path[4096];
    char *line;
    size_t cap;
    size_t nmetrics;          /* metric columns: after the times, before triage */
    size_t first;             /* field index of the first metric column */
    unsigned long long rows, line_no;
    int ended;
};

int gt_csv_values_file(const char *path)
{
    char head[16] = "";
    FILE *f = fopen(path, "r");
    const char *p = head;

    if (!f)
        return 0;
    if (!fgets(head, sizeof(head), f))
        head[0] = '\0';
    fclose(f);
    if (memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    return strncmp(p, "time_s,", 7) == 0;
}

/* One line without its end into v->line; 0 at the end of the file. */
static int read_line(struct values *v, struct gt_diag *d)
{
    ssize_t n = getline(&v->line, &v->cap, v->f);

    if (n < 0) {
        if (ferror(v->f)) {
            gt_diag_set(d, "%s: %s", v->path, strerror(errno));
            return -1;
        }
        return 0;
    }
    v->line_no++;
    if ((size_t)n > VALUES_MAX_LINE) {
        gt_diag_set(d, "%s:%llu: line longer than %u bytes", v->path, v->line_no,
                    VALUES_MAX_LINE);
        return -1;
    }
    while (n && (v->line[n - 1] == '\n' || v->line[n - 1] == '\r'))
        v->line[--n] = '\0';
    return 1;
}

/* "Bytes read [bytes/s]" is the hardware name of counter k (the column as
 * written); the layout splits the unit back off. */
static int add_column(struct gt_catalog *c, size_t k, const char *name, size_t len)
{
    char n[48], dn[48], vn[48];
    int num, den, val;

    snprintf(n, sizeof(n), "GputopValueNum%zu", k);
    snprintf(dn, sizeof(dn), "GputopValueDen%zu", k);
    snprintf(vn, sizeof(vn), "GputopValue%zu", k);
    num = gt_catalog_add(c, n, "recorded", GT_COUNTER_DELTA, 1, 1.0);
    den = gt_catalog_add(c, dn, "recorded", GT_COUNTER_DELTA, 1, 1.0);
    val = num < 0 || den < 0 ? -1 : gt_catalog_add_ratio(c, vn, num, den, 1.0);
    if (val < 0)
        return -1;
    c->counters[val].hw_name = strndup(name, len);
    return c->counters[val].hw_name ? 0 : -1;
}

static int parse_header(struct values *v, struct gt_catalog *c, struct gt_diag *d)
{
    struct field f;
    size_t pos = 0, i = 0;
    const char *p;

    if (read_line(v, d) <= 0)
        return -1;
    p = v->line;
    if (memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    v->first = 2;
    while (gt_csv_next_field(p, strlen(p), &pos, &f)) {
        if (f.bad) {
            gt_diag_set(d, "%s:1:%zu: %s", v->path, f.col, f.bad);
            return -1;
        }
        if (i == 2 && f.len == 9 && memcmp(f.p, "time_unix", 9) == 0)
            v->first = 3;
        else if (i >= v->first && f.len > 6 && memcmp(f.p, "triage", 6) == 0)
            break;
        else if (i >= v->first && add_column(c, v->nmetrics++, f.p, f.len) < 0) {
            gt_diag_set(d, "csv: out of memory");
            return -1;
        }
        i++;
    }
    if (!v->nmetrics) {
        gt_diag_set(d, "%s:1: gputop's CSV header with no metric columns", v->path);
        return -1;
    }
    return 0;
}

/* "25.3908" -> n 25390800, d 1000000; empty -> d 0; a value too large for
 * six decimals keeps fewer. A negative value is no data: deltas cannot
 * hold it. */
static void put_value(const struct field *f, uint64_t *n, uint64_t *den)
{
    char buf[64], *end;
    double x, scale = 1e6;

    *n = *den = 0;
    if (!f->len || f->len >= sizeof(buf))
        return;
    memcpy(buf, f->p, f->len);
    buf[f->len] = '\0';
    x = strtod(buf, &end);
    if (*end || !isfinite(x) || x < 0)
        return;
    while (scale > 1 && x * scale >= 9e18)
        scale /= 10;
    if (x * scale >= 9e18)
        return;
    *n = (uint64_t)llround(x * scale);
    *den = (uint64_t)scale;
}

static double seconds(const struct field *f)
{
    char buf[64];

    if (!f->len || f->len >= sizeof(buf))
        return -1;
    memcpy(buf, f->p, f->len);
    buf[f->len] = '\0';
    return strtod(buf, NULL);
}

static void values_close(struct gt_source *s)
{
    struct values *v = s->priv;

    if (!v)
        return;
    if (v->f)
        fclose(v->f);
    free(v->line);
    free(v);
    s->priv = NULL;
}

static int values_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct values *v = calloc(1, sizeof(*v));
    size_t n = strcspn(args, ",");

    if (!v) {
        gt_diag_set(d, "csv: out of memory");
        return -1;
    }
    s->priv = v;
    if (args[n]) {
        gt_diag_set(d, "csv: %.*s is gputop's own CSV, read back as it is: no options",
                    (int)n, args);
        values_close(s);
        return -1;
    }
    snprintf(v->path, sizeof(v->path), "%.*s", (int)n, args);
    v->f = fopen(v->path, "r");
    if (!v->f) {
        gt_diag_set(d, "%s: %s", v->path, strerror(errno));
        values_close(s);
        return -1;
    }
    if (parse_header(v, &s->catalog, d) < 0) {
        values_close(s);
        return -1;
    }
    snprintf(s->info.device, sizeof(s->info.device), "%.127s", v->path);
    snprintf(s->info.gpu, sizeof(s->info.gpu), "recorded by gputop");
    snprintf(s->info.layout, sizeof(s->info.layout), "values");
    snprintf(s->info.detail, sizeof(s->info.detail), "gputop's CSV read back: %zu metrics",
             v->nmetrics);
    s->info.self_paced = 1;
    return 0;
}

static int values_start(struct gt_source *s, struct gt_diag *d)
{
    (void)s;
    (void)d;
    return 0;
}

/* A row's time_s and interval_s give the interval; each metric column its
 * value as n / d. */
static enum gt_sample_result values_sample(struct gt_source *s, struct gt_snapshot *out,
                                           struct gt_diag *d)
{
    struct values *v = s->priv;
    struct field f;
    size_t pos = 0, i = 0, k;
    double t = -1, iv = -1;
    int r;

    if (v->ended)
        return GT_SAMPLE_END;
    do
        r = read_line(v, d);
    while (r == 1 && !v->line[0]);
    if (r <= 0) {
        v->ended = 1;
        return r == 0 ? GT_SAMPLE_END : GT_SAMPLE_ERROR;
    }
    memset(out->deltas, 0, (size_t)out->nslots * sizeof(*out->deltas));
    while (gt_csv_next_field(v->line, strlen(v->line), &pos, &f)) {
        if (i == 0)
            t = seconds(&f);
        else if (i == 1)
            iv = seconds(&f);
        else if (i >= v->first && (k = i - v->first) < v->nmetrics)
            put_value(&f, &out->deltas[s->catalog.counters[3 * k].slot],
                      &out->deltas[s->catalog.counters[3 * k + 1].slot]);
        i++;
    }
    if (t < 0 || iv < 0 || iv > t + 1e-9) {
        v->ended = 1;
        gt_diag_set(d, "%s:%llu: not a row of gputop's CSV (time_s, interval_s first)",
                    v->path, v->line_no);
        return GT_SAMPLE_ERROR;
    }
    out->t_end_ns = (uint64_t)llround(t * 1e9);
    out->t_start_ns = out->t_end_ns - (uint64_t)llround(iv * 1e9);
    out->nsamples = 1;
    v->rows++;
    return GT_SAMPLE_OK;
}

const struct gt_source_type gt_source_csv_values = {
    .name = "csv",
    .usage = "csv:FILE",
    .help = "gputop's own CSV read back",
    .kind = GT_SOURCE_VIRTUAL,
    .recorded = 1,
    .open = values_open,
    .start = values_start,
    .sample = values_sample,
    .close = values_close,
};
