/* gputop --triage: samples for a while and prints the triage verdict over
 * time, the evidence behind it (min / median / max) and the guide's next
 * steps, as plain text to paste into a bug report or as one JSON object. */
#include "gputop/cli.h"
#include "gputop/sampler.h"
#include "gputop/triage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VERDICTS 32
#define MAX_EVIDENCE 32
#define EV_UNIT  (-2)   /* the most loaded unit (GT_TRIAGE_UNIT) */
#define EV_QUEUE (-3)   /* the busiest queue (GT_TRIAGE_QUEUE) */

struct tally {
    const char *verdict;
    long n;
    int step;                    /* the step that last gave it */
};

struct series {
    int metric;                  /* or EV_UNIT / EV_QUEUE */
    double *v;
    size_t n, cap;
};

struct report {
    const struct gt_layout *l;
    struct tally t[MAX_VERDICTS];
    size_t nt;
    long judged, no_data;        /* intervals with a verdict, without data */
    struct series ev[MAX_EVIDENCE];
    size_t nev;
    double seconds;
};

static void count_verdict(struct report *r, const char *v, int step)
{
    size_t i;

    for (i = 0; i < r->nt; i++)
        if (strcmp(r->t[i].verdict, v) == 0)
            break;
    if (i == r->nt) {
        if (r->nt == MAX_VERDICTS)
            return;
        r->t[r->nt++] = (struct tally){ v, 0, step };
    }
    r->t[i].n++;
    if (step >= 0)
        r->t[i].step = step;
}

/* Every metric a step tests is followed, in the tree's order. */
static void pick_evidence(struct report *r)
{
    size_t i, k, j;

    for (i = 0; i < r->l->nsteps; i++)
        for (k = 0; k < r->l->steps[i].nconds; k++) {
            int m = r->l->steps[i].conds[k].metric;
            for (j = 0; j < r->nev && r->ev[j].metric != m; j++)
                ;
            if (j == r->nev && r->nev < MAX_EVIDENCE)
                r->ev[r->nev++].metric = m;
        }
}

static int add_value(struct series *s, double v)
{
    if (isnan(v))
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        double *p = realloc(s->v, cap * sizeof(*p));
        if (!p)
            return -1;
        s->v = p;
        s->cap = cap;
    }
    s->v[s->n++] = v;
    return 0;
}

static int record(struct report *r, const struct gt_triage_result *res, const double *vals)
{
    size_t i;

    if (strcmp(res->raw, GT_TRIAGE_NO_DATA) == 0) {
        r->no_data++;
        return 0;
    }
    r->judged++;
    count_verdict(r, res->raw, res->raw == res->verdict ? res->step : -1);
    for (i = 0; i < r->nev; i++) {
        int m = r->ev[i].metric;
        double v = m == EV_UNIT ? res->unit : m == EV_QUEUE ? res->queue : vals[m];
        /* A per-cluster metric is judged by its busiest cluster: report that. */
        size_t k;
        for (k = 0; k < res->nev; k++)
            if (m >= 0 && r->l->steps[res->ev[k].step].conds[res->ev[k].cond].metric == m)
                v = res->ev[k].value;
        if (add_value(&r->ev[i], v) < 0)
            return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *ev_title(const struct report *r, int m)
{
    return m == EV_UNIT ? "most loaded functional unit" : m == EV_QUEUE ? "busiest queue"
         : r->l->metrics[m].title;
}

static const char *ev_ref(const struct report *r, int m)
{
    return m == EV_UNIT ? "6.1" : m == EV_QUEUE ? "3.2" : r->l->metrics[m].ref;
}

static const char *ev_unit(const struct report *r, int m)
{
    return m < 0 ? "%" : r->l->metrics[m].unit;
}

/* Verdicts by share of the run, largest first (stable for ties). */
static void sort_tallies(struct report *r)
{
    size_t i, j;

    for (i = 1; i < r->nt; i++)
        for (j = i; j > 0 && r->t[j].n > r->t[j - 1].n; j--) {
            struct tally x = r->t[j];
            r->t[j] = r->t[j - 1];
            r->t[j - 1] = x;
        }
}

static void print_text(FILE *out, struct report *r, struct gt_source *const *src, size_t nsrc,
                       double interval_s)
{
    size_t i;

    fprintf(out, "gputop %s triage report\n", gt_version());
    for (i = 0; i < nsrc; i++)
        fprintf(out, "source: %s %s, %s%s%s\n", src[i]->type->name, src[i]->info.device,
                src[i]->info.gpu, src[i]->info.detail[0] ? ", " : "", src[i]->info.detail);
    fprintf(out, "layout: %s (%s)\n", r->l->name, r->l->title);
    fprintf(out, "run: %.1f s, %ld intervals of %.0f ms judged, %ld without data\n\n",
            r->seconds, r->judged, interval_s * 1e3, r->no_data);
    if (!r->judged) {
        fprintf(out, "verdict: %s\n", GT_TRIAGE_NO_DATA);
        return;
    }
    fprintf(out, "verdict: %s (%.0f %% of the run)\n", r->t[0].verdict,
            100.0 * (double)r->t[0].n / (double)r->judged);
    fprintf(out, "verdicts over time:\n");
    for (i = 0; i < r->nt; i++)
        fprintf(out, "  %5.1f %%  %s\n", 100.0 * (double)r->t[i].n / (double)r->judged,
                r->t[i].verdict);
    fprintf(out, "evidence (min / median / max over the run):\n");
    for (i = 0; i < r->nev; i++) {
        struct series *s = &r->ev[i];
        const char *ref = ev_ref(r, s->metric), *unit = ev_unit(r, s->metric);
        if (!s->n)
            continue;
        qsort(s->v, s->n, sizeof(*s->v), cmp_double);
        fprintf(out, "  %-6s %-44s %8.4g / %8.4g / %8.4g %s\n", ref ? ref : "-",
                ev_title(r, s->metric), s->v[0], s->v[s->n / 2], s->v[s->n - 1], unit);
    }
    fprintf(out, "next steps:\n");
    for (i = 0; i < r->nt; i++) {
        const struct gt_triage_step *st = r->t[i].step >= 0 ? &r->l->steps[r->t[i].step] : NULL;
        if (st)
            fprintf(out, "  %s (%s): %s\n", r->t[i].verdict, st->ref, st->next);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int out_is_first(const struct report *r, size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (r->ev[j].n)
            return 0;
    return 1;
}

static void print_json(FILE *out, struct report *r, struct gt_source *const *src, size_t nsrc,
                       double interval_s)
{
    size_t i;

    fputs("{\"type\":\"triage\",\"gputop\":", out);
    json_str(out, gt_version());
    fputs(",\"layout\":", out);
    json_str(out, r->l->name);
    fputs(",\"sources\":[", out);
    for (i = 0; i < nsrc; i++) {
        fputs(i ? ",{\"type\":" : "{\"type\":", out);
        json_str(out, src[i]->type->name);
        fputs(",\"device\":", out);
        json_str(out, src[i]->info.device);
        fputs(",\"gpu\":", out);
        json_str(out, src[i]->info.gpu);
        fputs(",\"detail\":", out);
        json_str(out, src[i]->info.detail);
        fputc('}', out);
    }
    fprintf(out, "],\"duration_s\":%.3f,\"interval_s\":%.6g,\"intervals\":%ld,\"no_data\":%ld,"
            "\"verdict\":", r->seconds, interval_s, r->judged, r->no_data);
    json_str(out, r->judged ? r->t[0].verdict : GT_TRIAGE_NO_DATA);
    fputs(",\"verdicts\":[", out);
    for (i = 0; i < r->nt; i++) {
        const struct gt_triage_step *st = r->t[i].step >= 0 ? &r->l->steps[r->t[i].step] : NULL;
        fputs(i ? ",{\"verdict\":" : "{\"verdict\":", out);
        json_str(out, r->t[i].verdict);
        fprintf(out, ",\"share_pct\":%.4g,\"intervals\":%ld,\"ref\":",
                100.0 * (double)r->t[i].n / (double)r->judged, r->t[i].n);
        if (st)
            json_str(out, st->ref);
        else
            fputs("null", out);
        fputs(",\"next\":", out);
        if (st)
            json_str(out, st->next);
        else
            fputs("null", out);
        fputc('}', out);
    }
    fputs("],\"evidence\":[", out);
    for (i = 0; i < r->nev; i++) {
        struct series *s = &r->ev[i];
        const char *ref = ev_ref(r, s->metric);
        if (!s->n)
            continue;
        qsort(s->v, s->n, sizeof(*s->v), cmp_double);
        fputs(out_is_first(r, i) ? "{\"metric\":" : ",{\"metric\":", out);
        json_str(out, ev_title(r, s->metric));
        fputs(",\"ref\":", out);
        if (ref)
            json_str(out, ref);
        else
            fputs("null", out);
        fputs(",\"unit\":", out);
        json_str(out, ev_unit(r, s->metric));
        fprintf(out, ",\"min\":%.6g,\"median\":%.6g,\"max\":%.6g}", s->v[0], s->v[s->n / 2],
                s->v[s->n - 1]);
    }
    fputs("]}\n", out);
}

static void free_report(struct report *r)
{
    size_t i;

    for (i = 0; i < r->nev; i++)
        free(r->ev[i].v);
}

int gt_triage_report(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                     const struct gt_layout *l, struct gt_source *const *src, size_t nsrc,
                     const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                     struct gt_diag *d)
{
    double limit = o->duration_s > 0 ? o->duration_s : GT_TRIAGE_DEFAULT_S;
    uint64_t start = gt_now_ns();
    struct gt_triage *t = gt_triage_new(l, e);
    double *vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    struct gt_snapshot snap;
    struct report r;
    int status = -1, ok;

    memset(&r, 0, sizeof(r));
    r.l = l;
    ok = t && vals && gt_snapshot_init(&snap, gt_sampler_nslots(s)) == 0;
    if (!ok) {
        gt_diag_set(d, "out of memory");
        gt_triage_free(t);
        free(vals);
        return -1;
    }
    pick_evidence(&r);
    /* Run time is the intervals' own length, so a replay at any speed and a
     * CSV import report the time they cover. */
    while (!*stop && r.seconds < limit && (double)(gt_now_ns() - start) / 1e9 < limit) {
        int got = gt_sampler_take(s, &snap, 200000000ull);
        if (got < 0)
            break;
        if (got == 0)
            continue;
        r.seconds += gt_engine_seconds(&snap);
        if (snap.missing) {
            r.no_data++;
            continue;
        }
        gt_engine_eval(e, &snap, vals);
        if (record(&r, gt_triage_update(t, &snap, vals), vals) < 0) {
            gt_diag_set(d, "out of memory");
            goto done;
        }
    }
    /* Joined before the report reads the sources' info (a replay's damage
     * message is published then). */
    gt_sampler_stop(s);
    sort_tallies(&r);
    if (o->format == GT_FORMAT_JSON)
        print_json(out, &r, src, nsrc, (double)gt_sampler_interval(s) / 1e9);
    else
        print_text(out, &r, src, nsrc, (double)gt_sampler_interval(s) / 1e9);
    status = r.judged ? 0 : 1;
    if (!r.judged)
        gt_diag_set(d, "no interval had the data the triage needs");
done:
    gt_snapshot_free(&snap);
    gt_triage_free(t);
    free(vals);
    free_report(&r);
    return status;
}
