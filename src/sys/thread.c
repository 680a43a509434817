/* Starting worker threads with all signals blocked (the mask a thread
 * inherits is its creator's at pthread_create), so only the main thread
 * handles signals. */
#include "gputop/thread.h"

#include <signal.h>

int gt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    int err;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}
