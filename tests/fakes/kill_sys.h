/* Signals at a chosen point of a run: wraps any gt_sys (the fake kernels)
 * and, at the Nth call through the seam, sends the process a signal —
 * with that call then done as usual or, if the real kernel waits
 * interruptibly there (poll, a blocking read, an ioctl the fake names),
 * failed with EINTR — or creates a marker file for
 * a test that closes the terminal at that point. Counting the calls makes
 * a point reproducible where a delay would not be. */
#ifndef GPUTOP_TEST_KILL_SYS_H
#define GPUTOP_TEST_KILL_SYS_H

#include <stdatomic.h>
#include "gputop/sys.h"

struct kill_sys {
    const struct gt_sys *inner;
    struct gt_sys sys;          /* hand this to the code under test */
    long at;                    /* the call (1-based) that fires; 0 never */
    int sig;                    /* signal to send, or 0 with mark set */
    int eintr;                  /* 1: the call that fires fails with EINTR */
    unsigned long intr_req;     /* the ioctl a kernel interrupts (0: none) */
    char mark[256];             /* file to create instead of a signal */
    atomic_long calls;          /* calls through the seam so far */
};

/* Wraps inner; fires as GPUTOP_KILL_AT="N:SIG:r|i" says (r: the call goes
 * on, i: it fails with EINTR), or creates GPUTOP_KILL_MARK at call N.
 * Neither set: counts only. Returns -1 on a malformed variable. */
int ks_init_from_env(struct kill_sys *k, const struct gt_sys *inner);

/* The kernel waits interruptibly in ioctl req (panfrost PERFCNT_DUMP):
 * it may fail with EINTR when a signal arrives. */
void ks_interruptible_ioctl(struct kill_sys *k, unsigned long req);

#endif
