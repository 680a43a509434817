/* gputop --triage's report as text or one JSON object: the held verdict
 * (after 'triage hold' and 'triage band', as the dashboard shows it) with
 * its timeline, each interval's own verdict, side findings, evidence and
 * next steps. Guide sections are written "§6.1.3" ("sec. 6.1.3" where the
 * locale is not UTF-8), never a bare number that reads like a tab. */
#include "triage_report.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Largest first (by time held, else by intervals); stable for ties. */
static void sort_tallies(struct gt_rep_tally *t, size_t n, int by_time)
{
    size_t i, j;

    for (i = 1; i < n; i++)
        for (j = i; j > 0 && (by_time ? t[j].seconds > t[j - 1].seconds : t[j].n > t[j - 1].n);
             j--) {
            struct gt_rep_tally x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
}

/* The run's verdict: the held verdict held longest, "not enough data"
 * only when nothing else was ever held. */
static const struct gt_rep_tally *run_verdict(const struct gt_report *r)
{
    size_t i;

    for (i = 0; i < r->nheld; i++)
        if (strcmp(r->held[i].verdict, GT_TRIAGE_NO_DATA) != 0)
            return &r->held[i];
    return NULL;
}

static const char *ev_title(const struct gt_report *r, int m)
{
    return m == GT_TRIAGE_UNIT ? "most loaded unit" : m == GT_TRIAGE_QUEUE ? "busiest queue"
         : m == GT_TRIAGE_QUEUE_SUM ? "queues added up" : r->l->metrics[m].title;
}

static const char *ev_ref(const struct gt_report *r, int m)
{
    return m == GT_TRIAGE_UNIT ? "6.1" : m < 0 ? "3.2" : r->l->metrics[m].ref;
}

static const char *ev_unit(const struct gt_report *r, const struct gt_rep_series *s)
{
    return s->metric < 0 ? "%" : s->of_peak ? "% of peak" : r->l->metrics[s->metric].unit;
}

/* The unit or queue that was the most loaded most often. */
static size_t top_label(const struct gt_rep_series *s)
{
    size_t i, best = 0;

    for (i = 1; i < s->nlabels; i++)
        if (s->label_n[i] > s->label_n[best])
            best = i;
    return best;
}

#define SECTION_UTF8 "\u00a7"

int gt_report_utf8(void)
{
    const char *cs;

    /* The character set only: numbers keep the C locale's decimal point. */
    setlocale(LC_CTYPE, "");
    cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

/* "§3.4.1" for a guide section; a reference that is not numbered (AMD's
 * speed-of-light rows) as it is. */
static const char *ref_text(const struct gt_report *r, char *buf, size_t len, const char *ref)
{
    snprintf(buf, len, "%s%s", ref[0] < '0' || ref[0] > '9' ? "" : r->ascii ? "sec. " : SECTION_UTF8,
             ref);
    return buf;
}

/* s as it is, or in ASCII with each "§" as "sec. " (the layouts' advice
 * cites sections that way). */
static void put_text(FILE *out, const struct gt_report *r, const char *s)
{
    const char *p;

    while (r->ascii && (p = strstr(s, SECTION_UTF8)) != NULL) {
        fwrite(s, 1, (size_t)(p - s), out);
        fputs("sec. ", out);
        s = p + strlen(SECTION_UTF8);
    }
    fputs(s, out);
}

static void print_source(FILE *out, struct gt_source *const *src, size_t nsrc)
{
    size_t i;

    /* A source without a GPU name (cpu) leaves no empty field between commas. */
    for (i = 0; i < nsrc; i++) {
        const struct gt_source_info *in = &src[i]->info;
        fprintf(out, "source: %s %s%s%s%s%s\n", src[i]->type->name, in->device,
                in->gpu[0] ? ", " : "", in->gpu, in->detail[0] ? ", " : "", in->detail);
    }
}

/* Columns for the reference: 8 ("§10.1.5", "§" two bytes in one column),
 * 11 in ASCII ("sec. 10.1.5"). */
static int ref_width(const struct gt_report *r, const char *ref)
{
    if (r->ascii)
        return 11;
    return strncmp(ref, SECTION_UTF8, 2) == 0 ? 9 : 8;
}

/* A metric the tree tests that had no data in any interval, and why
 * (the engine's reason: a counter the source lacks, a column not in a
 * capture), so that a step passed over names the figure it lacked. */
static void no_data_line(FILE *out, const struct gt_report *r, int m)
{
    const char *why = m >= 0 && r->e ? gt_engine_unavailable(r->e, (size_t)m) : NULL;
    char ref[24];

    if (m < 0)
        return;
    ref_text(r, ref, sizeof(ref), r->l->metrics[m].ref ? r->l->metrics[m].ref : "-");
    fprintf(out, "  %-*s %-52s no data%s", ref_width(r, ref), ref, r->l->metrics[m].title,
            why ? ": " : "\n");
    if (why) {
        put_text(out, r, why);
        fputc('\n', out);
    }
}

static void print_evidence_text(FILE *out, struct gt_report *r)
{
    char title[160], ref[24];
    size_t i;

    fprintf(out, "evidence (min / median / max over the run):\n");
    for (i = 0; i < r->nev; i++) {
        struct gt_rep_series *s = &r->ev[i];
        const char *rf = ev_ref(r, s->metric);
        if (!s->n) {
            if (!s->fallback)
                no_data_line(out, r, s->metric);
            continue;
        }
        qsort(s->v, s->n, sizeof(*s->v), cmp_double);
        snprintf(title, sizeof(title), "%s", ev_title(r, s->metric));
        if (s->nlabels) {
            size_t b = top_label(s);
            snprintf(title, sizeof(title), "%s: %s (%.0f %% of intervals)",
                     ev_title(r, s->metric), s->label[b], 100.0 * (double)s->label_n[b] /
                     (double)s->n);
        }
        ref_text(r, ref, sizeof(ref), rf ? rf : "-");
        /* "§" is two bytes but one column */
        fprintf(out, "  %-*s %-52s %8.4g / %8.4g / %8.4g %s\n", ref_width(r, ref), ref, title, s->v[0],
                s->v[s->n / 2], s->v[s->n - 1], ev_unit(r, s));
    }
}

static void next_line(FILE *out, const struct gt_report *r, const char *verdict,
                      const char *ref, const char *next)
{
    char buf[64];

    fprintf(out, "  %s (", verdict);
    put_text(out, r, ref_text(r, buf, sizeof(buf), ref));
    fputs("): ", out);
    put_text(out, r, next);
    fputc('\n', out);
}

static void print_text(FILE *out, struct gt_report *r, struct gt_source *const *src, size_t nsrc)
{
    const struct gt_rep_tally *v = run_verdict(r);
    size_t i;

    fprintf(out, "gputop %s triage report\n", gt_version());
    print_source(out, src, nsrc);
    fprintf(out, "layout: %s (%s)\n", r->l->name, r->l->title);
    fprintf(out, "run: %.1f s, %ld intervals of %.0f ms judged, %ld without data\n\n",
            r->seconds, r->with_verdict, r->interval_s * 1e3, r->no_data + r->judged -
            r->with_verdict);
    if (!v) {
        fprintf(out, "verdict: %s%s%s%s\n", GT_TRIAGE_NO_DATA, r->missing ? " (no data for " : "",
                r->missing ? r->missing : "", r->missing ? ")" : "");
        return;
    }
    fprintf(out, "verdict: %s (held %.0f %% of the run)\n", v->verdict,
            r->seconds > 0 ? 100.0 * v->seconds / r->seconds : 0);
    /* The figure named is one the report lists as "no data" below, never
     * one it prints a value for. */
    if (v->provisional)
        fprintf(out, "  provisional: a test was passed over, no data for %s\n",
                v->missing ? v->missing : "a condition");
    fprintf(out, "timeline (the held verdict, as the dashboard shows it):\n");
    for (i = 0; i < r->nspans; i++)
        fprintf(out, "  %7.1f - %7.1f s  %s%s\n", r->span[i].from, r->span[i].to,
                r->span[i].verdict, r->span[i].provisional ? " (provisional)" : "");
    if (r->more_changes)
        fprintf(out, "  (%ld more changes folded into the last line)\n", r->more_changes);
    fprintf(out, "each interval's own verdict (before hold and band):\n");
    for (i = 0; i < r->nraw; i++)
        fprintf(out, "  %5.1f %%  %s\n", 100.0 * (double)r->raw[i].n / (double)r->judged,
                r->raw[i].verdict);
    if (r->nnotes)
        fprintf(out, "side findings (share of intervals):\n");
    for (i = 0; i < r->nnotes; i++)
        fprintf(out, "  %5.1f %%  %s%s%s\n", 100.0 * (double)r->notes[i].n / (double)r->judged,
                r->notes[i].verdict, r->notes[i].missing ? ": " : "",
                r->notes[i].missing ? r->notes[i].missing : "");
    print_evidence_text(out, r);
    fprintf(out, "next steps:\n");
    for (i = 0; i < r->nheld; i++)
        if (r->held[i].next)
            next_line(out, r, r->held[i].verdict, r->held[i].ref, r->held[i].next);
    for (i = 0; i < r->nnotes; i++)
        next_line(out, r, r->notes[i].verdict, r->l->steps[r->notes[i].step].ref,
                  r->l->steps[r->notes[i].step].next);
}

static void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* held: the held verdicts (time shares, provisional, next step); notes:
 * side findings with what they name; else each interval's own verdicts. */
enum { TALLY_RAW, TALLY_HELD, TALLY_NOTES };

static void json_tallies(FILE *out, const struct gt_report *r, const struct gt_rep_tally *t,
                         size_t n, int kind)
{
    int held = kind == TALLY_HELD;
    size_t i;

    for (i = 0; i < n; i++) {
        fputs(i ? ",{\"verdict\":" : "{\"verdict\":", out);
        json_str(out, t[i].verdict);
        fprintf(out, ",\"share_pct\":%.4g,\"intervals\":%ld",
                held && r->seconds > 0 ? 100.0 * t[i].seconds / r->seconds
                                       : 100.0 * (double)t[i].n / (double)r->judged, t[i].n);
        if (held) {
            fprintf(out, ",\"seconds\":%.6g,\"provisional\":%s,\"missing\":", t[i].seconds,
                    t[i].provisional ? "true" : "false");
            json_str(out, t[i].missing);
            fputs(",\"ref\":", out);
            json_str(out, t[i].ref);
            fputs(",\"next\":", out);
            json_str(out, t[i].next);
        }
        if (kind == TALLY_NOTES) {
            fputs(",\"about\":", out);
            json_str(out, t[i].missing);
        }
        fputc('}', out);
    }
}

static void json_evidence(FILE *out, struct gt_report *r)
{
    size_t i;
    int first = 1;

    for (i = 0; i < r->nev; i++) {
        struct gt_rep_series *s = &r->ev[i];
        if (!s->n && (s->metric < 0 || s->fallback))
            continue;
        fputs(first ? "{\"metric\":" : ",{\"metric\":", out);
        first = 0;
        json_str(out, ev_title(r, s->metric));
        fputs(",\"ref\":", out);
        json_str(out, ev_ref(r, s->metric));
        if (!s->n) { /* why the tree had no value for it, "" unknown */
            const char *why = r->e ? gt_engine_unavailable(r->e, (size_t)s->metric) : NULL;
            fputs(",\"no_data\":", out);
            json_str(out, why ? why : "");
            fputc('}', out);
            continue;
        }
        qsort(s->v, s->n, sizeof(*s->v), cmp_double);
        fputs(",\"unit\":", out);
        json_str(out, ev_unit(r, s));
        if (s->nlabels) {
            fputs(",\"most_often\":", out);
            json_str(out, s->label[top_label(s)]);
        }
        fprintf(out, ",\"min\":%.6g,\"median\":%.6g,\"max\":%.6g}", s->v[0], s->v[s->n / 2],
                s->v[s->n - 1]);
    }
}

static void print_json(FILE *out, struct gt_report *r, struct gt_source *const *src, size_t nsrc)
{
    const struct gt_rep_tally *v = run_verdict(r);
    size_t i;

    fputs("{\"type\":\"triage\",\"gputop\":", out);
    json_str(out, gt_version());
    fputs(",\"layout\":", out);
    json_str(out, r->l->name);
    fputs(",\"sources\":[", out);
    for (i = 0; i < nsrc; i++) {
        fputs(i ? ",{\"type\":" : "{\"type\":", out);
        json_str(out, src[i]->type->name);
        fputs(",\"device\":", out);
        json_str(out, src[i]->info.device);
        fputs(",\"gpu\":", out);
        json_str(out, src[i]->info.gpu);
        fputs(",\"detail\":", out);
        json_str(out, src[i]->info.detail);
        fputc('}', out);
    }
    fprintf(out, "],\"duration_s\":%.3f,\"interval_s\":%.6g,\"intervals\":%ld,\"no_data\":%ld,"
            "\"verdict_is\":\"held\",\"verdict\":", r->seconds, r->interval_s, r->with_verdict,
            r->no_data + r->judged - r->with_verdict);
    json_str(out, v ? v->verdict : GT_TRIAGE_NO_DATA);
    fprintf(out, ",\"provisional\":%s,\"missing\":", v && v->provisional ? "true" : "false");
    json_str(out, v ? v->missing : r->missing);
    fputs(",\"verdicts\":[", out);
    json_tallies(out, r, r->held, r->nheld, TALLY_HELD);
    fputs("],\"timeline\":[", out);
    for (i = 0; i < r->nspans; i++) {
        fprintf(out, "%s{\"from_s\":%.6g,\"to_s\":%.6g,\"verdict\":", i ? "," : "",
                r->span[i].from, r->span[i].to);
        json_str(out, r->span[i].verdict);
        fprintf(out, ",\"provisional\":%s}", r->span[i].provisional ? "true" : "false");
    }
    fputs("],\"interval_verdicts\":[", out);
    json_tallies(out, r, r->raw, r->nraw, TALLY_RAW);
    fputs("],\"notes\":[", out);
    json_tallies(out, r, r->notes, r->nnotes, TALLY_NOTES);
    fputs("],\"evidence\":[", out);
    json_evidence(out, r);
    fputs("]}\n", out);
}

void gt_report_print(FILE *out, struct gt_report *r, struct gt_source *const *src, size_t nsrc,
                     int json)
{
    sort_tallies(r->held, r->nheld, 1);
    sort_tallies(r->raw, r->nraw, 0);
    sort_tallies(r->notes, r->nnotes, 0);
    if (json)
        print_json(out, r, src, nsrc);
    else
        print_text(out, r, src, nsrc);
}
