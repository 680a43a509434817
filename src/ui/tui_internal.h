/* The dashboard's shared state and the functions its files offer each
 * other: the loop (tui.c) ties the terminal, keys, actions and views. */
#ifndef GPUTOP_UI_TUI_INTERNAL_H
#define GPUTOP_UI_TUI_INTERNAL_H

#include <curses.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gputop/cellbuf.h"
#include "gputop/evaluate.h"
#include "gputop/format.h"
#include "gputop/history.h"
#include "gputop/termout.h"
#include "gputop/tui.h"
#include "gputop/triage.h"

enum row_kind { ROW_GROUP, ROW_TRIAGE, ROW_METRIC, ROW_INSTANCE, ROW_BUCKET,
                ROW_STRIP, ROW_SPREAD, ROW_WAITING, ROW_NOMATCH };

struct row {
    enum row_kind kind;
    size_t idx;          /* group or metric */
    int inst;            /* ROW_INSTANCE; ROW_STRIP: its first instance */
};

/* What a cell looks like: a foreground colour from the terminal's own
 * palette (dropped without colour) and attributes, which stay, so that a
 * monochrome screen still shows them (the table is in terminal.c). */
enum style {
    ST_PLAIN, ST_HEADER, ST_TAB, ST_HEADING, ST_ALERT, ST_SELECTED, ST_DIM,
    ST_LOW, ST_MID, ST_HIGH, ST_ACCENT, NSTYLES
};

/* The section's column widths and what they were sized from: the rows
 * and the settings that change a width (view_section.c). Sizing formats
 * every row's title, so it is redone only when one of them changes. */
struct tui_widths {
    struct row *rows;
    size_t nrows, cap;
    size_t section;
    int cols, sparks, per_second, valid;
    int name, bar, value, spark, peak;
};

/* A line of the frame as composed, with what it was composed from (the
 * key): the tabs, the footer's key hints. Composing them anew each
 * refresh took ~11k instructions for what changes with a key or a resize. */
#define TUI_LINE_KEY 4
struct tui_line {
    uint32_t *cells;
    int n, cap, valid;
    long key[TUI_LINE_KEY];
};

/* The tabs' fit and each section's short label (tabs.c): the labels
 * follow the layout alone, the fit the width and the current section. */
struct tui_tabs {
    const char **label;          /* per section, made on first use */
    int valid, cols, form;
    size_t section, first, end;
    struct tui_line line;        /* the tab row as last drawn */
};

#define TUI_PROCS_HIST 60          /* a selected process's GPU% samples kept */

struct tui {
    const struct gt_tui_config *cfg;
    const struct gt_layout *l;
    SCREEN *screen;
    struct gt_cellbuf *cells;    /* the frame being composed */
    struct gt_termout *out;      /* how it reaches the terminal */
    int ascii, color, mouse;
    size_t section;
    int scroll;
    long selected;               /* metric index, -1 none */
    int paused, per_second, sparks, count_bars, percore, help;
    int help_scroll, help_more;  /* the help's first line shown; more below it */
    int searching;
    char search[64];
    char message[160];
    double *vals;
    double *hist_row;            /* vals as history keeps them */
    struct gt_history *hist;
    struct gt_snapshot snap;
    int have_data;
    struct row *rows;
    struct tui_tabs tabs;        /* of the last frame drawn */
    struct tui_line hints;       /* the footer's key hints as last drawn */
    struct tui_widths widths;    /* of the last section drawn */
    size_t nrows, rowcap;
    int triage_section;          /* section showing the triage line, -1 none */
    int *triage_metric;          /* per triage rule: its metric, -1 none */
    struct gt_evaluator *eval;   /* values and verdict, once an interval */
    const struct gt_triage *triage; /* the layout's decision tree, NULL without one */
    const struct gt_triage_result *verdict; /* the last interval's, NULL before data */
    int triage_panel;            /* the triage panel is open ('v') */
    int triage_scroll;           /* its first step line shown; -1: follow the deciding step */
    struct { const char *verdict; long n; } tally[32]; /* intervals per verdict */
    size_t ntally;
    long ntallied;
    uint64_t warnings_seen;      /* sampler warnings already noticed */
    time_t warning_until;        /* the last warning shows until then */
    int alert_shown;             /* the line above the footer holds it */
    time_t clock_at;             /* when clock was formatted */
    char clock[16];
    struct sigaction old_tstp;   /* SIGTSTP as it was before the dashboard */
    int wake_fd;                 /* the sampler's new-data descriptor, -1 none */
    int epoll_fd;                /* the loop's sleep (wait.c), -1 none */
    int stdin_watched;           /* stdin is in its set */
    int signal_fd;               /* readable after SIGWINCH or SIGTSTP, -1 none */
    int empty_reads, input_gone; /* the keyboard's end of file or hang-up */
    int sampler_live;            /* it is sampling (not retrying, not ended) */
    int procs_view, procs_sort;  /* the Processes view is up; its sort column */
    /* Its selected row (by pid, so that it follows the row as the order
     * changes), a move asked by the arrows, and that row's GPU% history. */
    int procs_pid, procs_move;
    double procs_hist[TUI_PROCS_HIST];
    size_t procs_nhist;
    uint64_t procs_seen;         /* the watcher's update the history has */
    struct gt_source *replay;    /* a source playing a capture back, or NULL */
    struct gt_snapshot taken;    /* replay: a snapshot before it is known fresh */
    int replay_paced;            /* it keeps its own pace: a refresh a record */
    int replay_max;              /* as fast as it goes: a record a frame */
    long long replay_want;       /* the record a step or seek asked for, not yet
                                    on screen (keys in a burst go on from it); -1 */
    int replay_speed;            /* its pace in thousandths of the recorded one */
    int self_paced;              /* a recorded source: a record a refresh at most */
};

/* draw.c: text into the frame being composed */
/* The current section's rows are laid out in one panel or, on a wide
 * terminal, two side by side, TUI_PANEL_GAP apart; a panel's width in
 * columns. */
#define TUI_PANEL_MIN 96
#define TUI_PANEL_GAP 2
int tui_body_panels(const struct tui *t);
int tui_panel_cols(const struct tui *t);
int tui_text_columns(const char *s);           /* UTF-8: one column a character */
/* The same, counting no further than cap + 1: enough to tell "fits" from
 * "cut", where a long description need not be walked to its end. */
int tui_text_columns_upto(const char *s, int cap);
int tui_put(struct tui *t, int y, int x, const char *s, int maxw, enum style st);
void tui_put_clipped(struct tui *t, int y, int x, const char *s, int maxw, enum style st);
enum style tui_level_style(double pct);
enum style tui_good_style(enum gt_good good, double pct);
/* Metric m's bar style for a percentage (its value or percent of peak). */
enum style tui_metric_style(const struct tui *t, size_t m, double pct);
const char *tui_sep(const struct tui *t);
/* Row y drawn from l when l was composed for key (TUI_LINE_KEY values,
 * unused ones 0): 1, else 0 (compose it, then tui_line_keep). */
int tui_line_reuse(struct tui *t, const struct tui_line *l, const long *key, int y);
/* Keeps the first n cells of row y, composed for key, in l. */
void tui_line_keep(struct tui *t, struct tui_line *l, const long *key, int y, int n);
void tui_line_free(struct tui_line *l);
/* "100 ms", "1 s", "2.5 s": a period the way a person says it. */
void tui_period_text(char *buf, size_t len, uint64_t ns);
/* s wrapped at blanks (or after a '/') into at most maxlines rows, the
 * last on row bottom, each cleared first; returns the rows used. */
int tui_put_wrapped_up(struct tui *t, int bottom, const char *s, int maxlines, enum style st);

/* values.c: metric values as shown */
int tui_is_rate_kind(enum gt_show s);
double tui_per_interval(const struct tui *t, size_t m, double v);
double tui_shown_value(const struct tui *t, size_t m, double v);
double tui_metric_value(const struct tui *t, size_t m, int inst);
/* The sample just taken: counts per interval (t->vals, see
 * tui_per_interval) and the history's entries (t->hist_row). */
void tui_interval_values(struct tui *t);
double tui_history_shown(const struct tui *t, size_t m, double entry);
/* A header figure's value (busy, clock), when the layout names one the
 * source can feed and a snapshot has arrived: 1, else 0. */
int tui_header_figure(const struct tui *t, enum gt_header_fig f, double *v);
/* 1 when the header's busy figure is known and under TUI_IDLE_BUSY %. */
#define TUI_IDLE_BUSY 10
int tui_gpu_idle(const struct tui *t);

/* header.c */
void tui_draw_header(struct tui *t);
/* The source's error or warning, or a replay's damage, above the footer,
 * over the body's last rows when it needs more than one. */
void tui_draw_alert(struct tui *t);
void tui_draw_tabs(struct tui *t);
void tui_tabs_free(struct tui *t);
long tui_tab_at(const struct tui *t, int x);   /* section under column x, -1 none */
#define TUI_TAB_PROCS (-2)                      /* tui_tab_at: the Processes tab */

#define TUI_SPARK_MAX 120            /* the history kept: a sparkline's longest */
/* rows.c: the page's row list */
int tui_add_row(struct tui *t, enum row_kind k, size_t idx, int inst);

/* view_section.c: the rows of the current section */
void tui_build_rows(struct tui *t);
void tui_keep_selection_visible(struct tui *t);
void tui_draw_body(struct tui *t);
int tui_body_height(void);
/* Metric m's value with its unit, the unit shortened past width columns. */
void tui_value_text(const struct tui *t, size_t m, double v, char *buf, size_t len, size_t width);

/* view_percore.c: a metric per instance (shader core, L2 slice, cluster):
 * one row each, or a compact strip of several per line, and a line with
 * min / max / spread */
void tui_percore_add_rows(struct tui *t, size_t g, size_t m);
int tui_percore_available(const struct tui *t, size_t g);
void tui_percore_name(const struct tui *t, const struct row *r, char *buf, size_t len, int width);
double tui_percore_fraction(const struct tui *t, size_t m, double v);
/* Both draw in the panel of width columns from column x0. */
void tui_percore_draw_strip(struct tui *t, int y, const struct row *r, int x0, int width);
void tui_percore_draw_spread(struct tui *t, int y, const struct row *r, int x0, int width);

/* view_processes.c: DRM clients from /proc/PID/fdinfo */
void tui_draw_processes(struct tui *t);
void tui_processes_next_sort(struct tui *t);

/* view_triage.c */
void tui_draw_triage(struct tui *t, int y);
/* view_triage_panel.c: the evidence chain and the verdicts' shares */
void tui_count_verdict(struct tui *t, const char *verdict);
void tui_draw_triage_panel(struct tui *t);
/* Arrow and page keys scroll the open panel: 1 when ch was one. */
int tui_triage_panel_key(struct tui *t, int ch);

/* views.c: the header and the view that is up, with its frame */
void tui_draw_view(struct tui *t);

/* footer.c, help.c */
void tui_draw_footer(struct tui *t);
void tui_draw_help(struct tui *t);


/* terminal.c */
int tui_setup_terminal(struct tui *t, struct gt_diag *d);
void tui_close_terminal(struct tui *t);
int tui_suspend_pending(void);
void tui_drain_signals(struct tui *t);
void tui_suspend(void);
void tui_flush_cells(struct tui *t);
void tui_hand_back(struct tui *t);
void tui_repaint_all(struct tui *t);

/* wait.c: the loop's sleep until a refresh is due, a sample arrives (when
 * the refresh follows the samples), a key or a signal; what woke it. */
enum { WOKE_SAMPLE = 1, WOKE_INPUT = 2, WOKE_SIGNAL = 4 };
int tui_wait_open(struct tui *t, struct gt_diag *d);   /* -1: said in d */
int tui_wait(struct tui *t, uint64_t next, uint64_t refresh);
void tui_wait_close(struct tui *t);

/* keys.c: the next key as a key code, ERR when none is waiting */
int tui_next_key(struct tui *t);

/* replay.c: the dashboard during a replay */
int tui_replay_init(struct tui *t);             /* -1: out of memory */
int tui_replay_take(struct tui *t);             /* 1: a fresh record in t->snap */
/* Its keys' actions (rows of the key table, actions.c): pause / play,
 * step by one record (by: +1 / -1), seek to the first or last record
 * (last: 0 / 1), seek a tenth back or on (way: -1 / +1), and the speed
 * up or down (dir: +1 / -1). */
int tui_replay_toggle(struct tui *t, int arg);
int tui_replay_step(struct tui *t, int by);
int tui_replay_seek_end(struct tui *t, int last);
int tui_replay_seek_tenths(struct tui *t, int way);
int tui_replay_speed(struct tui *t, int dir);
void tui_replay_status(struct tui *t, struct gt_text *h);
int tui_replay_alert(struct tui *t, int y);     /* 1: a damage message drawn, its last row y */

/* actions.c: what keys do, and the table that binds them */
void tui_go_section(struct tui *t, size_t i);
int tui_handle_key(struct tui *t, int ch);     /* 1: quit */

/* What an action asks of the loop: nothing more, to quit, or that the key
 * be taken as a section's (the Processes view's 'o' elsewhere). */
enum { TUI_DONE, TUI_QUIT, TUI_PASS };
/* When a binding holds: always, only live, only while a capture plays. */
enum tui_mode { TUI_ANY, TUI_LIVE, TUI_REPLAY };

/* One row of the key table: a key, its action and what the help and the
 * footer say of it. */
struct tui_binding {
    int key;                         /* a key code; 0: said only (handled elsewhere) */
    int (*action)(struct tui *t, int arg);   /* TUI_DONE, TUI_QUIT or TUI_PASS */
    int arg;
    const char *name;                /* the keys as the help names them; NULL: one
                                      * more key of the named row above */
    const char *note;                /* what they do; NULL: the name says it */
    int join;                        /* the help goes on from the row above's line */
    enum tui_mode mode;
    int hint;                        /* its place among the footer's hints, from 1; 0 none */
    const char *hint_key, *hint_key_ascii;  /* the key in the hint; ascii NULL: the same */
    int hint_sections;               /* the layout's section keys follow hint_key */
    const char *hint_note;
};

const struct tui_binding *tui_bindings(size_t *n);
/* 1 when row b is in force in this mode (live or replay). */
int tui_binding_shown(const struct tui *t, const struct tui_binding *b);

#endif
