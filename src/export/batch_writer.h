/* What the batch writers share (batch.c runs them; batch_columns.c,
 * batch_csv.c, batch_json.c and batch_text.c write): the run's state and
 * the helpers every format uses. Internal to src/export/. */
#ifndef GPUTOP_EXPORT_BATCH_WRITER_H
#define GPUTOP_EXPORT_BATCH_WRITER_H

#include "gputop/batch.h"

#include <stdint.h>
#include <stdio.h>

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
    long long wall_off_ns;   /* CLOCK_REALTIME - CLOCK_MONOTONIC when the run began */
    struct gt_source *const *sources;
    size_t nsources;
    char error[GT_DIAG_MSG + 64];   /* the sampler's last error, for no-data rows */
    int tree;                       /* the layout has a decision tree */
    const char *verdict;            /* its held verdict for the record being written */
    const char *verdict_raw;        /* that interval's own verdict (before hold and band) */
};

/* batch_columns.c: values and units as every format writes them */
void gt_batch_format_value(char *buf, size_t len, double v, int digits);
void gt_batch_format_seconds(char *buf, size_t len, double v);
int gt_batch_is_rate_kind(enum gt_show s);
double gt_batch_column_value(const struct gt_column *c, const struct gt_engine *e,
                             const struct gt_layout *l, const struct gt_snapshot *s,
                             const double *vals, int per_second);
const char *gt_batch_show_name(enum gt_show s);
void gt_batch_unit_of(char *buf, size_t len, const struct gt_metric_def *m, int per_second);
const struct gt_metric_def *gt_batch_unit_metric(const struct gt_layout *l,
                                                 const struct gt_column *c);
double gt_batch_record_time(const struct writer *w, const struct gt_snapshot *s);
/* the interval's end on the wall clock as seconds since 1970
 * ("1764403200.123456") into buf; 0 and "" when the snapshot's times are
 * not this machine's monotonic clock (a replay, a CSV import, sim with
 * step=), 1 otherwise. */
int gt_batch_wall_time(const struct writer *w, const struct gt_snapshot *s, char *buf,
                       size_t len);

/* batch_csv.c */
void gt_batch_csv_header(const struct writer *w);
void gt_batch_csv_record(const struct writer *w, const struct gt_snapshot *s, const double *vals);
void gt_batch_csv_no_data(const struct writer *w, const struct gt_snapshot *s);

/* batch_json.c */
void gt_batch_json_meta(FILE *f, const struct gt_layout *l, const struct gt_engine *e,
                        struct gt_source *const *src, size_t nsrc, const struct gt_column *cols,
                        size_t ncols, const struct gt_batch_opts *o, uint64_t interval_ns);
void gt_batch_json_record(const struct writer *w, const struct gt_snapshot *s,
                          const double *vals);
void gt_batch_json_no_data(const struct writer *w, const struct gt_snapshot *s);

/* batch_text.c */
void gt_batch_text_layout(struct writer *w);
void gt_batch_text_record(const struct writer *w, const struct gt_snapshot *s,
                          const double *vals);
void gt_batch_text_no_data(const struct writer *w, const struct gt_snapshot *s);

#endif
