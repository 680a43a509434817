/* What keys do: sections, selection, search, sampling interval, toggles. */
#include "tui_internal.h"
#include "gputop/history.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int selectable(const struct row *r)
{
    return r->kind == ROW_METRIC || r->kind == ROW_BUCKET;
}

/* The selection moves over the rows on the page (a --metrics pattern may
 * leave some of the section's metrics out), delta rows at a time. */
static void move_selection(struct tui *t, long delta)
{
    long cur = -1, first = -1, last = -1, i;

    tui_build_rows(t);
    for (i = 0; i < (long)t->nrows; i++) {
        if (!selectable(&t->rows[i]))
            continue;
        if (first < 0)
            first = i;
        last = i;
        if ((long)t->rows[i].idx == t->selected)
            cur = i;
    }
    if (first < 0) {
        t->selected = -1;
        return;
    }
    i = cur < 0 ? first : cur;
    while (delta > 0 && i < last)
        delta -= selectable(&t->rows[++i]);
    while (delta < 0 && i > first)
        delta += selectable(&t->rows[--i]);
    t->selected = (long)t->rows[i].idx;
}

void tui_go_section(struct tui *t, size_t i)
{
    if (i >= t->l->nsections)
        return;
    t->section = i;
    t->selected = -1;
    t->scroll = 0;
    t->procs_view = 0;      /* a section asked for: the Processes view gives way */
    move_selection(t, 0);
}

static void change_interval(struct tui *t, int dir)
{
    static const uint64_t steps_ms[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000 };
    size_t n = sizeof(steps_ms) / sizeof(steps_ms[0]), i;
    uint64_t cur = gt_sampler_interval(t->cfg->sampler) / 1000000ull;
    char period[32];

    for (i = 0; i < n && steps_ms[i] < cur; i++)
        ;
    if (dir < 0 && i + 1 < n && steps_ms[i] <= cur)
        i++;
    else if (dir > 0 && i > 0)
        i--;
    gt_sampler_set_interval(t->cfg->sampler, steps_ms[i] * 1000000ull);
    /* read back: a source may cap it (mips-cm's 32-bit counters) */
    tui_period_text(period, sizeof(period), gt_sampler_interval(t->cfg->sampler));
    snprintf(t->message, sizeof(t->message), " sampling every %s", period);
}

int tui_contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}

static void find_next(struct tui *t)
{
    size_t n = t->l->nmetrics, k, m;

    if (!t->search[0] || n == 0)
        return;
    for (k = 1; k <= n; k++) {
        m = ((size_t)(t->selected < 0 ? 0 : t->selected) + k) % n;
        if (tui_contains_nocase(t->l->metrics[m].title, t->search) &&
            gt_layout_metric_matches(&t->l->metrics[m], t->cfg->metrics)) {
            t->section = (size_t)t->l->metrics[m].section;
            t->selected = (long)m;
            snprintf(t->message, sizeof(t->message), " found: %s", t->l->metrics[m].title);
            return;
        }
    }
    snprintf(t->message, sizeof(t->message), " no metric matches '%s'", t->search);
}

static void search_key(struct tui *t, int ch)
{
    size_t n = strlen(t->search);

    if (ch == 27) {
        t->searching = 0;
        if (t->procs_view)          /* the Processes filter: Esc drops it */
            t->search[0] = '\0';
    } else if (ch == '\n' || ch == KEY_ENTER || ch == '\r') {
        t->searching = 0;
        if (!t->procs_view)         /* the Processes view filters as it is typed */
            find_next(t);
    } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0) {
        t->search[n - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && n + 1 < sizeof(t->search)) {
        t->search[n] = (char)ch;
        t->search[n + 1] = '\0';
    }
}

/* 'c' on a group whose metrics count only for the whole GPU has nothing
 * to break down: said, rather than a toggle that changes nothing. */
static void toggle_percore(struct tui *t)
{
    size_t g;

    if (!t->percore && t->selected >= 0) {
        g = (size_t)t->l->metrics[t->selected].group;
        if (!tui_percore_available(t, g)) {
            snprintf(t->message, sizeof(t->message), " no per-core data in %s",
                     t->l->groups[g].title);
            return;
        }
    }
    t->percore = !t->percore;
}

static void mouse_key(struct tui *t)
{
    MEVENT ev;
    long i;

    if (getmouse(&ev) != OK || ev.y != 1)
        return;
    i = tui_tab_at(t, ev.x);
    if (i >= 0)
        tui_go_section(t, (size_t)i);
    else if (i == TUI_TAB_PROCS)
        t->procs_view = 1;
}

/* Returns 1 to quit. */
int tui_handle_key(struct tui *t, int ch)
{
    size_t i;

    t->message[0] = '\0';
    if (t->searching) {
        search_key(t, ch);
        return 0;
    }
    if (t->help && tui_help_key(t, ch))
        return 0;
    if (t->help && ch != KEY_RESIZE && ch != KEY_MOUSE) {
        t->help = 0;
        return ch == 'q' || ch == KEY_F(10);
    }
    if (t->triage_panel && tui_triage_panel_key(t, ch))
        return 0;
    if (t->triage_panel && ch != KEY_RESIZE && ch != KEY_MOUSE && ch != ' ' && ch != 12) {
        t->triage_panel = 0;
        return ch == 'q' || ch == KEY_F(10);
    }
    if (tui_replay_key(t, ch))
        return 0;
    switch (ch) {
    case 'q': case 'Q': case KEY_F(10): return 1;
    case 'h': case '?': case KEY_F(1): t->help = 1; t->help_scroll = 0; return 0;
    case '\t': case KEY_RIGHT: tui_go_section(t, (t->section + 1) % t->l->nsections); return 0;
    case KEY_BTAB: case KEY_LEFT:
        tui_go_section(t, (t->section + t->l->nsections - 1) % t->l->nsections);
        return 0;
    case KEY_UP:
        if (t->procs_view)
            t->procs_move = -1;     /* the Processes view moves its own selection */
        else
            move_selection(t, -1);
        return 0;
    case KEY_DOWN:
        if (t->procs_view)
            t->procs_move = 1;
        else
            move_selection(t, 1);
        return 0;
    case KEY_PPAGE: move_selection(t, -(tui_body_height() - 1)); return 0;
    case KEY_NPAGE: move_selection(t, tui_body_height() - 1); return 0;
    case KEY_HOME: move_selection(t, -100000); return 0;
    case KEY_END: move_selection(t, 100000); return 0;
    case ' ': t->paused = !t->paused; return 0;
    case '+': case '=': change_interval(t, 1); return 0;
    case '-': case '_': change_interval(t, -1); return 0;
    case 'c': toggle_percore(t); return 0;
    case 'v':
        if (t->triage) {
            t->triage_panel = 1;
            t->triage_scroll = -1; /* follow the deciding step */
        }
        else
            snprintf(t->message, sizeof(t->message), " this layout has no triage tree");
        return 0;
    case 'n': case '\r': case '\n': case KEY_ENTER: find_next(t); return 0;
    case 't': t->per_second = !t->per_second; return 0;
    case 's': t->sparks = !t->sparks; return 0;
    case 'p': t->count_bars = !t->count_bars; return 0;
    case 'P': t->procs_view = !t->procs_view; return 0;
    case 'o':
        if (!t->procs_view)
            break;      /* a section's key, if a layout gives it one */
        tui_processes_next_sort(t);
        return 0;
    case 'r':
        gt_history_reset(t->hist);
        snprintf(t->message, sizeof(t->message), " min / max reset");
        return 0;
    case '/': t->searching = 1; t->search[0] = '\0'; return 0;
    case KEY_MOUSE: mouse_key(t); return 0;
    case KEY_RESIZE: return 0;
    case 12: tui_repaint_all(t); return 0;       /* Ctrl-L: the screen was garbled */
    }
    for (i = 0; i < t->l->nsections; i++)
        if (t->l->sections[i].key == ch) {
            tui_go_section(t, i);
            return 0;
        }
    return 0;
}
