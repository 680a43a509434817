/* The signals that end a run (SIGINT, SIGTERM, SIGHUP), shared by gputop
 * and the test binaries that run it on fake kernels, so both stop alike. */
#include "gputop/cli.h"

#include <signal.h>
#include <string.h>

/* A handler reaches the run loops only through static storage: this flag
 * is all of it, and nothing but the handler writes it. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

volatile sig_atomic_t *gt_install_stop_signals(void)
{
    struct sigaction sa;

    /* No SA_RESTART: a blocking call returns EINTR, so a source waiting
     * in the kernel gets back to its loop and sees the flag. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* The terminal went away (a closed ssh session, tmux kill-session):
     * stop as for SIGTERM, so the hardware is put back. */
    sigaction(SIGHUP, &sa, NULL);
    /* A closed pipe (gputop | head) is a write error to end on, not a kill. */
    signal(SIGPIPE, SIG_IGN);
    /* Likewise the file-size limit (a full quota, ulimit -f) while
     * recording: the write fails with EFBIG and the user is told. */
    signal(SIGXFSZ, SIG_IGN);
    return &stop_requested;
}
