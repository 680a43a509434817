/* The dashboard's sleep between frames: one epoll instance a run watches
 * the keyboard, the signal pipe and the sampler's new-data eventfd, so a
 * refresh costs one wait and no read of the eventfd (issue 46). */
#include "tui_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

enum { WATCH_INPUT, WATCH_SIGNAL, WATCH_SAMPLE };

static int watch(int ep, int fd, uint32_t events, uint32_t what)
{
    struct epoll_event ev = { .events = events, .data.u32 = what };

    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* The eventfd is watched edge-triggered and never read. Linux's
 * fs/eventfd.c eventfd_write() adds to the counter and calls
 * wake_up_locked_poll(EPOLLIN) at every write, not only when the counter
 * leaves 0; fs/eventpoll.c ep_poll_callback() then puts the item back on
 * the ready list, and ep_send_events() leaves an EPOLLET item off it once
 * reported. So each write is one event, with the counter unread. A write
 * fails (EAGAIN, the sampler ignores it) only once the counter would pass
 * 0xfffffffffffffffe; the sampler writes at most once per
 * gt_sampler_wake_after(), which this loop calls at most once a wait:
 * 2^64 waits are not reached, and were they, the timeout past the sample
 * still draws. stdin and the signal pipe stay level-triggered: they are
 * read until empty by ncurses and tui_drain_signals anyway.
 * A stdin epoll refuses (a regular file or /dev/null: EPERM; closed,
 * EBADF, or its number taken since by one of the others, EEXIST) is one
 * poll() would call ready at every call: so is it here, until the
 * keyboard is given up (t->input_gone). */
int tui_wait_open(struct tui *t, struct gt_diag *d)
{
    t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (t->epoll_fd < 0) {
        gt_diag_set(d, "cannot make an epoll instance: %s", strerror(errno));
        return -1;
    }
    if ((t->signal_fd >= 0 && watch(t->epoll_fd, t->signal_fd, EPOLLIN, WATCH_SIGNAL) < 0) ||
        (t->wake_fd >= 0 && watch(t->epoll_fd, t->wake_fd, EPOLLIN | EPOLLET, WATCH_SAMPLE) < 0)) {
        gt_diag_set(d, "cannot watch the dashboard's descriptors with epoll: %s",
                    strerror(errno));
        tui_wait_close(t);
        return -1;
    }
    /* Last: with stdin closed at start, descriptor 0 may be one of those. */
    t->stdin_watched = watch(t->epoll_fd, STDIN_FILENO, EPOLLIN, WATCH_INPUT) == 0;
    return 0;
}

void tui_wait_close(struct tui *t)
{
    if (t->epoll_fd >= 0)
        close(t->epoll_fd);
    t->epoll_fd = -1;
}

/* Sleeps until a refresh is due or a key or signal arrives. While the
 * sampler runs at least as often as the screen refreshes, the refresh
 * follows the first sample after it is due (fresh data, and no timer of
 * our own to wake for); a timeout a little past that covers a late one.
 * A replay with a pace of its own wakes us at every record (the loop asked
 * for that); recorded sources without one give a record a refresh, on the
 * refresh grid (the sampler then waits for us, not we for it). Not paced,
 * the eventfd stays in the set but its events are ignored: the sampler
 * writes only when asked by gt_sampler_wake_after(), so an ask left over
 * from a paced wait wakes us at most once more. */
int tui_wait(struct tui *t, uint64_t next, uint64_t refresh)
{
    struct epoll_event ev[3];
    uint64_t interval = gt_sampler_interval(t->cfg->sampler), now = gt_now_ns(), until = next;
    int paced = t->wake_fd >= 0 && !t->self_paced && t->sampler_live && interval <= refresh;
    int woke = 0, ms, n, i;

    if (t->replay_paced && t->wake_fd >= 0)
        paced = 1;
    else if (paced) {
        gt_sampler_wake_after(t->cfg->sampler, next);
        until = next + interval + interval / 2;
    }
    /* Given up: not watched again (one system call, once). */
    if (t->input_gone && t->stdin_watched) {
        epoll_ctl(t->epoll_fd, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
        t->stdin_watched = 0;
    }
    ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
    if (!t->input_gone && !t->stdin_watched) {
        woke |= WOKE_INPUT;
        ms = 0;
    }
    n = epoll_wait(t->epoll_fd, ev, 3, ms);
    if (n < 0)
        return errno == EINTR ? woke | WOKE_SIGNAL : woke;    /* maybe a resize */
    for (i = 0; i < n; i++) {
        switch (ev[i].data.u32) {
        case WATCH_SIGNAL:
            /* A resize or Ctrl-Z, whenever it came: ncurses has the size. */
            tui_drain_signals(t);
            woke |= WOKE_SIGNAL;
            break;
        case WATCH_SAMPLE:
            if (paced)
                woke |= WOKE_SAMPLE;
            break;
        default:
            woke |= WOKE_INPUT;
        }
    }
    return woke;
}
