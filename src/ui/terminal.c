/* The terminal: opening it (with fallbacks for a missing terminfo entry),
 * styles, signals and Ctrl-Z, and writing each frame in one go. */
#include "tui_internal.h"
#include "gputop/terminfo.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const struct {
    short fg;
    unsigned attrs;
} styles[NSTYLES] = {
    [ST_PLAIN] = { -1, 0 },
    [ST_HEADER] = { COLOR_CYAN, GT_TERM_REVERSE },
    [ST_TAB] = { COLOR_CYAN, GT_TERM_REVERSE | GT_TERM_BOLD },
    [ST_HEADING] = { COLOR_CYAN, GT_TERM_BOLD },
    [ST_ALERT] = { COLOR_MAGENTA, GT_TERM_BOLD },
    [ST_SELECTED] = { -1, GT_TERM_REVERSE },
    [ST_DIM] = { COLOR_BLUE, 0 },
    [ST_LOW] = { COLOR_GREEN, 0 },
    [ST_MID] = { COLOR_YELLOW, 0 },
    [ST_HIGH] = { COLOR_RED, 0 },
    [ST_ACCENT] = { COLOR_CYAN, 0 },
};

/* Ctrl-Z and resizes while the dashboard runs. A signal handler reaches
 * the loop only through static storage; these are the dashboard's pieces
 * of it: the Ctrl-Z flag, the pipe that wakes the loop's wait (write end),
 * and ncurses' own SIGWINCH handler, which ours calls first. */
static volatile sig_atomic_t suspend_pending;
static volatile sig_atomic_t wake_pipe = -1;
static struct sigaction ncurses_winch;

/* All of it, through interrupted and partial writes and a terminal that
 * is not ready (non-blocking, or a slow link): returns 0, or -1 when the
 * terminal went away or stayed blocked for a second (SIGHUP ends us in the
 * first case; the caller redraws everything next time in the second). */
static int write_all(const char *p, size_t n)
{
    struct pollfd out = { STDOUT_FILENO, POLLOUT, 0 };

    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (poll(&out, 1, 1000) > 0)
                continue;
            return -1;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One write() a refresh, of only the cells that changed. */
void tui_flush_cells(struct tui *t)
{
    const char *bytes;
    size_t n = gt_termout_render(t->out, t->cells, &bytes);
    int r = write_all(bytes, n);

    /* What did not arrive is unknown on screen: all of it next time. */
    if (r < 0) {
        gt_cellbuf_invalidate(t->cells);
        gt_termout_forget(t->out);
    }
}

/* Before ncurses writes to the terminal again: our style off, the cursor
 * where ncurses left it. */
void tui_hand_back(struct tui *t)
{
    const char *bytes;
    size_t n = gt_termout_release(t->out, &bytes);

    if (write_all(bytes, n) < 0) {
        gt_cellbuf_invalidate(t->cells);
        gt_termout_forget(t->out);
    }
}

/* The whole screen is unknown (resized, or back from a suspend): ncurses
 * clears it, and the next frame is drawn whole. */
void tui_repaint_all(struct tui *t)
{
    tui_hand_back(t);
    clearok(curscr, TRUE);
    refresh();
    gt_cellbuf_invalidate(t->cells);
}

static int utf8_locale(void)
{
    const char *cs;

    /* The character set only: numbers keep the C locale's decimal point,
     * and the other categories need not be loaded. */
    setlocale(LC_CTYPE, "");
    cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

static SCREEN *try_term(const char *name, char *used, size_t len)
{
    SCREEN *s = newterm(name, stdout, stdin);

    if (s)
        snprintf(used, len, "%s", name);
    return s;
}

/* ncurses keeps a size in a short: a larger $LINES or $COLUMNS makes every
 * newterm() fail, which is the size's fault, not the description's. */
static int size_too_large(char *why, size_t whylen)
{
    static const char *const vars[] = { "LINES", "COLUMNS" };
    size_t i;

    for (i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > SHRT_MAX) {
            snprintf(why, whylen, "the terminal size %s=%ld is larger than ncurses can draw "
                     "(at most %d); unset %s to use the terminal's own size", vars[i], n,
                     SHRT_MAX, vars[i]);
            return 1;
        }
    }
    return 0;
}

/* newterm() with $TERM, then common entries from the system's database,
 * then the same from the built-in entries (phones have no database).
 * ncurses returns NULL rather than exiting when an entry is missing. */
static SCREEN *open_terminal(char *used, size_t len, char *why, size_t whylen)
{
    static const char *const fallbacks[] = { "xterm-256color", "xterm", "vt100", "linux" };
    const char *term = getenv("TERM");
    char dir[512];
    SCREEN *s = NULL;
    size_t i;

    if (term && strcmp(term, "dumb") == 0) {
        snprintf(why, whylen, "TERM=dumb cannot draw a dashboard");
        return NULL;
    }
    if (term && *term && (s = try_term(term, used, len)))
        return s;
    for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
        if ((s = try_term(fallbacks[i], used, len)))
            return s;
    if (gt_terminfo_install(dir, sizeof(dir), why, whylen) < 0)
        return NULL;
    if (term && *term && gt_terminfo_builtin(term) && (s = try_term(term, used, len)))
        return s;
    for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
        if ((s = try_term(fallbacks[i], used, len)))
            return s;
    if (!size_too_large(why, whylen))
        snprintf(why, whylen, "no usable terminal description for TERM=%s",
                 term ? term : "(unset)");
    return NULL;
}

static void restore_on_crash(int sig)
{
    endwin();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A byte down the pipe: the loop's wait returns, however the signal fell
 * (a handler run while the loop draws, or on another thread, interrupts
 * no wait). A full pipe already holds a wake-up. */
static void wake_loop(void)
{
    int saved = errno;

    if (wake_pipe >= 0 && write(wake_pipe, "", 1) < 0) {
        /* full: the loop is due to wake anyway */
    }
    errno = saved;
}

static void on_tstp(int sig)
{
    (void)sig;
    suspend_pending = 1;
    wake_loop();
}

/* ncurses' handler notes the new size (getch then returns KEY_RESIZE);
 * ours makes sure the loop calls getch. */
static void on_winch(int sig)
{
    if (ncurses_winch.sa_handler != SIG_DFL && ncurses_winch.sa_handler != SIG_IGN)
        ncurses_winch.sa_handler(sig);
    wake_loop();
}

/* Without this, a resize that lands while the loop is not in its wait (a
 * loaded machine: drawing, or waiting for a CPU) was seen only at the
 * next key. Set after newterm(), which installs ncurses' handler. */
static int catch_winch(struct tui *t)
{
    struct sigaction sa;
    int fds[2];

    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
        return -1;
    t->signal_fd = fds[0];
    wake_pipe = fds[1];
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_winch;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGWINCH, &sa, &ncurses_winch);
    return 0;
}

static void release_winch(struct tui *t)
{
    int w = wake_pipe;

    if (t->signal_fd < 0)
        return;
    sigaction(SIGWINCH, &ncurses_winch, NULL);
    /* Let go before closing: Ctrl-Z's handler stays and must not write
     * to a descriptor number opened again meanwhile. */
    wake_pipe = -1;
    close(w);
    close(t->signal_fd);
    t->signal_fd = -1;
}

/* Empties the wake-up pipe once the loop has woken. */
void tui_drain_signals(struct tui *t)
{
    char junk[64];

    while (t->signal_fd >= 0 && read(t->signal_fd, junk, sizeof(junk)) > 0) {
    }
}

/* Our own SIGTSTP handler, set before the screen opens: ncurses then
 * leaves the signal alone instead of swapping its handler around every
 * update (two system calls a refresh), and the loop suspends in its own
 * time. No SA_RESTART, so the keyboard wait returns at once. */
static void catch_tstp(struct tui *t)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_tstp;
    sigemptyset(&sa.sa_mask);
    suspend_pending = 0;
    sigaction(SIGTSTP, &sa, &t->old_tstp);
}

/* Leaves the screen, stops as Ctrl-Z would by default, and comes back on
 * SIGCONT; ncurses repaints everything on the next update. */
void tui_suspend(void)
{
    struct sigaction dfl, ours;

    suspend_pending = 0;
    endwin();
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    kill(getpid(), SIGTSTP);
    sigaction(SIGTSTP, &ours, NULL);
}

/* The styles' escape sequences, from the terminal's terminfo entry. */
static int setup_output(struct tui *t, struct gt_diag *d)
{
    const char *nc = getenv("NO_COLOR");
    struct gt_termout_caps caps;
    unsigned attrs[NSTYLES];
    short fg[NSTYLES];
    char buf[4096];
    int i;

    t->color = !t->cfg->no_color && !(nc && *nc) && has_colors();
    for (i = 0; i < NSTYLES; i++) {
        attrs[i] = styles[i].attrs;
        fg[i] = t->color ? styles[i].fg : -1;
    }
    if (gt_termout_caps_from_terminfo(&caps, attrs, fg, NSTYLES, !t->ascii, buf,
                                      sizeof(buf)) < 0) {
        gt_diag_set(d, "the terminal (TERM=%s) cannot move its cursor",
                    termname() ? termname() : "?");
        return -1;
    }
    t->out = gt_termout_new(&caps);
    if (!t->out) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    return 0;
}

int tui_setup_terminal(struct tui *t, struct gt_diag *d)
{
    char used[64] = "", why[300] = "";

    t->ascii = !utf8_locale();
    t->cells = gt_cellbuf_new(t->ascii);
    if (!t->cells) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    t->signal_fd = -1;
    catch_tstp(t);
    t->screen = open_terminal(used, sizeof(used), why, sizeof(why));
    if (!t->screen) {
        sigaction(SIGTSTP, &t->old_tstp, NULL);
        gt_diag_set(d, "%s", why);
        return -1;
    }
    set_term(t->screen);
    if (catch_winch(t) < 0) {
        endwin();
        sigaction(SIGTSTP, &t->old_tstp, NULL);
        delscreen(t->screen);
        gt_diag_set(d, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    signal(SIGSEGV, restore_on_crash);
    signal(SIGBUS, restore_on_crash);
    signal(SIGFPE, restore_on_crash);
    signal(SIGABRT, restore_on_crash);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    /* Without this, ncurses polls the keyboard between lines of every
     * update and flushes before each poll: dozens of small writes per
     * refresh instead of one. A keypress waits at most one refresh. */
    typeahead(-1);
    /* ncurses enters the terminal's full-screen mode and clears it; frames
     * are ours from here (termout.c), ncurses writes again only to clear
     * (resize, Ctrl-L, resume) and to leave. */
    refresh();
    if (setup_output(t, d) < 0) {
        endwin();
        release_winch(t);
        sigaction(SIGTSTP, &t->old_tstp, NULL);
        delscreen(t->screen);
        return -1;
    }
    if (!t->cfg->no_mouse)
        t->mouse = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL) != 0;
    return 0;
}

int tui_suspend_pending(void)
{
    return suspend_pending;
}

/* Leaves the screen and gives Ctrl-Z back its old meaning. */
void tui_close_terminal(struct tui *t)
{
    tui_hand_back(t);
    endwin();
    release_winch(t);
    sigaction(SIGTSTP, &t->old_tstp, NULL);
    delscreen(t->screen);
}
