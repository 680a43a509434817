/* Driving the real gputop binary in a tmux pane, as a person would. */
#include "tmux.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int counter;

const char *gputop_bin(void)
{
    const char *b = getenv("GPUTOP_BIN");

    return b && *b ? b : "./gputop";
}

static int run(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];

    snprintf(cmd, sizeof(cmd), fmt, a, b);
    return system(cmd);
}

/* Single-quotes s for sh. */
static void quote(char *out, size_t len, const char *s)
{
    size_t n = 0;

    out[n++] = '\'';
    for (; *s && n + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
}

/* A failed assertion ends the test before its tmux_stop(); the servers
 * this process started are killed when it exits, so no gputop is left
 * running behind a failed test. */
static void kill_leftovers(void)
{
    char sock[64];
    int i;

    for (i = 0; i < counter; i++) {
        snprintf(sock, sizeof(sock), "gputop-test-%d-%d", (int)getpid(), i);
        run("tmux -L %s kill-server >/dev/null 2>&1", sock, "");
    }
}

int tmux_start(struct tmux *t, int cols, int rows, const char *env, const char *cmd)
{
    char full[4096], q[4096], line[8400], size[32], conf[300];
    const char *tmp = getenv("TMPDIR");
    FILE *f;

    if (counter == 0)
        atexit(kill_leftovers);
    snprintf(t->socket, sizeof(t->socket), "gputop-test-%d-%d", (int)getpid(), counter++);
    snprintf(t->raw, sizeof(t->raw), "%s/%s.raw", tmp && *tmp ? tmp : "/tmp", t->socket);
    snprintf(full, sizeof(full), "%s %s", env ? env : "", cmd);
    quote(q, sizeof(q), full);
    snprintf(size, sizeof(size), "-x %d -y %d", cols, rows);
    /* A clean server: our config only (the pane stays after its command
     * exits, so a crash can be seen), a known TERM inside the pane. */
    snprintf(conf, sizeof(conf), "%s.conf", t->raw);
    f = fopen(conf, "w");
    if (!f)
        return -1;
    fputs("set -g remain-on-exit on\n", f);
    fclose(f);
    /* A fresh log: the name holds our pid, and pids come round again (32768
     * on a busy machine) while a failed test's log stays behind, which
     * pipe-pane's cat would append to. */
    f = fopen(t->raw, "w");
    if (!f)
        return -1;
    fclose(f);
    snprintf(line, sizeof(line),
             "tmux -L %s -f %s new-session -d %s -e TERM=xterm-256color sh -c %s",
             t->socket, conf, size, q);
    if (system(line) != 0)
        return -1;
    run("tmux -L %s pipe-pane -o 'cat >> %s'", t->socket, t->raw);
    return 0;
}

void tmux_keys(struct tmux *t, const char *keys)
{
    run("tmux -L %s send-keys %s 2>/dev/null", t->socket, keys);
}

void tmux_literal(struct tmux *t, const char *text)
{
    char q[512];

    quote(q, sizeof(q), text);
    run("tmux -L %s send-keys -l %s 2>/dev/null", t->socket, q);
}

void tmux_resize(struct tmux *t, int cols, int rows)
{
    char size[64];

    snprintf(size, sizeof(size), "-x %d -y %d", cols, rows);
    run("tmux -L %s resize-window %s", t->socket, size);
}

static char *capture(struct tmux *t, const char *flags)
{
    char cmd[256];
    size_t cap = 65536, n = 0, r;
    char *buf = malloc(cap);
    FILE *p;

    snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p %s 2>/dev/null", t->socket, flags);
    p = popen(cmd, "r");
    if (!p || !buf) {
        free(buf);
        return calloc(1, 1);
    }
    while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0)
        n += r;
    buf[n] = '\0';
    pclose(p);
    return buf;
}

char *tmux_capture(struct tmux *t)
{
    return capture(t, "");
}

char *tmux_capture_styled(struct tmux *t)
{
    return capture(t, "-e");
}

void tmux_line_of(const char *capture, int n, char *out, size_t len)
{
    const char *s = capture;

    for (; n > 0 && s; n--) {
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    snprintf(out, len, "%.*s", s ? (int)strcspn(s, "\n") : 0, s ? s : "");
}

char *tmux_wait_for(struct tmux *t, const char *text, int timeout_ms, int *found)
{
    struct timespec ts = { 0, 50 * 1000000L };
    int waited;
    char *s = NULL;

    for (waited = 0; waited <= timeout_ms; waited += 50) {
        free(s);
        s = tmux_capture(t);
        if (strstr(s, text)) {
            *found = 1;
            return s;
        }
        nanosleep(&ts, NULL);
    }
    *found = 0;
    return s;
}

/* The pane's log so far (malloc'd, NUL-terminated, *len bytes). */
char *tmux_raw(struct tmux *t, size_t *len)
{
    size_t cap = 65536, n = 0, r;
    char *buf = malloc(cap);
    FILE *f = fopen(t->raw, "rb");

    while (buf && f && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *more = realloc(buf, cap * 2);
            if (!more)
                break;
            buf = more;
            cap *= 2;
        }
    }
    if (f)
        fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* The log is written by pipe-pane's cat, a process of its own that may
 * run well after the pane's program wrote: polled until it has the
 * bytes, not read once. memmem, not strstr: the log may hold NULs. */
char *tmux_wait_raw(struct tmux *t, const char *bytes, int timeout_ms, size_t *len, int *found)
{
    struct timespec ts = { 0, 50 * 1000000L };
    int waited;
    char *s = NULL;

    for (waited = 0; waited <= timeout_ms; waited += 50) {
        free(s);
        s = tmux_raw(t, len);
        if (s && memmem(s, *len, bytes, strlen(bytes))) {
            *found = 1;
            return s;
        }
        nanosleep(&ts, NULL);
    }
    *found = 0;
    return s;
}

/* One of tmux's formats for the pane, e.g. "#{pane_pid}"; "" on failure. */
static void display(struct tmux *t, const char *format, char *out, size_t len)
{
    char cmd[256];
    FILE *p;

    out[0] = '\0';
    snprintf(cmd, sizeof(cmd), "tmux -L %s display-message -p '%s' 2>/dev/null", t->socket,
             format);
    p = popen(cmd, "r");
    if (!p)
        return;
    if (!fgets(out, (int)len, p))
        out[0] = '\0';
    pclose(p);
}

int tmux_pane_pid(struct tmux *t)
{
    char out[32];

    display(t, "#{pane_pid}", out, sizeof(out));
    return out[0] ? atoi(out) : -1;
}

int tmux_alive(struct tmux *t)
{
    char out[16];

    display(t, "#{pane_dead}", out, sizeof(out));
    return out[0] == '0';
}

void tmux_stop(struct tmux *t)
{
    char conf[300];

    run("tmux -L %s kill-server >/dev/null 2>&1", t->socket, "");
    unlink(t->raw);
    snprintf(conf, sizeof(conf), "%s.conf", t->raw);
    unlink(conf);
}
