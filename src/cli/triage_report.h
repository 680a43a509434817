/* gputop --triage's run summary, shared by the sampling loop
 * (triage_report.c) and the text / JSON printer (triage_report_print.c). */
#ifndef GPUTOP_TRIAGE_REPORT_H
#define GPUTOP_TRIAGE_REPORT_H

#include "gputop/cli.h"
#include "gputop/triage.h"

#include <stdio.h>

#define GT_REP_MAX_VERDICTS 32
#define GT_REP_MAX_EVIDENCE 32
#define GT_REP_MAX_SPANS    64
#define GT_REP_MAX_LABELS   16

struct gt_rep_tally {
    const char *verdict;
    long n;                      /* intervals */
    double seconds;              /* time held (held verdicts) */
    int step;                    /* the step that last gave it, -1 none */
    const char *ref, *next;      /* of that step (a unit verdict: its units') */
    int provisional;             /* held at some point without every step's data */
    const char *missing;         /* what was missing (notes: what they name) */
};

/* One stretch of the timeline: the held verdict from..to seconds. */
struct gt_rep_span {
    const char *verdict;
    double from, to;
    int provisional;
};

struct gt_rep_series {
    int metric;                  /* or GT_TRIAGE_UNIT / QUEUE / QUEUE_SUM */
    int of_peak;                 /* judged by its percent of peak */
    int fallback;                /* only a fallback ('else'): not listed when unused */
    double *v;
    size_t n, cap;
    const char *label[GT_REP_MAX_LABELS]; /* units / queues that were the most loaded */
    long label_n[GT_REP_MAX_LABELS];
    size_t nlabels;
};

struct gt_report {
    const struct gt_layout *l;
    const struct gt_engine *e;   /* why a metric without data has none */
    int ascii;                   /* text in ASCII: "sec. 3.2.5", not U+00A7 */
    double interval_s, seconds;
    long judged, no_data, with_verdict;
    const char *missing;         /* what "not enough data" lacked */
    struct gt_rep_tally held[GT_REP_MAX_VERDICTS], raw[GT_REP_MAX_VERDICTS];
    size_t nheld, nraw;
    struct gt_rep_tally notes[GT_TRIAGE_MAX_NOTES];
    size_t nnotes;
    struct gt_rep_span span[GT_REP_MAX_SPANS];
    size_t nspans;
    long more_changes;           /* timeline changes past GT_REP_MAX_SPANS */
    struct gt_rep_series ev[GT_REP_MAX_EVIDENCE];
    size_t nev;
};

/* 1 when the locale's character set is UTF-8 (else the text report is
 * written in ASCII). */
int gt_report_utf8(void);
static inline long gt_report_judged(const struct gt_report *r) { return r->with_verdict; }
void gt_report_print(FILE *out, struct gt_report *r, struct gt_source *const *src, size_t nsrc,
                     int json);

#endif
