/* Talking to servers on loopback as a client would, and running the
 * gputop binary in the background with its stderr readable. */
#ifndef GPUTOP_TEST_LOOPBACK_H
#define GPUTOP_TEST_LOOPBACK_H

#include <stddef.h>
#include <sys/types.h>

/* Connects to 127.0.0.1:port, sends len bytes of req (keeps the socket
 * open for hold_ms more without sending), then reads until the server
 * closes or timeout_ms passes. Returns the answer (malloc'd, terminated;
 * *len its length) or NULL when it could not connect. */
char *loopback_exchange(int port, const char *req, size_t reqlen, int hold_ms, int timeout_ms,
                        size_t *len);
/* A client that connects to 127.0.0.1:port and says nothing: the socket
 * (its connection made, or still being made after timeout_ms), or -1. */
int loopback_idle(int port, int timeout_ms);
/* GET path, HTTP/1.1; the status in *status, the body returned (malloc'd)
 * or NULL. */
char *loopback_get(int port, const char *path, int *status);
/* A port nobody listens on now (bound to 0, read back, released). */
int loopback_free_port(void);

struct bg_proc {
    pid_t pid;
    int err_fd;          /* read end of its stderr */
    char err[8192];      /* what was read of it so far */
    size_t err_len;
};

/* Starts argv[0] (a path) with argv, stdout to /dev/null, stderr piped. */
int  bg_start(struct bg_proc *p, char *const argv[]);
/* Reads stderr until it contains text or timeout_ms passes; 1 if found. */
int  bg_wait_err(struct bg_proc *p, const char *text, int timeout_ms);
/* The port of gputop --serve 127.0.0.1:0, read from the address it says
 * on stderr within timeout_ms; -1 when it says none. */
int  bg_served_port(struct bg_proc *p, int timeout_ms);
/* Sends sig, waits up to timeout_ms, then SIGKILL; returns the wait status. */
int  bg_stop(struct bg_proc *p, int sig, int timeout_ms);

#endif
