/* The triage panel ('v'): the held verdict and this interval's, the next
 * step, the held verdicts' shares of the run and the side findings, then
 * every step of the layout's tree with its tests as judged on the last
 * interval (value and threshold with their units, guide section), the
 * deciding step kept on screen; arrow and page keys scroll. */
#include "tui_internal.h"
#include "gputop/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void tui_count_verdict(struct tui *t, const char *verdict)
{
    size_t i;

    for (i = 0; i < t->ntally && strcmp(t->tally[i].verdict, verdict) != 0; i++)
        ;
    if (i == t->ntally) {
        if (t->ntally == sizeof(t->tally) / sizeof(t->tally[0]))
            return;
        t->tally[t->ntally].verdict = verdict;
        t->tally[t->ntally++].n = 0;
    }
    t->tally[i].n++;
    t->ntallied++;
}

/* "§3.4.1" for a guide section, never a bare number that reads like a
 * dashboard key; other references (AMD's speed-of-light rows) as written. */
static const char *ref_text(const struct tui *t, char *buf, size_t len, const char *ref)
{
    snprintf(buf, len, "%s%s", ref[0] < '0' || ref[0] > '9' ? "" : t->ascii ? "sec. " : "\u00a7",
             ref);
    return buf;
}

static const char *unit_of(const struct tui *t, const struct gt_triage_cond *c, int of_peak)
{
    const char *u = c->metric >= 0 ? t->l->metrics[c->metric].unit : "%";

    if (of_peak)
        return "% of peak";
    return strcasecmp(u, "percent") == 0 ? "%" : u;
}

static void number(char *buf, size_t len, double v, const char *unit)
{
    int pct = unit[0] == '%';

    snprintf(buf, len, "%.*f%s%s", fabs(v) < 10 && !pct ? 1 : 0, v, pct || !unit[0] ? "" : " ",
             unit);
}

/* "     5.3.5 Execution core utilization   >= 70%      85%  holds". */
static void cond_line(const struct tui *t, char *buf, size_t len, size_t step, size_t k,
                      int reached)
{
    const struct gt_triage_result *r = t->verdict;
    const struct gt_triage_cond *c = &t->l->steps[step].conds[k];
    const struct gt_triage_evidence *ev = NULL;
    char what[160], lim[32], val[32];
    const char *unit;
    int what_w = COLS - 46 < 34 ? 34 : COLS - 46 > 60 ? 60 : COLS - 46, m;
    size_t i;

    for (i = 0; r && i < r->nev; i++)
        if (r->ev[i].step == step && r->ev[i].cond == k)
            ev = &r->ev[i];
    unit = unit_of(t, c, ev && ev->of_peak);
    /* The metric judged: the condition's, or its fallback's ('else'). */
    m = ev && c->metric >= 0 ? ev->metric : c->metric;
    /* A guide's section number goes before the title; a reference name
     * (MaliFragQueueUtil) would take the title's room, and the step's
     * heading already gives it. */
    if (m >= 0 && t->l->metrics[m].ref &&
        t->l->metrics[m].ref[0] >= '0' && t->l->metrics[m].ref[0] <= '9')
        snprintf(what, sizeof(what), "%s %s", t->l->metrics[m].ref, t->l->metrics[m].title);
    else if (m < 0 && ev && ev->what && m != GT_TRIAGE_QUEUE_SUM)
        snprintf(what, sizeof(what), "%s (%s)", c->name, ev->what);
    else
        snprintf(what, sizeof(what), "%s", m >= 0 ? t->l->metrics[m].title : c->name);
    snprintf(lim, sizeof(lim), "%s ", gt_triage_op_text(c->op));
    number(lim + strlen(lim), sizeof(lim) - strlen(lim), ev ? ev->limit : c->threshold, unit);
    if (ev && ev->limit != c->threshold) /* the band's edge while the test holds */
        snprintf(lim + strlen(lim), sizeof(lim) - strlen(lim), " held");
    val[0] = '\0';
    if (ev && !isnan(ev->value))
        number(val, sizeof(val), ev->value, unit);
    snprintf(buf, len, "     %-*.*s %-14s %11s  %s", what_w, what_w, what, lim, ev && isnan(ev->value) ? "-"
             : val, !ev ? "" : ev->met < 0 ? "no data" : !reached ? "not reached"
             : ev->met > 0 ? "holds" : "fails");
}

/* Lines of the step list (titles and tests), and the deciding step's. */
static int step_lines(const struct tui *t, int *deciding)
{
    int step = t->verdict ? t->verdict->raw_step : -1, n = 0;
    size_t i;

    *deciding = 0;
    for (i = 0; i < t->l->nsteps; i++) {
        if ((int)i == step)
            *deciding = n;
        n += 1 + (int)t->l->steps[i].nconds;
    }
    return n;
}

/* Following the deciding step: from the top when it fits below, else its
 * title two lines from the top. */
static int follow(const struct tui *t, int deciding, int rows)
{
    int step = t->verdict ? t->verdict->raw_step : -1;
    int end = deciding + 1 + (step >= 0 ? (int)t->l->steps[step].nconds : 0);

    return end <= rows || deciding <= 2 ? 0 : deciding - 2;
}

static void draw_steps(struct tui *t, int y, int bottom)
{
    const struct gt_triage_result *r = t->verdict;
    int step = r ? r->raw_step : -1, line = 0, deciding, total = step_lines(t, &deciding);
    int rows = bottom - y, first = t->triage_scroll;
    char buf[512], ref[64];
    size_t i, k;

    if (first < 0)
        first = follow(t, deciding, rows);
    if (first > total - rows)
        first = total - rows > 0 ? total - rows : 0;
    if (t->triage_scroll >= 0)
        t->triage_scroll = first;
    for (i = 0; i < t->l->nsteps; i++) {
        const struct gt_triage_step *st = &t->l->steps[i];
        int reached = step < 0 || (int)i <= step || st->note;
        if (line >= first && y < bottom) {
            int absent = gt_triage_step_absent(t->triage, i);
            snprintf(buf, sizeof(buf), " %s%2zu %s%s (%s)%s", (int)i == step ? ">" : " ", i + 1,
                     st->note ? "note: " : "", st->verdict, ref_text(t, ref, sizeof(ref), st->ref),
                     absent ? ": left out, not on this GPU"
                     : st->nconds ? "" : ": when nothing above holds");
            tui_put_clipped(t, y++, 0, buf, COLS,
                            (int)i == step ? ST_ALERT : absent ? ST_DIM : ST_HEADING);
        }
        line++;
        for (k = 0; k < st->nconds; k++, line++) {
            if (line < first || y >= bottom)
                continue;
            cond_line(t, buf, sizeof(buf), i, k, reached);
            tui_put_clipped(t, y++, 0, buf, COLS, ST_PLAIN);
        }
    }
}

/* The held verdicts' shares of the run, largest first, none at 0 %. */
static void draw_shares(struct tui *t, int y)
{
    size_t order[32], i, j, n = 0;
    struct gt_text s;
    char buf[512];

    for (i = 0; i < t->ntally; i++) {
        if (!t->tally[i].n)
            continue;
        for (j = n++; j > 0 && t->tally[order[j - 1]].n < t->tally[i].n; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    gt_text_init(&s, buf, sizeof(buf));
    gt_text_add(&s, " held over the run:");
    for (i = 0; i < n; i++) {
        double pct = 100.0 * (double)t->tally[order[i]].n / (double)t->ntallied;
        if (pct < 0.5)
            continue;
        gt_text_add(&s, i ? tui_sep(t) : " ");
        gt_text_add(&s, t->tally[order[i]].verdict);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, pct, 0, 0);
        gt_text_add(&s, "%");
    }
    tui_put_clipped(t, y, 0, buf, COLS, ST_PLAIN);
}

/* s on rows from y on, broken at blanks (a word is cut only when it alone
 * is wider than the screen), the lines after the first indented by
 * indent; at most maxlines, the last cut with an ellipsis. Returns the
 * rows used. */
static int put_wrapped_down(struct tui *t, int y, const char *s, int maxlines, int indent,
                            enum style st)
{
    int n = 0, width, len, i, cut;

    while (*s && n < maxlines) {
        width = COLS - (n ? indent : 0);
        if (width < 10)
            width = COLS;
        len = (int)strlen(s);
        if (tui_text_columns(s) > width) {
            for (i = 0, cut = -1; s[i] && i <= width; i++)
                if (s[i] == ' ')
                    cut = i;
            len = cut > 0 ? cut : width;
        }
        if (n + 1 == maxlines && s[len])
            tui_put_clipped(t, y + n, n ? indent : 0, s, width, st);
        else
            tui_put(t, y + n, n ? indent : 0, s, len, st);
        n++;
        s += len;
        while (*s == ' ')
            s++;
    }
    return n;
}

static void draw_head(struct tui *t, int *y)
{
    const struct gt_triage_result *r = t->verdict;
    char buf[512], ref[64];

    snprintf(buf, sizeof(buf), " triage (held): %s%s%s%s", r ? r->verdict : GT_TRIAGE_NO_DATA,
             r && r->provisional ? " (provisional, no data for " : "",
             r && r->provisional && r->missing ? r->missing : "",
             r && r->provisional ? ")" : "");
    tui_put_clipped(t, (*y)++, 0, buf, COLS, ST_ALERT);
    if (r && strcmp(r->raw, r->verdict) != 0) {
        snprintf(buf, sizeof(buf), " this interval: %s", r->raw);
        tui_put_clipped(t, (*y)++, 0, buf, COLS, ST_PLAIN);
    }
    if (r && r->next) {
        snprintf(buf, sizeof(buf), " next (%s): %s", ref_text(t, ref, sizeof(ref), r->ref),
                 r->next);
        /* the guide's advice is a sentence or two: wrapped, not cut (two lines
         * on a small screen, which the tree's steps need more) */
        *y += put_wrapped_down(t, *y, buf, LINES > 30 ? 4 : 2, 3, ST_PLAIN);
    }
    if (t->ntallied)
        draw_shares(t, (*y)++);
}

void tui_draw_triage_panel(struct tui *t)
{
    int y = 1, bottom = LINES - 2; /* the dashboard's detail and key lines stay */

    for (y = 1; y < LINES; y++)
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
    y = 1;
    draw_head(t, &y);
    y++;
    draw_steps(t, y, bottom);
}

int tui_triage_panel_key(struct tui *t, int ch)
{
    int deciding, total = step_lines(t, &deciding), page = LINES / 2;
    int first = t->triage_scroll >= 0 ? t->triage_scroll : follow(t, deciding, LINES - 8);

    switch (ch) {
    case KEY_UP: first--; break;
    case KEY_DOWN: first++; break;
    case KEY_PPAGE: first -= page; break;
    case KEY_NPAGE: first += page; break;
    case KEY_HOME: first = 0; break;
    case KEY_END: first = total; break;
    default: return 0;
    }
    if (first > total - 1)
        first = total - 1;
    t->triage_scroll = first < 0 ? 0 : first;
    return 1;
}
