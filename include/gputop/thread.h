/* Worker threads that never take a process-wide signal. */
#ifndef GPUTOP_THREAD_H
#define GPUTOP_THREAD_H

#include <pthread.h>

/* pthread_create with every signal but the synchronous faults (SIGBUS,
 * SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGSYS) blocked in the new thread, so
 * SIGINT, SIGTERM, SIGWINCH, SIGTSTP and the rest are delivered to the
 * main thread only: its handlers' flags are then written by the thread
 * that reads them, and its poll() is the call they interrupt. name (at
 * most 15 characters, or NULL) is what ps -T and top -H show for it.
 * Returns pthread_create's result (0 or an error number). */
int gt_thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg);

#endif
