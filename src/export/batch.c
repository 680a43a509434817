/* Batch output: takes snapshots from the sampler and writes each as a
 * text, CSV or JSON record (batch_text.c, batch_csv.c, batch_json.c), an
 * interval without data as a record without values. */
#include "batch_writer.h"
#include "gputop/evaluate.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

/* The wall clock minus the monotonic one, read back to back. */
static long long wall_offset(void)
{
    struct timespec r;
    unsigned long long m = gt_now_ns();

    clock_gettime(CLOCK_REALTIME, &r);
    return (long long)r.tv_sec * 1000000000ll + r.tv_nsec - (long long)m;
}

static void write_record(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    switch (w->o->format) {
    case GT_FORMAT_TEXT: gt_batch_text_record(w, s, vals); break;
    case GT_FORMAT_CSV: gt_batch_csv_record(w, s, vals); break;
    case GT_FORMAT_JSON: gt_batch_json_record(w, s, vals); break;
    case GT_FORMAT_NONE: break;
    }
}

/* A source failed or was being retried in this interval: the record says
 * so, with its time and length, and has no values (empty fields, null),
 * never zeros. */
static void write_no_data(const struct writer *w, const struct gt_snapshot *s)
{
    switch (w->o->format) {
    case GT_FORMAT_TEXT: gt_batch_text_no_data(w, s); break;
    case GT_FORMAT_CSV: gt_batch_csv_no_data(w, s); break;
    case GT_FORMAT_JSON: gt_batch_json_no_data(w, s); break;
    case GT_FORMAT_NONE: break;
    }
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
            gt_batch_record_time(w, s), w->error);
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
 * stderr once, apart from the records on stdout; so does a recording
 * that stopped (a full disk), when it stops, not at exit. */
static void report_notes(struct gt_sampler *s, uint64_t *warned, uint64_t *capture)
{
    struct gt_sampler_stats st;

    gt_sampler_get_stats(s, &st);
    if (st.warnings != *warned && st.last_warning[0])
        fprintf(stderr, "gputop: warning: %s\n", st.last_warning);
    if (st.capture_errors != *capture)
        fprintf(stderr, "gputop: %s; recording stopped, sampling goes on\n",
                st.last_capture_error);
    *warned = st.warnings;
    *capture = st.capture_errors;
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

/* -d: whether the run's time is up. */
static int past_duration(const struct gt_batch_opts *o, uint64_t start)
{
    return o->duration_s > 0 && (double)(gt_now_ns() - start) / 1e9 >= o->duration_s;
}

/* How long a take waits: with -d, to an interval past the end at most.
 * A kernel-timed sampler holds samples back for its next drain; the run
 * ends near its time, and gt_sampler_finish hands over the rest. */
static uint64_t take_wait(struct gt_sampler *s, const struct gt_batch_opts *o, uint64_t start)
{
    uint64_t wait = 200000000ull, end, now = gt_now_ns();

    if (o->duration_s <= 0)
        return wait;
    end = start + (uint64_t)(o->duration_s * 1e9) + gt_sampler_interval(s);
    if (end <= now)
        return 1;
    return end - now < wait ? end - now : wait;
}

int gt_batch_run(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                 const struct gt_layout *l, struct gt_source *const *sources, size_t nsources,
                 const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                 struct gt_diag *d)
{
    struct writer w = { .f = out, .l = l, .e = e, .o = o,
                        .sources = sources, .nsources = nsources,
                        .wall_off_ns = wall_offset() };
    struct gt_column *cols = NULL;
    struct gt_snapshot snap;
    struct gt_evaluator *ev = gt_evaluator_new(l, e);
    const struct gt_interval *iv;
    double *vals = NULL;
    uint64_t written = 0, good = 0, start = gt_now_ns();
    long n = gt_batch_columns(l, e, o, &cols, d);
    int r, status = 0, ended = 0, in_run = 0, finishing = 0;
    uint64_t warned = 0, capture = 0;

    if (n <= 0) {
        gt_evaluator_free(ev);
        return -1;
    }
    w.cols = cols;
    w.ncols = (size_t)n;
    if (o->format == GT_FORMAT_TEXT)
        gt_batch_text_layout(&w);
    vals = calloc(gt_engine_nmetrics(e) + 1, sizeof(double));
    w.tree = ev && gt_evaluator_tree(ev);
    if (!vals || !ev || gt_snapshot_init(&snap, gt_sampler_nslots(s)) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        gt_evaluator_free(ev);
        free(vals);
        free(cols);
        return -1;
    }
    if (o->format == GT_FORMAT_JSON)
        gt_batch_json_meta(out, l, e, sources, nsources, cols, w.ncols, o, gt_sampler_interval(s));
    if (o->format == GT_FORMAT_CSV)
        gt_batch_csv_header(&w);
    if ((r = check_write(out, d)) != 0)
        goto write_stopped;
    /* Sampling starts after the header (a no-op if it runs already), so
     * the header reads the sources' info alone. */
    if (gt_sampler_start(s, d) < 0) {
        char why[sizeof(d->msg)];
        snprintf(why, sizeof(why), "%s", d->msg);
        gt_diag_set(d, "cannot start sampling: %s", why);
        r = -1;
        goto write_stopped;
    }
    while (!o->count || written < o->count) {
        /* At a stop or the end of -d, what a kernel counted is still in
         * its ring: rows too, until the sampler has handed it all over. */
        if (!finishing && (*stop || past_duration(o, start))) {
            finishing = gt_sampler_finish(s);
            if (!finishing)
                break;
        }
        r = gt_sampler_take(s, &snap, finishing ? 200000000ull : take_wait(s, o, start));
        if (r < 0) {
            ended = !finishing;
            break;
        }
        if (r == 0)
            continue;
        if (!w.have_t0) {
            w.t0 = snap.t_start_ns;
            w.have_t0 = 1;
        }
        report_notes(s, &warned, &capture);
        /* Judged once, for the records and the exports beside them. */
        iv = gt_evaluate(ev, &snap, vals);
        if (o->tap.fn)
            o->tap.fn(o->tap.arg, iv);
        if (snap.missing) {
            report_no_data(&w, s, &snap, &in_run);
            write_no_data(&w, &snap);
        } else {
            in_run = 0;
            if (iv->triage) {
                w.verdict = iv->triage->verdict;
                w.verdict_raw = iv->triage->raw;
            }
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
    gt_evaluator_free(ev);
    free(vals);
    free(cols);
    return status;
}
