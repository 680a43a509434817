/* The run as a Trace Event Format timeline (JSON Array Format) for
 * ui.perfetto.dev and chrome://tracing: one process per layout section,
 * one counter track per metric, instant events when the triage verdict or
 * the data's state changes. Every event after the first begins with its
 * comma, and each interval is written and flushed whole, so a run killed
 * midway leaves a file that the format's readers take as it is (the
 * closing bracket is optional there) and that any JSON parser reads once
 * a ']' is appended. */
#include "gputop/export.h"
#include "gputop/triage.h"
#include "gputop/batch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_trace {
    FILE *f;
    char *file;
    const struct gt_layout *l;
    const struct gt_engine *e;
    char **track;            /* per metric: its counter name, NULL if unavailable */
    uint64_t t0;
    int have_t0, missing, failed;
    char verdict[128];
};

static int track_taken(const struct gt_trace *t, size_t upto, int section, const char *name)
{
    size_t i;

    for (i = 0; i < upto; i++)
        if (t->track[i] && t->l->metrics[i].section == section && strcmp(t->track[i], name) == 0)
            return 1;
    return 0;
}

/* "Fragment queue active [%]": the title with its unit; a title repeated
 * within a section gets #2, #3 (tracks are named per process). */
static int name_tracks(struct gt_trace *t)
{
    char name[256];
    size_t i;
    int k;

    for (i = 0; i < t->l->nmetrics; i++) {
        const struct gt_metric_def *m = &t->l->metrics[i];
        if (gt_engine_unavailable(t->e, i))
            continue;
        snprintf(name, sizeof(name), m->unit[0] ? "%s [%s]" : "%s", m->title, m->unit);
        for (k = 2; track_taken(t, i, m->section, name) && k < 1000; k++)
            snprintf(name, sizeof(name), m->unit[0] ? "%s #%d [%s]" : "%s #%d", m->title, k,
                     m->unit);
        t->track[i] = strdup(name);
        if (!t->track[i])
            return -1;
    }
    return 0;
}

static void meta(FILE *f, const char *what, int pid, const char *key, const char *sval, int ival)
{
    fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"%s\":", what,
            pid, key);
    if (sval)
        gt_json_string(f, sval);
    else
        fprintf(f, "%d", ival);
    fputs("}}", f);
}

/* pid 0 is gputop itself (verdicts, states); section k is pid k + 1. */
static void write_header(struct gt_trace *t)
{
    size_t i;

    fputs("[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
          "\"args\":{\"name\":", t->f);
    gt_json_string(t->f, "gputop");
    fputs("}}", t->f);
    meta(t->f, "process_sort_index", 0, "sort_index", NULL, 0);
    for (i = 0; i < t->l->nsections; i++) {
        meta(t->f, "process_name", (int)i + 1, "name", t->l->sections[i].title, 0);
        meta(t->f, "process_sort_index", (int)i + 1, "sort_index", NULL, (int)i + 1);
    }
    fputs("\n", t->f);
}

static void trace_free(struct gt_trace *t)
{
    size_t i;

    if (t->track)
        for (i = 0; i < t->l->nmetrics; i++)
            free(t->track[i]);
    free(t->track);
    free(t->file);
    free(t);
}

struct gt_trace *gt_trace_open(const char *file, const struct gt_layout *l,
                               const struct gt_engine *e, struct gt_diag *d)
{
    struct gt_trace *t = calloc(1, sizeof(*t));

    if (!t || !(t->file = strdup(file)) || !(t->track = calloc(l->nmetrics + 1, sizeof(char *)))) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        if (t)
            trace_free(t);
        return NULL;
    }
    t->l = l;
    t->e = e;
    if (name_tracks(t) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        trace_free(t);
        return NULL;
    }
    t->f = fopen(file, "w");
    if (!t->f) {
        gt_diag_set(d, "--trace %s: %s", file, strerror(errno));
        trace_free(t);
        return NULL;
    }
    write_header(t);
    fflush(t->f);
    return t;
}

static void ts(FILE *f, uint64_t ns)
{
    fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static void instant(struct gt_trace *t, uint64_t at, const char *name, const char *key,
                    const char *val)
{
    fputs(",\n{\"name\":", t->f);
    gt_json_string(t->f, name);
    fputs(",\"ph\":\"i\",\"s\":\"g\",\"ts\":", t->f);
    ts(t->f, at);
    fprintf(t->f, ",\"pid\":0,\"tid\":0,\"args\":{\"%s\":", key);
    gt_json_string(t->f, val);
    fputs("}}", t->f);
}

static void counters(struct gt_trace *t, uint64_t at, const double *vals)
{
    char num[40];
    size_t i;

    for (i = 0; i < t->l->nmetrics; i++) {
        if (!t->track[i] || isnan(vals[i]) || isinf(vals[i]))
            continue;
        gt_format_number(num, sizeof(num), vals[i]);
        fputs(",\n{\"name\":", t->f);
        gt_json_string(t->f, t->track[i]);
        fputs(",\"ph\":\"C\",\"ts\":", t->f);
        ts(t->f, at);
        fprintf(t->f, ",\"pid\":%d,\"tid\":0,\"args\":{\"value\":%s}}",
                t->l->metrics[i].section + 1, num);
    }
}

/* The view's verdict on the interval, the one its own line shows. */
static void verdict(struct gt_trace *t, uint64_t at, const char *v)
{
    char name[96];

    v = v ? v : "none";
    if (strcmp(v, t->verdict) == 0)
        return;
    snprintf(t->verdict, sizeof(t->verdict), "%s", v);
    snprintf(name, sizeof(name), "verdict: %s", v);
    instant(t, at, name, "verdict", v);
}

void gt_trace_write(void *trace, const struct gt_interval *iv)
{
    struct gt_trace *t = trace;
    const struct gt_snapshot *s = iv->snap;
    uint64_t at;

    if (!t->have_t0) {
        t->t0 = s->t_start_ns;
        t->have_t0 = 1;
    }
    /* A counter's value holds from the start of the interval it measured. */
    at = s->t_start_ns > t->t0 ? s->t_start_ns - t->t0 : 0;
    if (!!s->missing != t->missing) {
        t->missing = !!s->missing;
        instant(t, at, t->missing ? "state: no data" : "state: live", "state",
                t->missing ? "retrying" : "live");
    }
    if (!s->missing) {
        counters(t, at, iv->vals);
        verdict(t, at, iv->verdict);
    }
    if (fflush(t->f) != 0)
        t->failed = errno ? errno : EIO;
}

int gt_trace_close(struct gt_trace *t, struct gt_diag *d)
{
    int err;

    if (!t)
        return 0;
    fputs("\n]\n", t->f);
    err = fflush(t->f) != 0 || ferror(t->f) ? (errno ? errno : EIO) : t->failed;
    if (fclose(t->f) != 0 && !err)
        err = errno ? errno : EIO;
    if (err)
        gt_diag_set(d, "--trace %s: cannot write: %s", t->file, strerror(err));
    trace_free(t);
    return err ? -1 : 0;
}
