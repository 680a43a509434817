/* The live dashboard's loop: state set-up, sampling, and one redraw per
 * refresh or key. The terminal (terminal.c), keys (keys.c, actions.c) and
 * views (views.c: header.c, view_*.c, footer.c, help.c) live apart. Each refresh
 * composes the frame in a cell buffer and sends only the cells that changed. */
#include "tui_internal.h"
#include "gputop/fdinfo.h"
#include "gputop/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#define HISTORY_DEPTH TUI_SPARK_MAX

static void draw(struct tui *t)
{
    /* The Processes watcher reads /proc only while its rows are on screen
     * (hidden, its walk and re-reads cost ~1 ms/s with 90 processes). */
    if (t->cfg->procs)
        gt_fdinfo_watch_want(t->cfg->procs, t->procs_view && !t->help && !t->triage_panel);
    if (gt_cellbuf_begin(t->cells, LINES, COLS) < 0)
        return;
    tui_build_rows(t);
    tui_keep_selection_visible(t);
    tui_draw_view(t);
    tui_flush_cells(t);
}

/* Whether any metric of section sec can have a value here. */
static int section_computable(const struct tui *t, long sec)
{
    size_t m;

    for (m = 0; m < t->l->nmetrics; m++)
        if (t->l->metrics[m].section == sec && !gt_engine_unavailable(t->cfg->engine, m))
            return 1;
    return 0;
}

/* A section none of whose metrics this source can compute (an AMD GPU's
 * counter rows without root) is not where the dashboard opens: the first
 * that has some is. */
static long computable_from(const struct tui *t, long first)
{
    long sec;

    if (section_computable(t, first))
        return first;
    for (sec = 0; sec < (long)t->l->nsections; sec++)
        if (section_computable(t, sec))
            return sec;
    return first;
}

static int init_state(struct tui *t, const struct gt_tui_config *cfg)
{
    size_t i, nm = gt_engine_nmetrics(cfg->engine);
    long first;

    memset(t, 0, sizeof(*t));
    t->cfg = cfg;
    t->l = cfg->layout;
    t->per_second = cfg->per_second;
    t->sparks = 1;
    t->count_bars = 0;
    t->triage_section = -1;
    t->epoll_fd = -1;
    t->triage_metric = calloc(t->l->ntriage + 1, sizeof(int));
    if (!t->triage_metric)
        return -1;
    for (i = 0; i < t->l->ntriage; i++) {
        int m = gt_layout_find_metric(t->l, t->l->triage[i].metric);
        t->triage_metric[i] = m;
        if (m >= 0 && t->triage_section < 0)
            t->triage_section = t->l->metrics[m].section;
    }
    if (!(t->eval = gt_evaluator_new(t->l, cfg->engine)))
        return -1;
    t->triage = gt_evaluator_tree(t->eval);
    t->vals = calloc(nm + 1, sizeof(double));
    t->hist_row = calloc(nm + 1, sizeof(double));
    t->hist = gt_history_new(nm, HISTORY_DEPTH);
    if (!t->vals || !t->hist_row || !t->hist ||
        gt_snapshot_init(&t->snap, gt_sampler_nslots(cfg->sampler)) < 0)
        return -1;
    /* Start on --section, else on the section with the triage line (GPU
     * activity), else on the first; one with something to show. */
    first = cfg->section ? gt_layout_find_section(t->l, cfg->section, NULL) : -1;
    if (first < 0)
        first = computable_from(t, t->triage_section >= 0 ? t->triage_section : 0);
    tui_go_section(t, (size_t)first);
    /* Said once, where it can be read: stderr is behind the screen. */
    if (cfg->serve_url)
        snprintf(t->message, sizeof(t->message), " serving Prometheus metrics at %s",
                 cfg->serve_url);
    return tui_replay_init(t);
}

static void free_state(struct tui *t)
{
    free(t->vals);
    free(t->hist_row);
    free(t->rows);
    free(t->widths.rows);
    tui_tabs_free(t);
    tui_line_free(&t->hints);
    free(t->triage_metric);
    gt_evaluator_free(t->eval);
    gt_history_free(t->hist);
    gt_snapshot_free(&t->snap);
    gt_snapshot_free(&t->taken);
    gt_cellbuf_free(t->cells);
    gt_termout_free(t->out);
}

/* Paused, the snapshot on screen stays (the per-core rows are computed
 * from it); the sampler keeps adding up what comes meanwhile. */
static int take_sample(struct tui *t)
{
    const struct gt_interval *iv;
    int r;

    if (t->paused)
        return 0;
    r = t->replay ? tui_replay_take(t) : gt_sampler_take(t->cfg->sampler, &t->snap, 0);
    if (r <= 0)
        return 0;
    /* Judged on the interval's own values, before counts are averaged;
     * the exports beside the dashboard get the same verdict. */
    iv = gt_evaluate(t->eval, &t->snap, t->vals);
    if (t->cfg->tap.fn)
        t->cfg->tap.fn(t->cfg->tap.arg, iv);
    t->have_data = 1;
    if (iv->triage) {
        t->verdict = iv->triage;
        tui_count_verdict(t, t->verdict->verdict);
    }
    tui_interval_values(t);
    gt_history_push(t->hist, t->hist_row);
    return 1;
}

/* Every key ncurses has, then one redraw; returns 1 to quit. A terminal
 * that keeps saying "readable" with nothing to read has gone (end of file,
 * hang-up): it is not polled again, rather than spun on; the dashboard
 * goes on until a signal stops it. */
static int read_keys(struct tui *t, int woke)
{
    int ch, quit = 0, any = 0;

    timeout(0);
    while (!quit && (ch = tui_next_key(t)) != ERR) {
        if (ch == KEY_RESIZE) {
            /* A new height: the least scroll that shows the selection, so
             * a screen that grew back shows the section from its top. */
            t->scroll = 0;
            tui_keep_selection_visible(t);
            tui_repaint_all(t);
        }
        quit = tui_handle_key(t, ch);
        any = 1;
    }
    if (any && !quit)
        draw(t);
    if (any || !(woke & WOKE_INPUT))
        t->empty_reads = 0;
    else if (++t->empty_reads >= 3)
        t->input_gone = 1;
    return quit;
}

/* The time between frames: the refresh period, except that a replay at
 * speed=max shows its records one a frame no slower than they were
 * recorded (a record of 100 ms lasts at most 100 ms on screen), and, with
 * no -r asking for a pace, as fast as the screen draws (issue 43: it
 * played a 100 ms capture in real time). */
#define TUI_FASTEST_FRAME_NS 10000000ull

static uint64_t frame_step(const struct tui *t, uint64_t refresh)
{
    uint64_t rec = t->have_data ? gt_snapshot_ns(&t->snap) : 0;

    if (t->replay_max && !t->cfg->refresh_ns)
        return TUI_FASTEST_FRAME_NS;
    return t->replay_max && rec > 0 && rec < refresh ? rec : refresh;
}

int gt_tui_run(const struct gt_tui_config *cfg, volatile sig_atomic_t *stop, struct gt_diag *d)
{
    struct tui t;
    uint64_t refresh = cfg->refresh_ns ? cfg->refresh_ns : 250000000ull, next;
    int quit = 0;

    if (init_state(&t, cfg) < 0) {
        free_state(&t);
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (tui_setup_terminal(&t, d) < 0) {
        free_state(&t);
        return 1;
    }
    t.wake_fd = gt_sampler_wake_fd(cfg->sampler);
    if (tui_wait_open(&t, d) < 0) {
        tui_close_terminal(&t);
        free_state(&t);
        return 1;
    }
    next = gt_now_ns();
    while (!quit && !*stop) {
        uint64_t now = gt_now_ns();
        int woke;
        if (tui_suspend_pending()) {
            tui_hand_back(&t);
            tui_suspend();
            tui_repaint_all(&t);
            draw(&t);
        }
        if (t.replay_paced) {
            /* Each record is its own refresh, drawn as it arrives; asked
             * for before looking, so one published meanwhile wakes us. */
            gt_sampler_wake_after(cfg->sampler, 1);
            if (take_sample(&t))
                draw(&t);
        }
        if (now >= next) {
            if (!t.replay_paced)
                take_sample(&t);
            draw(&t);
            next += frame_step(&t, refresh);
            if (next <= now)
                next = now + frame_step(&t, refresh);
        }
        /* A sample wakes us only once the refresh is due: the top of the
         * loop draws, on the same grid of refresh times. */
        woke = tui_wait(&t, next, refresh);
        if (woke & (WOKE_INPUT | WOKE_SIGNAL))
            quit = read_keys(&t, woke);
    }
    tui_wait_close(&t);
    tui_close_terminal(&t);
    free_state(&t);
    return 0;
}
