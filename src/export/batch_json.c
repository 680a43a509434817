/* JSON Lines records: one metadata record (sources, metrics, units), then
 * one record per sample, with null for an interval without data. */
#include "batch_writer.h"

#include <math.h>

#ifndef GPUTOP_VERSION
#define GPUTOP_VERSION "0"
#endif

void gt_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v, int digits)
{
    char buf[40];

    if (isnan(v) || isinf(v)) {
        fputs("null", f);
        return;
    }
    gt_batch_format_value(buf, sizeof(buf), v, digits);
    fputs(buf, f);
}

static void json_seconds(FILE *f, double v)
{
    char buf[40];

    gt_batch_format_seconds(buf, sizeof(buf), v);
    fputs(buf, f);
}

void gt_batch_json_meta(FILE *f, const struct gt_layout *l, const struct gt_engine *e,
                      struct gt_source *const *src, size_t nsrc, const struct gt_column *cols,
                      size_t ncols, const struct gt_batch_opts *o, uint64_t interval_ns)
{
    size_t i;
    char unit[80];

    fputs("{\"type\":\"meta\",\"gputop\":", f);
    gt_json_string(f, GPUTOP_VERSION);
    fputs(",\"layout\":", f);
    gt_json_string(f, l->name);
    fputs(",\"sources\":[", f);
    for (i = 0; i < nsrc; i++) {
        const struct gt_source_info *in = &src[i]->info;
        fputs(i ? ",{\"type\":" : "{\"type\":", f);
        gt_json_string(f, src[i]->type->name);
        fputs(",\"device\":", f);
        gt_json_string(f, in->device);
        fputs(",\"gpu\":", f);
        gt_json_string(f, in->gpu);
        fputs(",\"detail\":", f);
        gt_json_string(f, in->detail);
        fprintf(f, ",\"shader_cores\":%u,\"l2_slices\":%u}", in->shader_cores, in->l2_slices);
    }
    fprintf(f, "],\"interval_s\":");
    json_seconds(f, (double)interval_ns / 1e9);
    fprintf(f, ",\"per_second\":%s,\"significant_digits\":", o->per_second ? "true" : "false");
    if (o->digits == GT_DIGITS_FULL)
        fputs("null", f);   /* every digit needed to read the double back */
    else
        fprintf(f, "%d", o->digits ? o->digits : GT_DIGITS_DEFAULT);
    fputs(",\"metrics\":[", f);
    for (i = 0; i < ncols; i++) {
        const struct gt_metric_def *m = &l->metrics[cols[i].metric];
        const char *why = gt_engine_unavailable(e, cols[i].metric);
        fputs(i ? ",{\"key\":" : "{\"key\":", f);
        gt_json_string(f, cols[i].key);
        fputs(",\"title\":", f);
        gt_json_string(f, cols[i].title);
        fputs(",\"ref\":", f);
        if (m->ref)
            gt_json_string(f, m->ref);
        else
            fputs("null", f);
        gt_batch_unit_of(unit, sizeof(unit), gt_batch_unit_metric(l, &cols[i]), o->per_second);
        fputs(",\"unit\":", f);
        gt_json_string(f, unit);
        fputs(",\"show\":", f);
        gt_json_string(f, cols[i].pop ? "percent" : gt_batch_show_name(m->show));
        fputs(",\"section\":", f);
        gt_json_string(f, l->sections[m->section].title);
        fputs(",\"group\":", f);
        gt_json_string(f, l->groups[m->group].title);
        if (cols[i].per_core) {
            char name[48];
            fputs(",\"instance\":", f);
            gt_json_string(f, gt_catalog_instance_name(
                                  gt_engine_instance_block(e, cols[i].metric),
                                  gt_engine_instance_number(e, cols[i].metric,
                                                            (uint32_t)cols[i].instance),
                                  0, name, sizeof(name)));
        }
        if (gt_engine_estimated(e, cols[i].metric))
            fputs(",\"estimated\":true", f);
        if (why) {
            fputs(",\"unavailable\":", f);
            gt_json_string(f, why);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* A header figure's value, when the layout names one the source feeds. */
static int figure(const struct writer *w, enum gt_header_fig f, const double *vals, double *v)
{
    int m = w->l->header[f];

    if (m < 0 || gt_engine_unavailable(w->e, (size_t)m))
        return 0;
    *v = vals[m];
    return 1;
}

/* The dashboard header's figures: ,"gpu":{"busy_pct":60,"clock":850,
 * "clock_unit":"MHz"}, or {"busy_of_max_clock_pct":51} when the source
 * knows only the max clock; left out when it knows neither. */
static void json_gpu(const struct writer *w, const double *vals)
{
    double busy, clock;

    if (figure(w, GT_HEADER_BUSY, vals, &busy)) {
        fputs(",\"gpu\":{\"busy_pct\":", w->f);
        json_number(w->f, busy, w->o->digits);
        if (figure(w, GT_HEADER_CLOCK, vals, &clock)) {
            fputs(",\"clock\":", w->f);
            json_number(w->f, clock, w->o->digits);
            fputs(",\"clock_unit\":", w->f);
            gt_json_string(w->f, w->l->metrics[w->l->header[GT_HEADER_CLOCK]].unit);
        }
        fputc('}', w->f);
    } else if (figure(w, GT_HEADER_BUSY_MAX, vals, &busy)) {
        fputs(",\"gpu\":{\"busy_of_max_clock_pct\":", w->f);
        json_number(w->f, busy, w->o->digits);
        fputc('}', w->f);
    }
}

/* Every sample record opens with its time (from the start, and on the
 * wall clock), length and merge count. */
static void json_sample_start(const struct writer *w, const struct gt_snapshot *s)
{
    char wall[40];

    fputs("{\"type\":\"sample\",\"t\":", w->f);
    json_seconds(w->f, gt_batch_record_time(w, s));
    fputs(",\"time_unix\":", w->f);
    fputs(gt_batch_wall_time(w, s, wall, sizeof(wall)) ? wall : "null", w->f);
    fputs(",\"interval_s\":", w->f);
    json_seconds(w->f, gt_engine_seconds(s));
    fprintf(w->f, ",\"merged\":%u", s->nsamples);
}

void gt_batch_json_record(const struct writer *w, const struct gt_snapshot *s,
                          const double *vals)
{
    size_t i;

    json_sample_start(w, s);
    fputs(",\"values\":{", w->f);
    for (i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->f);
        gt_json_string(w->f, w->cols[i].key);
        fputc(':', w->f);
        json_number(w->f, gt_batch_column_value(&w->cols[i], w->e, w->l, s, vals,
                                                w->o->per_second),
                    w->o->digits);
    }
    fputc('}', w->f);
    json_gpu(w, vals);
    if (w->verdict) {
        fputs(",\"triage\":", w->f);
        gt_json_string(w->f, w->verdict);
        fputs(",\"triage_interval\":", w->f);
        gt_json_string(w->f, w->verdict_raw);
    }
    fputs("}\n", w->f);
}

/* The sources that had no data, as a JSON array's items. */
static void missing_names(const struct writer *w, const struct gt_snapshot *s)
{
    size_t i;
    int n = 0;

    for (i = 0; i < w->nsources && i < 32; i++) {
        if (!(s->missing >> i & 1))
            continue;
        if (n++)
            fputc(',', w->f);
        gt_json_string(w->f, w->sources[i]->type->name);
    }
}

/* Which sources had no data and why, and null for every value. */
void gt_batch_json_no_data(const struct writer *w, const struct gt_snapshot *s)
{
    size_t i;

    json_sample_start(w, s);
    fputs(",\"no_data\":[", w->f);
    missing_names(w, s);
    fputs("],\"state\":\"retrying\",\"error\":", w->f);
    gt_json_string(w->f, w->error);
    fputs(",\"values\":{", w->f);
    for (i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->f);
        gt_json_string(w->f, w->cols[i].key);
        fputs(":null", w->f);
    }
    fputs("}}\n", w->f);
}
