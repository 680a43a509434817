/* Driving the real gputop binary in a tmux pane, as a person would. */
#ifndef GPUTOP_TEST_TMUX_H
#define GPUTOP_TEST_TMUX_H

#include <stddef.h>

struct tmux {
    char socket[64];
    char raw[256];     /* file receiving every byte written to the pane */
};

/* Starts cmd (run by sh) in a detached session of cols x rows; env is
 * prepended as "VAR=value ..." (may be ""). Returns 0 or -1. */
int  tmux_start(struct tmux *t, int cols, int rows, const char *env, const char *cmd);
void tmux_keys(struct tmux *t, const char *keys);      /* tmux send-keys syntax */
void tmux_literal(struct tmux *t, const char *text);  /* send-keys -l */
void tmux_resize(struct tmux *t, int cols, int rows);
/* The visible pane as text (malloc'd). */
char *tmux_capture(struct tmux *t);
/* The same with colours and attributes as escape sequences. */
char *tmux_capture_styled(struct tmux *t);
/* Line n (0-based) of a capture, copied into out ("" past its end). */
void tmux_line_of(const char *capture, int n, char *out, size_t len);
/* Polls the pane until it contains text or timeout_ms passes; returns the
 * last capture (malloc'd) and sets *found. */
char *tmux_wait_for(struct tmux *t, const char *text, int timeout_ms, int *found);
/* Everything written to the pane so far, from its log (malloc'd; *len
 * bytes, NUL-terminated). */
char *tmux_raw(struct tmux *t, size_t *len);
/* Polls the log until it holds bytes or timeout_ms passes; returns the
 * last read (malloc'd) and sets *found. */
char *tmux_wait_raw(struct tmux *t, const char *bytes, int timeout_ms, size_t *len, int *found);
/* The process id of the pane's command (sh, or what it exec'd), or -1. */
int  tmux_pane_pid(struct tmux *t);
/* 1 while the pane's command is still running. */
int  tmux_alive(struct tmux *t);
void tmux_stop(struct tmux *t);
/* The gputop binary under test. */
const char *gputop_bin(void);

#endif
