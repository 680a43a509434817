/* CSV records: one header line of titles with their units, then a line
 * per sample (empty fields for an interval without data). */
#include "batch_writer.h"

#include <string.h>

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One header line, each name followed by its unit in brackets
 * ("Bytes read [bytes/s]"): a spreadsheet or pandas takes the first line as
 * the column names, and a second header line would land among the data.
 * A column of estimates (multiplexed counters) starts with '~', as text
 * values do; its values stay plain numbers for the readers. */
void gt_batch_csv_header(const struct writer *w)
{
    char name[sizeof(w->cols->title) + 96], unit[80];
    size_t i;

    fputs("time_s,interval_s,time_unix", w->f);
    for (i = 0; i < w->ncols; i++) {
        const char *est = gt_engine_estimated(w->e, w->cols[i].metric) ? "~" : "";
        gt_batch_unit_of(unit, sizeof(unit), gt_batch_unit_metric(w->l, &w->cols[i]), w->o->per_second);
        snprintf(name, sizeof(name), unit[0] ? "%s%s [%s]" : "%s%s", est, w->cols[i].title, unit);
        fputc(',', w->f);
        csv_field(w->f, name);
    }
    /* The held verdict (what the dashboard shows), then the interval's own. */
    if (w->tree)
        fputs(",triage (held),triage (this interval)", w->f);
    fputc('\n', w->f);
}

/* Every row starts with the interval's end and length, in seconds, and
 * the end on the wall clock (empty when unknown). */
static void csv_times(const struct writer *w, const struct gt_snapshot *s)
{
    char num[40];

    gt_batch_format_seconds(num, sizeof(num), gt_batch_record_time(w, s));
    fputs(num, w->f);
    gt_batch_format_seconds(num, sizeof(num), gt_engine_seconds(s));
    fprintf(w->f, ",%s,", num);
    gt_batch_wall_time(w, s, num, sizeof(num));
    fputs(num, w->f);
}

void gt_batch_csv_record(const struct writer *w, const struct gt_snapshot *s, const double *vals)
{
    char num[40];
    size_t i;

    csv_times(w, s);
    for (i = 0; i < w->ncols; i++) {
        gt_batch_format_value(num, sizeof(num),
                              gt_batch_column_value(&w->cols[i], w->e, w->l, s, vals,
                                                    w->o->per_second),
                              w->o->digits);
        fprintf(w->f, ",%s", num);
    }
    if (w->verdict) {
        fputc(',', w->f);
        csv_field(w->f, w->verdict);
        fputc(',', w->f);
        csv_field(w->f, w->verdict_raw);
    }
    fputc('\n', w->f);
}

/* No values: empty fields, never zeros. */
void gt_batch_csv_no_data(const struct writer *w, const struct gt_snapshot *s)
{
    size_t i;

    csv_times(w, s);
    for (i = 0; i < w->ncols; i++)
        fputc(',', w->f);
    if (w->tree)
        fputs(",,", w->f); /* as many fields as the header */
    fputc('\n', w->f);
}
