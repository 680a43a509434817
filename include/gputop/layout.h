/* Layouts: declarative descriptions of what to show for a GPU family
 * (sections, groups, metrics with the guides' titles and expressions).
 * The format is documented in man/gputop-layout.5. */
#ifndef GPUTOP_LAYOUT_H
#define GPUTOP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/diag.h"

struct gt_expr;

enum gt_show {
    GT_SHOW_PERCENT,   /* 0..100, drawn as a bar */
    GT_SHOW_COUNT,     /* a count per interval; can be shown per second */
    GT_SHOW_VALUE,     /* a plain value (ratio, constant); never rate-converted */
    GT_SHOW_BUCKET,    /* a count that is one bucket of its group's histogram */
};

enum gt_agg { GT_AGG_SUM, GT_AGG_MEAN };

/* Which way a metric's value is good ('good' statement): the dashboard's
 * colours follow it; none (the default) draws no judgement. */
enum gt_good { GT_GOOD_NONE, GT_GOOD_HIGH, GT_GOOD_LOW };

struct gt_metric_def {
    char *title;        /* the guide's heading, verbatim */
    char *ref;          /* the guide's number ("3.1.1"), NULL if none */
    char *unit;         /* "cycles", "%", "bytes", ... ; "" if none */
    char *desc;         /* one line in our own words, NULL if none */
    enum gt_show show;
    char *expr_text;    /* verbatim */
    struct gt_expr *expr;
    int line, col;      /* where expr_text starts in the file */
    int section, group; /* indices into the layout's arrays */
    /* Optional theoretical peak in the metric's unit, and percent of peak
     * (default 100 * value / peak when only a peak is given); NULL if none. */
    char *peak_text, *pop_text;
    struct gt_expr *peak, *pop;
    int peak_line, peak_col, pop_line, pop_col;
    enum gt_good good;  /* 'good high|low|none' */
    int flagged;        /* 1: the triage tree tests this good-directed metric the
                           bad way, from flag_at on (its test's threshold) */
    double flag_at;
    int share_active;   /* 'share active': a share of active cycles, not of time */
};

struct gt_group_def {
    char *title;
    int histogram;      /* 1: its metrics are the buckets of one histogram */
    int own;            /* 1: gputop's own metrics ('origin gputop'), not the guide's */
    int section;
    size_t first, count; /* metrics */
    int line;
};

struct gt_section_def {
    char *title;
    int key;            /* hotkey character */
    char *tab;          /* short tab label ('tab'), NULL: none given */
    size_t first, count; /* groups */
    int line;
};

struct gt_match {
    char *source;       /* "mali", "amdgpu", "mips-cm", ... */
    uint64_t *ids;
    size_t nids;
};

struct gt_agg_rule {
    char *block;
    enum gt_agg agg;
};

/* A triage rule: which metrics compete for "busiest queue" and "most loaded
 * unit", and the verdict shown when a unit wins (issue: dashboard). */
struct gt_triage_rule {
    char *kind;         /* "queue" or "unit" */
    char *metric;       /* metric title */
    char *label;        /* short label shown on the triage line */
    char *verdict;      /* e.g. "texture-bound"; NULL for queues */
    char *next;         /* a unit's own next step (its guide section's advice), or NULL */
    int line;
};

/* The triage decision tree ('triage step' lines, man/gputop-layout.5):
 * steps are tried in order and the first whose conditions all hold gives
 * the verdict. A condition compares a metric (by ref or title), or the
 * pseudo-metrics 'unit' (the most loaded 'triage unit') and 'queue' (the
 * busiest 'triage queue'), with a threshold. */
enum gt_triage_op { GT_TRIAGE_LT, GT_TRIAGE_LE, GT_TRIAGE_GT, GT_TRIAGE_GE };
#define GT_TRIAGE_UNIT  (-2)  /* cond.metric: the most loaded unit */
#define GT_TRIAGE_QUEUE (-3)  /* cond.metric: the busiest queue */
#define GT_TRIAGE_QUEUE_SUM (-4)  /* cond.metric: the queues' utilizations added up */
#define GT_TRIAGE_BUSY (-5)  /* cond.metric 'busy' before it is bound to the header's
                                busy figure (a layout appended beside the GPU's) */

struct gt_triage_cond {
    char *name;         /* as written; after parsing, the metric's title */
    int metric;         /* index, or GT_TRIAGE_UNIT / GT_TRIAGE_QUEUE */
    char *alt_name;     /* 'METRIC else FALLBACK': the fallback as written, or NULL */
    int alt;            /* the fallback's index, -1 none: judged where the metric has no
                           data, and only where a lower bound of it can decide */
    enum gt_triage_op op;
    double threshold;
};

struct gt_triage_step {
    char *verdict;      /* "idle", ...; "unit-bound" names the winning unit's verdict */
    struct gt_triage_cond *conds; size_t nconds;  /* none: always holds */
    char *ref;          /* the guide section behind it */
    char *next;         /* the guide's next step, one line */
    int note;           /* 'triage note': a side finding, judged apart from the verdict */
    int if_available;   /* 'triage step-if-available': left out where a metric it
                           reads names a counter this GPU does not have */
    int side;           /* 'triage side-step': a system test beside the tree; without
                           its data the tree goes on to its last step */
    int line;
};

/* The figures the dashboard's header shows ('header' lines): how busy the
 * GPU was as a share of time, from its clock cycles or else relative to
 * its max clock, and its clock; the clock its governor set, the cap on it
 * and the part's top frequency (devfreq), and its temperature. */
enum gt_header_fig {
    GT_HEADER_BUSY, GT_HEADER_BUSY_MAX, GT_HEADER_CLOCK,
    GT_HEADER_FREQ, GT_HEADER_FREQ_CAP, GT_HEADER_FREQ_TOP, GT_HEADER_TEMP, GT_HEADER_NFIGS
};
/* A setting for a source: "option SOURCE KEY=VALUE" (e.g. a mips-cm
 * event qualifier), handed to that source before counting starts. */
struct gt_source_option {
    char *source, *key, *value;
    int line;
};

struct gt_layout {
    char *file;         /* where it came from, for messages */
    char *name, *title, *family;
    char **gpus; size_t ngpus;
    struct gt_match *matches; size_t nmatches;
    struct gt_agg_rule *aggs; size_t naggs;
    struct gt_section_def *sections; size_t nsections;
    struct gt_group_def *groups; size_t ngroups;
    struct gt_metric_def *metrics; size_t nmetrics;
    struct gt_triage_rule *triage; size_t ntriage;
    struct gt_triage_step *steps; size_t nsteps;
    int triage_hold;    /* intervals a new verdict must last ('triage hold'; 1: none) */
    double triage_band; /* 'triage band': how far past its threshold a holding condition must go to stop holding */
    int header[GT_HEADER_NFIGS];  /* metric index per figure, -1 none */
    struct gt_source_option *options; size_t noptions;
    char *text; size_t text_len;  /* the source, kept for caret lines */
};

struct gt_layout *gt_layout_parse(const char *file, const char *text, size_t len,
                                  struct gt_diag *d);
/* An embedded layout by name, or else a file by path. */
struct gt_layout *gt_layout_load(const char *name_or_path, struct gt_diag *d);
/* The same, where the name "raw" means the raw layout of catalogue c:
 * every counted event as a rate, a section per block, each titled with
 * its block and hardware index (layout_raw.c). */
struct gt_catalog;
struct gt_layout *gt_layout_load_for(const char *name_or_path, const struct gt_catalog *c,
                                     struct gt_diag *d);
/* A layout a source names (its description, a capture's header): a
 * built-in one, or "raw" or "values" (made from c) when c is given; never a file, whatever the
 * name holds, since a capture is not to be trusted. */
struct gt_layout *gt_layout_load_named(const char *name, const struct gt_catalog *c,
                                       struct gt_diag *d);
/* The raw layout's text (malloc'ed, *len set), or NULL out of memory. */
char *gt_layout_raw_text(const struct gt_catalog *c, size_t *len);
/* The same for "values", the layout of gputop's own CSV read back: a
 * metric per ratio counter of block "recorded", titled by its hardware
 * name ("Title [unit]"). */
char *gt_layout_values_text(const struct gt_catalog *c, size_t *len);
void gt_layout_free(struct gt_layout *l);
/* Frees what one metric definition owns (not the definition itself). */
void gt_layout_metric_free(struct gt_metric_def *m);
/* Frees what one triage rule owns (not the rule itself). */
void gt_layout_rule_free(struct gt_triage_rule *r);
/* Moves src's sections, groups, metrics and options to the end of dst,
 * with its header figures that dst lacks and its 'triage note' lines (a
 * note on 'busy' reads dst's busy figure; dropped when dst has none); src
 * keeps the rest and is still freed by the caller. Fails, changing
 * nothing, when a section key is taken. */
int  gt_layout_append(struct gt_layout *dst, struct gt_layout *src, struct gt_diag *d);
/* Binds the 'busy' conditions of l's triage steps to figs' header busy
 * figure (else its busy-max one); left unbound when it has neither. */
void gt_layout_bind_busy(struct gt_layout *l, const struct gt_layout *figs);

struct gt_catalog;
/* Binds the layout to a source's catalogue: "{hw:COUNTER}" in a metric
 * title (or a triage reference) becomes that counter's hw_name (its name
 * when it has none), and a metric naming a counter c lacks is left out,
 * with emptied groups and sections, and the header figures and triage
 * rules and steps that named it. 0, or -1 when memory runs out. */
int  gt_layout_bind_names(struct gt_layout *l, const struct gt_catalog *c);

enum gt_agg gt_layout_agg_for(const struct gt_layout *l, const char *block);
int  gt_layout_find_metric(const struct gt_layout *l, const char *title);
/* A section by its hotkey, its title or a unique prefix of its title, all
 * without regard to case; -1 when none or several match (d, if not NULL,
 * says so and lists the sections). */
long gt_layout_find_section(const struct gt_layout *l, const char *want, struct gt_diag *d);
/* "1 CPU performance, 2 GPU activity, ..." into buf; returns its length. */
size_t gt_layout_section_list(const struct gt_layout *l, char *buf, size_t len);
/* 1 when pattern (a glob; NULL: everything) matches the metric's title
 * (any case) or its guide reference. */
int gt_layout_metric_matches(const struct gt_metric_def *m, const char *pattern);
/* The source line number n (1-based) of the layout text, for carets. */
const char *gt_layout_line(const struct gt_layout *l, int n, size_t *len);

/* Layouts compiled into the binary (generated from layouts/). */
size_t      gt_embedded_layout_count(void);
const char *gt_embedded_layout_name(size_t i);
/* Built-in layout i's text (unpacked, NUL-terminated, malloc'd: the
 * caller frees it); NULL past the end or out of memory. */
char *gt_embedded_layout_copy(size_t i, size_t *len);
/* The embedded layout matching a source id and device id, or NULL. */
const char *gt_embedded_layout_for_device(const char *source, uint64_t id);

#endif
