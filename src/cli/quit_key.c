/* When no terminal can draw the dashboard (TERM=dumb), text records stand
 * in for it, and q must still quit: a thread of its own reads standard
 * input and stops the run as Ctrl-C does, by the same signal. */
#include "quit_key.h"
#include "gputop/thread.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

struct gt_quit_key {
    pthread_t thread;
    int started;
    int stop_pipe[2];
    int raw;                     /* the terminal's mode was changed */
    struct termios saved;
};

static void *watch(void *arg)
{
    struct gt_quit_key *k = arg;
    char buf[64];

    for (;;) {
        struct pollfd pf[2] = { { STDIN_FILENO, POLLIN, 0 }, { k->stop_pipe[0], POLLIN, 0 } };
        ssize_t n;
        if (poll(pf, 2, -1) < 0)
            continue;
        if (pf[1].revents)
            return NULL;
        n = read(STDIN_FILENO, buf, sizeof(buf));
        if (n <= 0)
            return NULL;          /* closed: only the signals stop the run now */
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == 'q' || buf[i] == 'Q') {
                kill(getpid(), SIGINT);
                return NULL;
            }
    }
}

struct gt_quit_key *gt_quit_key_start(void)
{
    struct gt_quit_key *k = calloc(1, sizeof(*k));
    struct termios t;

    if (!k)
        return NULL;
    if (pipe2(k->stop_pipe, O_CLOEXEC) < 0) {
        free(k);
        return NULL;
    }
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &k->saved) == 0) {
        t = k->saved;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        k->raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
    }
    k->started = gt_thread_start(&k->thread, "gputop-keys", watch, k) == 0;
    if (!k->started) {
        gt_quit_key_stop(k);
        return NULL;
    }
    return k;
}

void gt_quit_key_stop(struct gt_quit_key *k)
{
    if (!k)
        return;
    if (k->started) {
        if (write(k->stop_pipe[1], "x", 1) < 0) {
            /* a one-byte write to an empty pipe does not fail */
        }
        pthread_join(k->thread, NULL);
    }
    if (k->raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &k->saved);
    close(k->stop_pipe[0]);
    close(k->stop_pipe[1]);
    free(k);
}
