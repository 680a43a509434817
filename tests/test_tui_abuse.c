/* The dashboard under a hostile terminal: resize storms down to 1x1,
 * SIGWINCH floods, suspend/resume storms, a closed stdin, and a terminal
 * that stops reading. gputop must neither crash nor hang. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 15000

static void expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

static void start(struct tmux *t, const char *args)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "exec %s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, 80, 24, "", cmd), 0, "tmux did not start");
    expect(t, "gputop");
}

/* Back at 80x24 the dashboard is whole again and still answers keys. */
static void still_works(struct tmux *t)
{
    tmux_resize(t, 80, 24);
    tmux_literal(t, "h");
    expect(t, "gputop keys");
    tmux_literal(t, "x");
    expect(t, "GPU usage");
    cr_assert(tmux_alive(t));
}

Test(tui_abuse, resize_storm_with_random_sizes_down_to_1x1, .timeout = 240)
{
    struct tmux t;
    unsigned seed = 18;

    start(&t, "--source sim:mali-t8xx --no-cpu --interval 1ms --refresh 10ms");
    for (int i = 0; i < 300; i++) {
        int cols = 1 + (int)(rand_r(&seed) % 220), rows = 1 + (int)(rand_r(&seed) % 70);
        if (i % 10 == 0)
            cols = rows = 1;
        tmux_resize(&t, cols, rows);
    }
    cr_assert(tmux_alive(&t), "gputop died in the resize storm");
    still_works(&t);
    tmux_stop(&t);
}

Test(tui_abuse, sigwinch_flood_and_suspend_resume_storm, .timeout = 240)
{
    struct tmux t;
    int pid;

    start(&t, "--source sim:mali-t8xx --no-cpu --interval 1ms --refresh 10ms");
    pid = tmux_pane_pid(&t);
    cr_assert_gt(pid, 0);
    for (int i = 0; i < 1000; i++)
        kill(pid, SIGWINCH);
    for (int i = 0; i < 100; i++) {
        kill(pid, SIGTSTP);
        kill(pid, SIGCONT);
    }
    kill(pid, SIGCONT);
    still_works(&t);
    tmux_stop(&t);
}

/* stdin closed (not just at end of file): the dashboard runs on, and
 * SIGTERM ends it normally. */
Test(tui_abuse, stdin_closed, .timeout = 120)
{
    struct tmux t;
    char cmd[1024], pidfile[256];
    const char *dir = getenv("TMPDIR");
    FILE *f;
    int pid = 0;

    snprintf(pidfile, sizeof(pidfile), "%s/gputop-abuse-%ld.pid", dir && *dir ? dir : "/tmp",
             (long)getpid());
    /* The inner sh writes its pid and becomes gputop, with fd 0 closed. */
    snprintf(cmd, sizeof(cmd),
             "sh -c 'echo $$ > %s; exec %s --source sim:mali-t8xx --no-cpu 0<&-'; "
             "echo EXIT=$?; sleep 60", pidfile, gputop_bin());
    cr_assert_eq(tmux_start(&t, 80, 24, "", cmd), 0);
    expect(&t, "GPU usage");
    expect(&t, "live");
    f = fopen(pidfile, "r");
    cr_assert_not_null(f);
    cr_assert_eq(fscanf(f, "%d", &pid), 1);
    fclose(f);
    unlink(pidfile);
    cr_assert_gt(pid, 0);
    kill(pid, SIGTERM);
    expect(&t, "EXIT=0");
    tmux_stop(&t);
}

/* A terminal that stops reading: gputop on a pty nobody drains blocks in
 * write. Once the terminal reads again it must answer 'q' and exit 0. */
static pid_t on_pty(int *master, const char *args)
{
    struct winsize ws = { 24, 80, 0, 0 };
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    pid_t pid;

    cr_assert_geq(m, 0);
    cr_assert_eq(grantpt(m), 0);
    cr_assert_eq(unlockpt(m), 0);
    ioctl(m, TIOCSWINSZ, &ws);
    pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char cmd[1024];
        int sl;
        setsid();
        sl = open(ptsname(m), O_RDWR);
        if (sl < 0)
            _exit(126);
        ioctl(sl, TIOCSCTTY, 0);
        dup2(sl, 0);
        dup2(sl, 1);
        dup2(sl, 2);
        close(m);
        setenv("TERM", "xterm-256color", 1);
        snprintf(cmd, sizeof(cmd), "exec %s %s", gputop_bin(), args);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    *master = m;
    return pid;
}

/* Reads the pty until the child exits or timeout_ms passes; its status. */
static int drain_until_exit(int m, pid_t pid, int timeout_ms, int *status)
{
    char buf[4096];

    for (int waited = 0; waited < timeout_ms; waited += 10) {
        struct pollfd p = { m, POLLIN, 0 };
        if (waitpid(pid, status, WNOHANG) == pid)
            return 0;
        if (poll(&p, 1, 10) > 0 && read(m, buf, sizeof(buf)) < 0 && errno != EINTR &&
            errno != EAGAIN)
            continue;
    }
    return -1;
}

Test(tui_abuse, terminal_that_stops_reading, .timeout = 120)
{
    struct timespec pause = { 3, 0 };
    int m, status;
    pid_t pid = on_pty(&m, "--source sim:mali-t8xx --no-cpu --interval 1ms --refresh 10ms");

    /* Nobody reads: a few frames fill the pty, then gputop's writes block.
     * Resizes and a key arrive meanwhile. */
    nanosleep(&pause, NULL);
    for (int i = 0; i < 50; i++) {
        struct winsize ws = { (unsigned short)(1 + i % 40), (unsigned short)(1 + i * 3 % 150), 0, 0 };
        ioctl(m, TIOCSWINSZ, &ws);
        kill(pid, SIGWINCH);
    }
    cr_assert_eq(write(m, "q", 1), 1);
    cr_assert_eq(drain_until_exit(m, pid, 60000, &status), 0, "gputop hung once read again");
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    close(m);
}

/* ---- odd environments (issue 44 item 8) ---- */

/* Runs gputop in a pane with env prepended. Its stderr goes to a file,
 * shown after the exit status once it ends: text records scroll a line
 * on the pane away within a refresh. */
static void start_env(struct tmux *t, const char *env)
{
    const char *dir = getenv("TMPDIR");
    char cmd[1024], err[256];

    snprintf(err, sizeof(err), "%s/gputop-abuse-%ld.err", dir && *dir ? dir : "/tmp",
             (long)getpid());
    snprintf(cmd, sizeof(cmd), "%s %s --source sim:mali-t8xx --no-cpu -i 500ms 2>%s; "
             "echo EXIT=$?; cat %s; rm -f %s; sleep 60", env, gputop_bin(), err, err, err);
    cr_assert_eq(tmux_start(t, 200, 40, "", cmd), 0, "tmux did not start");
}

/* q ends the run, which then ends well (under ASan, LeakSanitizer's
 * report at exit would make the status 23), and said first on stderr.
 * running: text on the screen while it runs, in every refresh: in the
 * last 40 lines of each record too, which are all the pane keeps of one
 * longer than that (the Power & clocks section makes it 112 lines). */
static void quits_with_q(const char *env, const char *running, const char *said)
{
    struct tmux t;

    start_env(&t, env);
    expect(&t, running);
    tmux_literal(&t, "q");
    expect(&t, "EXIT=0");
    if (said)
        expect(&t, said);
    tmux_stop(&t);
}

/* A size ncurses cannot hold is said to be the problem, not TERM; the
 * text records that stand in for the dashboard quit on q. */
Test(tui_abuse, a_huge_size_is_named_as_the_problem, .timeout = 60)
{
    quits_with_q("COLUMNS=100000 LINES=100000 TERM=xterm", " %",
                 "the terminal size LINES=100000 is larger than ncurses can draw");
}

/* TERM=dumb prints text records instead of the dashboard; q still quits
 * them (at once: the terminal is not waiting for a whole line). */
Test(tui_abuse, q_quits_the_text_records_of_a_dumb_terminal, .timeout = 60)
{
    quits_with_q("TERM=dumb", " %", "TERM=dumb cannot draw a dashboard");
}

/* An unknown TERM falls back to a known entry and leaves nothing behind. */
Test(tui_abuse, an_unknown_term_falls_back_without_a_leak, .timeout = 60)
{
    quits_with_q("TERM=gputop-no-such-terminal", "GPU usage", NULL);
}
