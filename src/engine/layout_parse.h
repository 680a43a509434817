/* The layout parser's shared state, for the files that parse one kind of
 * statement each (layout.c: sections, groups, metrics and the dispatch;
 * layout_header.c: the statements before the first section). */
#ifndef GPUTOP_ENGINE_LAYOUT_PARSE_H
#define GPUTOP_ENGINE_LAYOUT_PARSE_H

#include <stddef.h>
#include "gputop/layout.h"

/* One line being parsed. */
struct line {
    const char *s;       /* start of the line */
    size_t len;          /* without the newline */
    int no;              /* 1-based */
    size_t indent;       /* leading blanks */
    const char *kw;      /* keyword */
    size_t kwlen;
    const char *val;     /* value, trailing blanks removed */
    size_t vallen;
};

struct parse {
    struct gt_layout *l;
    struct gt_diag *d;
    int in_body;
    long section, group, metric;   /* current, -1 if none */
    /* continuation of a multi-line value */
    enum { CONT_NONE, CONT_EXPR, CONT_DESC, CONT_PEAK, CONT_POP } cont;
    size_t cont_indent;
    char *buf;                     /* expr text being collected */
    size_t buflen, bufcap;
    int expr_line, expr_col;
    int pending_blank;             /* blank lines inside a continuation */
    int seen_show, seen_unit, seen_ref, seen_desc, seen_good, seen_share;
    int metric_line;               /* where the current metric starts */
    struct {                       /* 'header' lines until resolved */
        char *metric;
        int line, col;
    } hdr[GT_HEADER_NFIGS];
};

/* Grows an array of n elements for one more (capacity implied by n). */
int gt_lp_grow(void *pptr, size_t n, size_t size);
char *gt_lp_dup(const char *s, size_t n);
/* Records an error at a line and column; always returns -1. */
int gt_lp_fail(struct parse *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int gt_lp_col(const struct line *ln, const char *at);
int gt_lp_oom(struct parse *p, const struct line *ln);
/* A statement's value into *dst, once. */
int gt_lp_set_string(struct parse *p, const struct line *ln, char **dst);

/* Statements before the first section (layout_header.c). */
int gt_lp_name(struct parse *p, const struct line *ln);
int gt_lp_gpu(struct parse *p, const struct line *ln);
int gt_lp_match(struct parse *p, const struct line *ln);
int gt_lp_aggregate(struct parse *p, const struct line *ln);
int gt_lp_option(struct parse *p, const struct line *ln);
int gt_lp_version(struct parse *p, const struct line *ln);
int gt_lp_triage(struct parse *p, const struct line *ln);
int gt_lp_header(struct parse *p, const struct line *ln);
int gt_lp_origin(struct parse *p, const struct line *ln);
/* Statements on how things look (layout_look.c): a section's tab label,
 * a metric's good direction and what its share is of. */
int gt_lp_tab(struct parse *p, const struct line *ln);
int gt_lp_good(struct parse *p, const struct line *ln);
int gt_lp_share(struct parse *p, const struct line *ln);
/* The header figures' names, and how each one's metric must be shown. */
extern const char *const gt_lp_header_roles[GT_HEADER_NFIGS];
extern const enum gt_show gt_lp_header_show[GT_HEADER_NFIGS];

#endif
