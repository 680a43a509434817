/* What keys do: sections, selection, search, sampling interval, toggles;
 * and the table that binds them to keys, from which the help overlay
 * (help.c) and the footer's hints (footer.c) are made, as tmux makes its
 * help from its command table. */
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


static void find_next(struct tui *t)
{
    size_t n = t->l->nmetrics, k, m;

    if (!t->search[0] || n == 0)
        return;
    for (k = 1; k <= n; k++) {
        m = ((size_t)(t->selected < 0 ? 0 : t->selected) + k) % n;
        if (gt_text_contains_nocase(t->l->metrics[m].title, t->search) &&
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

/* The actions the table binds: arg is the row's. */
static int quit(struct tui *t, int arg) { (void)t; (void)arg; return TUI_QUIT; }

static int open_help(struct tui *t, int arg)
{
    (void)arg;
    t->help = 1;
    t->help_scroll = 0;
    return TUI_DONE;
}

static int step_section(struct tui *t, int by)
{
    size_t n = t->l->nsections;

    tui_go_section(t, (t->section + n + (size_t)(by < 0 ? n - 1 : 1)) % n);
    return TUI_DONE;
}

static int select_by(struct tui *t, int by)
{
    if (t->procs_view && (by == 1 || by == -1))
        t->procs_move = by;         /* the Processes view moves its own selection */
    else
        move_selection(t, by);
    return TUI_DONE;
}

/* A page is the body's height less the row kept in view; arg the way. */
static int select_page(struct tui *t, int way)
{
    move_selection(t, way * (tui_body_height() - 1));
    return TUI_DONE;
}

static int pause_display(struct tui *t, int arg)
{
    (void)arg;
    t->paused = !t->paused;
    return TUI_DONE;
}

static int interval_key(struct tui *t, int dir)
{
    change_interval(t, dir);
    return TUI_DONE;
}

static int percore_key(struct tui *t, int arg)
{
    (void)arg;
    toggle_percore(t);
    return TUI_DONE;
}

static int open_panel(struct tui *t, int arg)
{
    (void)arg;
    if (t->triage) {
        t->triage_panel = 1;
        t->triage_scroll = -1; /* follow the deciding step */
    } else {
        snprintf(t->message, sizeof(t->message), " this layout has no triage tree");
    }
    return TUI_DONE;
}

static int next_match(struct tui *t, int arg)
{
    (void)arg;
    find_next(t);
    return TUI_DONE;
}

/* A display setting that is on or off: arg is which. */
enum { SET_PER_SECOND, SET_SPARKS, SET_COUNT_BARS, SET_PROCESSES };

static int toggle(struct tui *t, int which)
{
    int *flag[] = { &t->per_second, &t->sparks, &t->count_bars, &t->procs_view };

    *flag[which] = !*flag[which];
    return TUI_DONE;
}

/* Sorts the Processes view; elsewhere the key is a section's, if a
 * layout gives it one. */
static int sort_processes(struct tui *t, int arg)
{
    (void)arg;
    if (!t->procs_view)
        return TUI_PASS;
    tui_processes_next_sort(t);
    return TUI_DONE;
}

static int reset_range(struct tui *t, int arg)
{
    (void)arg;
    gt_history_reset(t->hist);
    snprintf(t->message, sizeof(t->message), " min / max reset");
    return TUI_DONE;
}

static int start_search(struct tui *t, int arg)
{
    (void)arg;
    t->searching = 1;
    t->search[0] = '\0';
    return TUI_DONE;
}

static int repaint(struct tui *t, int arg)
{
    (void)arg;
    tui_repaint_all(t);            /* Ctrl-L: the screen was garbled */
    return TUI_DONE;
}

#define CTRL(c) ((c) & 0x1f)
#define BIND(k, fn, a) .key = (k), .action = (fn), .arg = (a)

/* Every key the dashboard answers, in the order the help lists them. A
 * row without a name is one more key for the named row above it; a row
 * without a key is said in the help and handled elsewhere (the layout's
 * section keys, search, the terminal's Ctrl-Z). Rows for a replay stand
 * in for live ones while a capture plays. The footer shows the rows with
 * a hint, by rank. */
static const struct tui_binding bindings[] = {
    { BIND(0, NULL, 0), .name = "1-9 0 a-z",
      .note = "show the section with that key (named on the tabs)" },
    { BIND('\t', step_section, 1), .name = "Tab, right", .note = "next section",
      .hint = 3, .hint_key = "Tab", .hint_sections = 1, .hint_note = "sections" },
    { BIND(KEY_RIGHT, step_section, 1) },
    { BIND(KEY_BTAB, step_section, -1), .name = "Shift-Tab, left", .note = "previous section",
      .join = 1 },
    { BIND(KEY_LEFT, step_section, -1) },
    { BIND(KEY_UP, select_by, -1), .name = "up, down", .note = "select a metric (a process)",
      .hint = 11, .hint_key = "\u2191\u2193", .hint_key_ascii = "up/down", .hint_note = "select" },
    { BIND(KEY_DOWN, select_by, 1) },
    { BIND(KEY_PPAGE, select_page, -1), .name = "PgUp, PgDn", .note = "page", .join = 1 },
    { BIND(KEY_NPAGE, select_page, 1) },
    { BIND(KEY_HOME, select_by, -100000), .name = "Home, End", .note = "first, last", .join = 1,
      .mode = TUI_LIVE },
    { BIND(KEY_END, select_by, 100000), .mode = TUI_LIVE },
    /* PgUp and PgDn page a replay's section too: seeking has keys of its own */
    { BIND('[', tui_replay_seek_tenths, -1), .name = "[ ]",
      .note = "back / forward 10 % of a replay", .mode = TUI_REPLAY,
      .hint = 6, .hint_key = "[ ]", .hint_note = "seek" },
    { BIND(']', tui_replay_seek_tenths, 1), .mode = TUI_REPLAY },
    { BIND('c', percore_key, 0), .name = "c",
      .note = "per-core view: each shader core / L2 slice of the group",
      .hint = 12, .hint_key = "c", .hint_note = "per-core" },
    { BIND('P', toggle, SET_PROCESSES), .name = "P",
      .note = "Processes: GPU use per process (fdinfo)", .hint = 9, .hint_key = "P",
      .hint_note = "procs" },
    { BIND('o', sort_processes, 0), .name = "o", .note = "sort column;  /  filter", .join = 1 },
    { BIND('v', open_panel, 0), .name = "v",
      .note = "the verdict's evidence: each step's tests and values; any key closes",
      .hint = 8, .hint_key = "v", .hint_note = "verdict" },
    { BIND(' ', pause_display, 0), .name = "space", .note = "pause / resume the display",
      .mode = TUI_LIVE, .hint = 13, .hint_key = "space", .hint_note = "pause" },
    { BIND(' ', tui_replay_toggle, 0), .name = "space",
      .note = "pause / play the replay (at its end: again from the start)", .mode = TUI_REPLAY,
      .hint = 4, .hint_key = "space", .hint_note = "play/pause" },
    { BIND('+', interval_key, 1), .name = "+ -", .note = "sample faster / slower",
      .mode = TUI_LIVE, .hint = 14, .hint_key = "+/-", .hint_note = "interval" },
    { BIND('=', interval_key, 1), .mode = TUI_LIVE },
    { BIND('-', interval_key, -1), .mode = TUI_LIVE },
    { BIND('_', interval_key, -1), .mode = TUI_LIVE },
    { BIND('+', tui_replay_speed, 1), .name = "+ -", .mode = TUI_REPLAY,
      .note = "play faster / slower (x0.1 to x64)", .hint = 7, .hint_key = "+/-",
      .hint_note = "speed" },
    { BIND('=', tui_replay_speed, 1), .mode = TUI_REPLAY },
    { BIND('-', tui_replay_speed, -1), .mode = TUI_REPLAY },
    { BIND('_', tui_replay_speed, -1), .mode = TUI_REPLAY },
    { BIND('.', tui_replay_step, 1), .name = ". ,",
      .note = "one sample forward / back (pauses; each key one)", .mode = TUI_REPLAY,
      .hint = 5, .hint_key = ". ,", .hint_note = "step" },
    { BIND(',', tui_replay_step, -1), .mode = TUI_REPLAY },
    { BIND(KEY_HOME, tui_replay_seek_end, 0), .name = "Home, End", .note = "first / last",
      .join = 1, .mode = TUI_REPLAY },
    { BIND(KEY_END, tui_replay_seek_end, 1), .mode = TUI_REPLAY },
    { BIND('t', toggle, SET_PER_SECOND), .name = "t", .note = "counts per second / per interval",
      .hint = 10, .hint_key = "t", .hint_note = "rates/counts" },
    { BIND('s', toggle, SET_SPARKS), .name = "s", .note = "sparklines of recent history on / off",
      .hint = 16, .hint_key = "s", .hint_note = "sparklines" },
    { BIND('p', toggle, SET_COUNT_BARS), .name = "p",
      .note = "bars for counts (against their group's largest row) on / off" },
    { BIND('r', reset_range, 0), .name = "r", .note = "reset min / max" },
    { BIND('/', start_search, 0), .name = "/", .note = "find a metric by name",
      .hint = 15, .hint_key = "/", .hint_note = "find" },
    { BIND('n', next_match, 0), .name = "Enter or n", .note = "next match", .join = 1 },
    { BIND('\r', next_match, 0) },
    { BIND('\n', next_match, 0) },
    { BIND(KEY_ENTER, next_match, 0) },
    { BIND(0, NULL, 0), .name = "Esc", .note = "cancel", .join = 1 },     /* search_key */
    { BIND('h', open_help, 0), .name = "h ? F1", .note = "this help",
      .hint = 1, .hint_key = "h", .hint_note = "help" },
    { BIND('?', open_help, 0) },
    { BIND(KEY_F(1), open_help, 0) },
    { BIND(0, NULL, 0), .name = "arrows, PgUp, PgDn scroll it, any other key closes it",
      .join = 1 },                                                      /* tui_help_key */
    { BIND(CTRL('L'), repaint, 0), .name = "Ctrl-L", .note = "redraw the whole screen" },
    { BIND(0, NULL, 0), .name = "Ctrl-Z", .note = "suspend (fg resumes)", .join = 1 }, /* SIGTSTP */
    { BIND('q', quit, 0), .name = "q F10", .note = "quit",
      .hint = 2, .hint_key = "q", .hint_note = "quit" },
    { BIND('Q', quit, 0) },
    { BIND(KEY_F(10), quit, 0) },
};

const struct tui_binding *tui_bindings(size_t *n)
{
    *n = sizeof(bindings) / sizeof(bindings[0]);
    return bindings;
}

int tui_binding_shown(const struct tui *t, const struct tui_binding *b)
{
    return b->mode == TUI_ANY || (b->mode == TUI_REPLAY) == (t->replay != NULL);
}

/* Keys while the help is up: the arrows and page keys scroll it; any other
 * key closes it (q quits). 1 when it was a scrolling key. */
static int help_key(struct tui *t, int ch)
{
    int page = LINES > 8 ? LINES - 6 : 1;

    switch (ch) {
    case KEY_UP: t->help_scroll--; return 1;
    case KEY_DOWN: t->help_scroll += t->help_more; return 1;
    case KEY_PPAGE: t->help_scroll -= page; return 1;
    case KEY_NPAGE: t->help_scroll += t->help_more ? page : 0; return 1;
    case KEY_HOME: t->help_scroll = 0; return 1;
    case KEY_END: t->help_scroll = 1 << 20; return 1;
    }
    return 0;
}

/* The row bound to ch in this mode, NULL none. */
static const struct tui_binding *binding_for(const struct tui *t, int ch)
{
    size_t i;

    for (i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
        if (bindings[i].key == ch && bindings[i].action && tui_binding_shown(t, &bindings[i]))
            return &bindings[i];
    return NULL;
}

/* Returns 1 to quit. */
int tui_handle_key(struct tui *t, int ch)
{
    const struct tui_binding *b;
    size_t i;

    t->message[0] = '\0';
    if (t->searching) {
        search_key(t, ch);
        return 0;
    }
    if (t->help && help_key(t, ch))
        return 0;
    if (t->help && ch != KEY_RESIZE && ch != KEY_MOUSE) {
        t->help = 0;
        return ch == 'q' || ch == KEY_F(10);
    }
    if (t->triage_panel && tui_triage_panel_key(t, ch))
        return 0;
    if (t->triage_panel && ch != KEY_RESIZE && ch != KEY_MOUSE && ch != ' ' && ch != CTRL('L')) {
        t->triage_panel = 0;
        return ch == 'q' || ch == KEY_F(10);
    }
    if (ch == KEY_MOUSE)
        mouse_key(t);
    if (ch == KEY_MOUSE || ch == KEY_RESIZE)
        return 0;
    b = binding_for(t, ch);
    if (b) {
        int r = b->action(t, b->arg);
        if (r != TUI_PASS)
            return r == TUI_QUIT;
    }
    for (i = 0; i < t->l->nsections; i++)
        if (t->l->sections[i].key == ch) {
            tui_go_section(t, i);
            return 0;
        }
    return 0;
}
