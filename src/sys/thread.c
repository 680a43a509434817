/* Starting worker threads with the process-wide signals blocked (the mask
 * a thread inherits is its creator's at pthread_create), so only the main
 * thread handles them. */
#include "gputop/thread.h"

#include <signal.h>

int gt_thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg)
{
    /* A fault is raised on the thread that caused it and is never
     * redirected; blocked, it kills the process outright (the kernel's
     * force_sig_info_to_task unblocks and sets it to the default action),
     * skipping the crash handler that restores the terminal and the MIPS
     * source's guard around the GCR block. So faults stay deliverable. */
    static const int faults[] = { SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
    sigset_t mask, old;
    unsigned i;
    int err;

    sigfillset(&mask);
    for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(&mask, faults[i]);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    err = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* Named, so that top -H, ps -T and /proc/PID/task/TID/comm say which
     * thread costs what; a name is a help, never a reason to fail. */
    if (err == 0 && name)
        pthread_setname_np(*t, name);
    return err;
}
