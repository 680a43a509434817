/* gputop --triage: samples (a recording to its end, a live source for a
 * while, with progress on a terminal) and prints the held verdict over
 * time as a timeline, each interval's own verdicts, the side findings,
 * the evidence behind them (min / median / max) and the guide's next
 * steps, as plain text for a bug report or one JSON object
 * (triage_report_print.c). */
#include "triage_report.h"
#include "gputop/evaluate.h"
#include "gputop/sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct gt_rep_tally *tally_of(struct gt_rep_tally *t, size_t *n, size_t max,
                                     const char *v)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp(t[i].verdict, v) == 0)
            return &t[i];
    if (*n == max)
        return NULL;
    memset(&t[*n], 0, sizeof(t[*n]));
    t[*n].verdict = v;
    t[*n].step = -1;
    return &t[(*n)++];
}

static void follow_metric(struct gt_report *r, int m, int fallback)
{
    size_t j;

    for (j = 0; j < r->nev && r->ev[j].metric != m; j++)
        ;
    if (j < r->nev) {
        r->ev[j].fallback &= fallback;
        return;
    }
    if (r->nev < GT_REP_MAX_EVIDENCE) {
        r->ev[r->nev].metric = m;
        r->ev[r->nev++].fallback = fallback;
    }
}

/* Every metric a step tests is followed, in the tree's order, and its
 * fallback after it ('METRIC else FALLBACK'). */
static void pick_evidence(struct gt_report *r)
{
    size_t i, k;

    for (i = 0; i < r->l->nsteps; i++)
        for (k = 0; k < r->l->steps[i].nconds; k++) {
            follow_metric(r, r->l->steps[i].conds[k].metric, 0);
            if (r->l->steps[i].conds[k].alt >= 0)
                follow_metric(r, r->l->steps[i].conds[k].alt, 1);
        }
}

static int add_value(struct gt_rep_series *s, double v, const char *label)
{
    size_t i;

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
    for (i = 0; label && i < s->nlabels && strcmp(s->label[i], label) != 0; i++)
        ;
    if (label && i == s->nlabels && i < GT_REP_MAX_LABELS) {
        s->label[i] = label;
        s->label_n[s->nlabels++] = 0;
    }
    if (label && i < s->nlabels)
        s->label_n[i]++;
    return 0;
}

/* The value a step's condition was judged on (the busiest CPU, the most
 * loaded unit, a fallback where its metric had no data), from the
 * interval's evidence; NULL where no condition judged on m. */
static const struct gt_triage_evidence *evidence_for(const struct gt_triage_result *res, int m)
{
    size_t k;

    for (k = 0; k < res->nev; k++)
        if (res->ev[k].metric == m)
            return &res->ev[k];
    return NULL;
}

static void timeline(struct gt_report *r, const struct gt_triage_result *res, double from,
                     double to)
{
    struct gt_rep_span *last = r->nspans ? &r->span[r->nspans - 1] : NULL;

    if (last && strcmp(last->verdict, res->verdict) == 0 &&
        last->provisional == res->provisional) {
        last->to = to;
        return;
    }
    if (r->nspans == GT_REP_MAX_SPANS) {
        r->more_changes++;
        r->span[r->nspans - 1].to = to;
        return;
    }
    r->span[r->nspans++] = (struct gt_rep_span){ res->verdict, from, to, res->provisional };
}

static int record(struct gt_report *r, const struct gt_triage_result *res, double from,
                  double to)
{
    struct gt_rep_tally *held = tally_of(r->held, &r->nheld, GT_REP_MAX_VERDICTS, res->verdict);
    struct gt_rep_tally *raw = tally_of(r->raw, &r->nraw, GT_REP_MAX_VERDICTS, res->raw);
    size_t i;

    r->judged++;
    if (strcmp(res->raw, GT_TRIAGE_NO_DATA) != 0)
        r->with_verdict++;
    else if (res->raw_missing)
        r->missing = res->raw_missing;
    timeline(r, res, from, to);
    if (held) {
        held->n++;
        held->seconds += to - from;
        if (res->step >= 0) {
            held->step = res->step;
            held->ref = res->ref;
            held->next = res->next;
        }
        held->provisional |= res->provisional;
        if (res->missing)
            held->missing = res->missing;
    }
    if (raw)
        raw->n++;
    for (i = 0; i < res->nnotes; i++) {
        struct gt_rep_tally *n = tally_of(r->notes, &r->nnotes, GT_TRIAGE_MAX_NOTES,
                                          r->l->steps[res->notes[i]].verdict);
        const struct gt_triage_evidence *ev;
        size_t k;
        if (!n)
            continue;
        n->n++;
        n->step = res->notes[i];
        for (k = 0; k < res->nev && (int)res->ev[k].step != res->notes[i]; k++)
            ;
        ev = k < res->nev ? &res->ev[k] : NULL;
        if (ev && r->l->steps[ev->step].conds[ev->cond].metric < 0)
            n->missing = ev->what; /* the note's subject: "fragment queue" */
    }
    for (i = 0; i < r->nev; i++) {
        int m = r->ev[i].metric;
        const struct gt_triage_evidence *ev = evidence_for(res, m);
        double v = ev ? ev->value : NAN;
        const char *label = m == GT_TRIAGE_UNIT || m == GT_TRIAGE_QUEUE ? (ev ? ev->what : NULL)
                          : NULL;
        r->ev[i].of_peak |= ev && ev->of_peak;
        if (add_value(&r->ev[i], v, label) < 0)
            return -1;
    }
    return 0;
}

/* Recordings (replay, csv) are judged to their end unless -d says
 * otherwise; live sources for -d or GT_TRIAGE_DEFAULT_S. */
static int recorded(struct gt_source *const *src, size_t nsrc)
{
    size_t i;

    for (i = 0; i < nsrc; i++)
        if (src[i]->info.self_paced)
            return 1;
    return 0;
}

static void progress(double done, double limit, int *shown)
{
    if (!isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\rgputop: judging %.0f of %.0f s ...", done, limit);
    *shown = 1;
}

static int sample_run(struct gt_report *r, struct gt_sampler *s, struct gt_evaluator *ev,
                      double *vals, struct gt_snapshot *snap,
                      double limit, int live, volatile sig_atomic_t *stop)
{
    uint64_t start = gt_now_ns();
    double last_shown = -1;
    int shown = 0, rc = 0;

    while (!*stop && r->seconds < limit &&
           (!live || (double)(gt_now_ns() - start) / 1e9 < limit)) {
        int got = gt_sampler_take(s, snap, 200000000ull);
        double from = r->seconds;
        if (got < 0)
            break;
        if (got == 0)
            continue;
        r->seconds += gt_engine_seconds(snap);
        if (live && r->seconds - last_shown >= 1) {
            progress(r->seconds, limit, &shown);
            last_shown = r->seconds;
        }
        if (snap->missing) {
            r->no_data++;
            continue;
        }
        if (record(r, gt_evaluate(ev, snap, vals)->triage, from, r->seconds) < 0) {
            rc = -1;
            break;
        }
    }
    if (shown)
        fputs("\r\033[K", stderr);
    return rc;
}

static void free_report(struct gt_report *r)
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
    int live = !recorded(src, nsrc);
    double limit = o->duration_s > 0 ? o->duration_s : live ? GT_TRIAGE_DEFAULT_S : INFINITY;
    struct gt_evaluator *ev = gt_evaluator_new(l, e);
    double *vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    struct gt_snapshot snap;
    struct gt_report *r = calloc(1, sizeof(*r));
    int status = -1, ok;

    ok = r && ev && vals && gt_snapshot_init(&snap, gt_sampler_nslots(s)) == 0;
    if (!ok) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        gt_evaluator_free(ev);
        free(vals);
        free(r);
        return -1;
    }
    r->l = l;
    r->e = e;
    r->ascii = !gt_report_utf8();
    r->interval_s = (double)gt_sampler_interval(s) / 1e9;
    pick_evidence(r);
    if (sample_run(r, s, ev, vals, &snap, limit, live, stop) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* Joined before the report reads the sources' info (a replay's damage
     * message is published then). */
    gt_sampler_stop(s);
    gt_report_print(out, r, src, nsrc, o->format == GT_FORMAT_JSON);
    status = gt_report_judged(r) ? 0 : 1;
    if (status)
        gt_diag_set(d, "no interval had the data the triage needs%s%s",
                    r->missing ? ": no data for " : "", r->missing ? r->missing : "");
done:
    gt_snapshot_free(&snap);
    gt_evaluator_free(ev);
    free(vals);
    free_report(r);
    free(r);
    return status;
}
