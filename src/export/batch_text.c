/* Text records for people: each sample as "Section / Group" lines and
 * "name value unit" lines fitted to the terminal's width. */
#include "batch_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The columns text records may use: the terminal's width when out is a
 * terminal, else $COLUMNS as a shell exports it, else 80. */
static int output_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    struct winsize ws;
    int fd = fileno(out);
    char *end;
    long n;

    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    if (env && *env) {
        n = strtol(env, &end, 10);
        if (!*end && n > 0 && n < 10000)
            return (int)n;
    }
    return 80;
}

/* Columns of UTF-8 text, one per character: the layouts' titles hold no
 * double-width or combining characters. */
static int text_columns(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s in at most cols columns, cut with "..." when longer (ASCII, since
 * text records also go to logs and TERM=dumb shells in the C locale), and
 * padded with spaces to cols when pad is set. */
static void print_fitted(FILE *f, const char *s, int cols, int pad)
{
    int n = text_columns(s), keep, i;

    if (cols < 0)
        cols = 0;
    if (n <= cols) {
        fprintf(f, "%s%*s", s, pad ? cols - n : 0, "");
        return;
    }
    keep = cols > 3 ? cols - 3 : cols;
    for (i = 0; *s; s++) {
        i += ((unsigned char)*s & 0xC0) != 0x80;
        if (i > keep)
            break;
        fputc(*s, f);
    }
    if (cols > 3)
        fputs("...", f);
}

void gt_batch_text_layout(struct writer *w)
{
    struct text_cols *tc = &w->tc;
    char unit[80];
    int longest = 0, n;
    size_t i;

    for (i = 0; i < w->ncols; i++) {
        gt_batch_unit_of(unit, sizeof(unit), gt_batch_unit_metric(w->l, &w->cols[i]), w->o->per_second);
        n = text_columns(unit);
        longest = n > longest ? n : longest;
    }
    tc->width = w->o->width > 0 ? w->o->width : output_width(w->f);
    tc->group = tc->width >= 60 ? 2 : 0;
    tc->indent = tc->group + 2;
    tc->value = tc->width >= 60 ? 12 : 9;
    tc->unit = longest < tc->width / 4 ? longest : tc->width / 4;
    tc->name = tc->width - tc->indent - 1 - tc->value - 1 - tc->unit;
}

/* "name value unit": a value or unit longer than its room takes columns
 * from the name, then from the value's padding, so the line still fits
 * and the number stays whole. */
static void text_metric(const struct writer *w, const char *name, const char *value,
                        const char *unit)
{
    const struct text_cols *tc = &w->tc;
    int over_v = (int)strlen(value) - tc->value, over_u = text_columns(unit) - tc->unit;
    int cols = tc->name - (over_v > 0 ? over_v : 0) - (over_u > 0 ? over_u : 0);
    int vcols = tc->value + (cols < 0 ? cols : 0);

    fprintf(w->f, "%*s", tc->indent, "");
    print_fitted(w->f, name, cols, 1);
    fprintf(w->f, " %*s %s\n", vcols, value, unit);
}

void gt_batch_text_record(const struct writer *w, const struct gt_snapshot *s,
                          const double *vals)
{
    int last_group = -1;
    size_t i;
    char line[256], num[40], unit[80];

    snprintf(line, sizeof(line), "t=%.3f s  interval %.1f ms%s",
             (double)(s->t_end_ns - w->t0) / 1e9, gt_engine_seconds(s) * 1e3,
             s->nsamples > 1 ? "  (merged)" : "");
    print_fitted(w->f, line, w->tc.width, 0);
    fputc('\n', w->f);
    if (w->verdict) {
        snprintf(line, sizeof(line), "  triage (held): %s%s%s", w->verdict,
                 strcmp(w->verdict, w->verdict_raw) ? "; this interval: " : "",
                 strcmp(w->verdict, w->verdict_raw) ? w->verdict_raw : "");
        print_fitted(w->f, line, w->tc.width, 0);
        fputc('\n', w->f);
    }
    for (i = 0; i < w->ncols; i++) {
        const struct gt_metric_def *m = &w->l->metrics[w->cols[i].metric];
        double v = gt_batch_column_value(&w->cols[i], w->e, w->l, s, vals, w->o->per_second);
        if (m->group != last_group) {
            snprintf(line, sizeof(line), "%s / %s", w->l->sections[m->section].title,
                     w->l->groups[m->group].title);
            fprintf(w->f, "%*s", w->tc.group, "");
            print_fitted(w->f, line, w->tc.width - w->tc.group, 0);
            fputc('\n', w->f);
            last_group = m->group;
        }
        /* '~': an estimate from multiplexed counters */
        num[0] = '~';
        gt_batch_format_value(num + 1, sizeof(num) - 1, v, w->o->digits);
        gt_batch_unit_of(unit, sizeof(unit), gt_batch_unit_metric(w->l, &w->cols[i]), w->o->per_second);
        /* n/a: the source has no such counter (a CM without that event),
         * unlike '-', no data this interval */
        text_metric(w, w->cols[i].title,
                    !isnan(v) ? num + !gt_engine_estimated(w->e, w->cols[i].metric)
                    : gt_engine_unavailable(w->e, w->cols[i].metric) ? "n/a" : "-", unit);
    }
    fputc('\n', w->f);
}

/* The interval's time and length, and why it has no values. */
void gt_batch_text_no_data(const struct writer *w, const struct gt_snapshot *s)
{
    fprintf(w->f, "t=%.3f s  interval %.1f ms  no data: %s (retrying)\n\n",
            gt_batch_record_time(w, s), gt_engine_seconds(s) * 1e3, w->error);
}
