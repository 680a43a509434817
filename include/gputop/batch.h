/* Batch output: metrics as text, CSV or JSON Lines, one record per sample,
 * for pipes, scripts and terminals without a dashboard. */
#ifndef GPUTOP_BATCH_H
#define GPUTOP_BATCH_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "gputop/diag.h"
#include "gputop/engine.h"
#include "gputop/export.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

/* NONE: no records, only what the tap does with the values (--serve alone). */
enum gt_batch_format { GT_FORMAT_TEXT, GT_FORMAT_CSV, GT_FORMAT_JSON, GT_FORMAT_NONE };

struct gt_batch_opts {
    enum gt_batch_format format;
    uint64_t count;            /* records to write; 0 = until stopped */
    double duration_s;         /* stop after this long; 0 = no limit */
    const char *section;       /* title, hotkey or NULL for all */
    const char *pattern;       /* glob on metric title or ref, NULL for all */
    int per_second;            /* counts as rates */
    int digits;                /* significant digits, 1..17; 0: the default
                                  (GT_DIGITS_DEFAULT); GT_DIGITS_FULL: exact */
    int width;                 /* text records fit this many columns; 0: the
                                  terminal's, else $COLUMNS, else 80 */
    int per_core;              /* a column per shader core, L2 slice, cluster too */
    struct gt_tap tap;         /* also gets every evaluated snapshot */
};

#define GT_DIGITS_DEFAULT 6
#define GT_DIGITS_FULL    (-1)

/* A selected output column: a metric, or one instance of it. */
struct gt_column {
    size_t metric;
    int instance;              /* -1 for the metric's own value */
    int per_core;              /* 1: a --per-core column, named by its instance */
    int pop;                   /* 1: the metric's percent of peak ("TITLE %
                                  of peak", unit %), after its value column */
    char key[96];              /* JSON key: ref, or title; unique */
    char title[160];           /* the metric's title, with the guide reference
                                  (or section) when another metric has the
                                  same title, and [instance]; unique */
};

/* Picks the columns the options select; returns the count (0 with d set
 * when nothing matches) or -1 out of memory. *cols is malloc'd. */
long gt_batch_columns(const struct gt_layout *l, const struct gt_engine *e,
                      const struct gt_batch_opts *o, struct gt_column **cols,
                      struct gt_diag *d);

/* Writes the header (CSV titles, the JSON meta record), starts the sampler
 * if it is not running, then takes snapshots and writes records until the count,
 * the duration, the end of the source or *stop. An interval in which a
 * source had no data is a record without values (and a line on stderr).
 * Returns 0; 1 with d set when a count was asked and fewer good samples
 * arrived (not after *stop); -1 with d set on a write error or when the
 * sampler cannot start (EPIPE ends quietly with 0). */
int gt_batch_run(FILE *out, struct gt_sampler *s, struct gt_engine *e,
                 const struct gt_layout *l, struct gt_source *const *sources, size_t nsources,
                 const struct gt_batch_opts *o, volatile sig_atomic_t *stop,
                 struct gt_diag *d);

/* Shortest text that reads back as the same double ("" for NaN). */
void gt_format_number(char *buf, size_t len, double v);
/* s as a JSON string, quoted and escaped. */
void gt_json_string(FILE *f, const char *s);

#endif
