/* A minimal HTTP/1.1 server for the metrics endpoint: one thread serving
 * up to 16 connections side by side (poll, a deadline each; idle clients
 * never keep a scrape waiting), a bounded request head read within its
 * deadline, one answer, then the connection is closed. Anything malformed
 * is answered 400 and never reaches the handler. */
#include "gputop/export.h"
#include "gputop/thread.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct gt_http {
    int fd, stop_pipe[2], port;
    gt_http_handler fn;
    void *arg;
    pthread_t thread;
    pthread_mutex_t lock;
    uint64_t served, bad;    /* under lock */
    atomic_int stopping;
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_port(const char *s, struct gt_diag *d, const char *spec)
{
    char *end;
    long n;

    if (!*s) {
        gt_diag_set(d, "--serve %s: no port (use e.g. 127.0.0.1:9100 or :9100)", spec);
        return -1;
    }
    n = strtol(s, &end, 10);
    if (*end || !isdigit((unsigned char)*s) || n < 0 || n > 65535) {
        gt_diag_set(d, "--serve %s: port '%s' is not a number from 0 to 65535", spec, s);
        return -1;
    }
    return 0;
}

int gt_http_parse_addr(const char *spec, char *host, size_t hlen, char *port, size_t plen,
                       struct gt_diag *d)
{
    const char *colon = strrchr(spec, ':');
    const char *h = "127.0.0.1";
    size_t n = 0;

    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':') {
            gt_diag_set(d, "--serve %s: an IPv6 address is written [ADDR]:PORT", spec);
            return -1;
        }
        h = spec + 1;
        n = (size_t)(close - h);
        colon = close + 1;
    } else if (colon) {
        h = colon > spec ? spec : h;
        n = colon > spec ? (size_t)(colon - spec) : strlen(h);
    } else {
        n = strlen(h);
    }
    if (n == 0 || n >= hlen) {
        gt_diag_set(d, "--serve %s: bad address", spec);
        return -1;
    }
    snprintf(host, hlen, "%.*s", (int)n, h);
    snprintf(port, plen, "%s", colon ? colon + 1 : spec);
    return parse_port(port, d, spec);
}

/* ---- connections, served side by side ---- */

/* Open at once: past this the oldest still waiting for its request is
 * dropped, so idle clients can never keep a scrape out. */
#define MAX_CONNS  16
#define DRAIN_MS   200          /* reading what a client still sends, at the end */
#define DRAIN_MAX  65536

enum phase { READING, WRITING, DRAINING };

struct conn {
    int fd;
    enum phase phase;
    int64_t opened;              /* when accepted: the oldest idle goes first */
    int64_t deadline;            /* of the phase */
    size_t len;                  /* of head */
    char head[GT_HTTP_MAX_REQUEST];
    char *out;                   /* the answer, head and body */
    size_t out_len, out_off, drained;
};

static void conn_close(struct conn *c)
{
    close(c->fd);
    free(c->out);
    c->out = NULL;
    c->fd = -1;
}

/* Queues the answer; it is sent as the client takes it, within its own
 * time (a slow client has used the first). */
static void answer(struct conn *c, int status, const char *type, const char *body, size_t len,
                   int head_only)
{
    const char *reason = status == 200 ? "OK" : status == 400 ? "Bad Request"
                       : status == 404 ? "Not Found" : status == 405 ? "Method Not Allowed"
                       : status == 408 ? "Request Timeout"
                       : status == 431 ? "Request Header Fields Too Large"
                       : "Internal Server Error";
    char head[512];
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "%sConnection: close\r\n\r\n",
                     status, reason, type, len, status == 405 ? "Allow: GET, HEAD\r\n" : "");
    size_t blen = head_only ? 0 : len;

    c->phase = WRITING;
    c->deadline = now_ms() + GT_HTTP_TIMEOUT_MS;
    c->out_off = 0;
    c->out = malloc((size_t)n + blen);
    if (!c->out) {
        c->out_len = 0;
        return;
    }
    memcpy(c->out, head, (size_t)n);
    if (blen)
        memcpy(c->out + n, body, blen);
    c->out_len = (size_t)n + blen;
}

static void refuse(struct gt_http *h, struct conn *c, int status, const char *why)
{
    char body[160];

    snprintf(body, sizeof(body), "gputop: %s\n", why);
    answer(c, status, "text/plain; charset=utf-8", body, strlen(body), 0);
    pthread_mutex_lock(&h->lock);
    h->bad++;
    pthread_mutex_unlock(&h->lock);
}

static int is_tchar(int c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "GET /metrics?x HTTP/1.1" -> method and path (query dropped);
 * header lines must be "Name: value". Returns 0 or -1 (malformed). */
static int parse_request(char *head, char **method, char **path)
{
    char *line_end = strchr(head, '\n'), *sp1, *sp2, *p, *q;

    if (!line_end)
        return -1;
    *line_end = '\0';
    if (line_end > head && line_end[-1] == '\r')
        line_end[-1] = '\0';
    sp1 = strchr(head, ' ');
    if (!sp1 || sp1 == head)
        return -1;
    sp2 = strchr(sp1 + 1, ' ');
    if (!sp2 || (strcmp(sp2 + 1, "HTTP/1.1") != 0 && strcmp(sp2 + 1, "HTTP/1.0") != 0))
        return -1;
    *sp1 = *sp2 = '\0';
    for (p = head; *p; p++)
        if (!is_tchar((unsigned char)*p))
            return -1;
    if (sp1[1] != '/')
        return -1;
    for (p = sp1 + 1; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p == 0x7f)
            return -1;
    *method = head;
    *path = sp1 + 1;
    (*path)[strcspn(*path, "?#")] = '\0';
    /* Headers: up to the blank line. */
    for (p = line_end + 1; *p && *p != '\r' && *p != '\n'; p = q + 1) {
        char *colon = strchr(p, ':');
        q = strchr(p, '\n');
        if (!q || !colon || colon > q || colon == p)
            return -1;
        for (char *c = p; c < colon; c++)
            if (!is_tchar((unsigned char)*c))
                return -1;
    }
    return 0;
}

/* A whole request head: the handler's answer, or why not. */
static void handle(struct gt_http *h, struct conn *c)
{
    char *method, *path, *body = NULL;
    const char *type = "text/plain; charset=utf-8";
    size_t len = 0;
    int status, head_only;

    if (parse_request(c->head, &method, &path) < 0) {
        refuse(h, c, 400, "malformed request");
        return;
    }
    head_only = strcmp(method, "HEAD") == 0;
    if (!head_only && strcmp(method, "GET") != 0) {
        refuse(h, c, 405, "only GET and HEAD");
        return;
    }
    status = h->fn(h->arg, path, &body, &len, &type);
    if (status < 0)
        answer(c, 500, type, "gputop: out of memory\n", 22, head_only);
    else
        answer(c, status, type, body, len, head_only);
    free(body);
    pthread_mutex_lock(&h->lock);
    h->served++;
    pthread_mutex_unlock(&h->lock);
}

/* After a recv or send that moved nothing: 1 to try again once poll says
 * so (nothing there yet, or a signal), 0 when the peer is gone. */
static int later(ssize_t r)
{
    return r < 0 && (errno == EAGAIN || errno == EINTR);
}

/* Reads what has come of the head; 0 when the peer left without one. */
static int read_some(struct gt_http *h, struct conn *c)
{
    for (;;) {
        ssize_t r;
        if (c->len == sizeof(c->head) - 1) {
            refuse(h, c, 431, "request head too large");
            return 1;
        }
        r = recv(c->fd, c->head + c->len, sizeof(c->head) - 1 - c->len, MSG_DONTWAIT);
        if (r <= 0)
            return later(r);
        c->len += (size_t)r;
        c->head[c->len] = '\0';
        if (strstr(c->head, "\r\n\r\n") || strstr(c->head, "\n\n")) {
            handle(h, c);
            return 1;
        }
        if (memchr(c->head, '\0', c->len)) {
            refuse(h, c, 400, "malformed request");
            return 1;
        }
    }
}

/* Sends what the client takes; then stops sending and reads what it
 * still sends, for a short bounded while: closing with unread input
 * makes the kernel reset the connection, and the client may lose the
 * answer. 0 once the connection is done with. */
static int write_some(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w <= 0)
            return later(w);
        c->out_off += (size_t)w;
    }
    shutdown(c->fd, SHUT_WR);
    c->phase = DRAINING;
    c->deadline = now_ms() + DRAIN_MS;
    return 1;
}

static int drain_some(struct conn *c)
{
    char buf[4096];

    while (c->drained < DRAIN_MAX) {
        ssize_t r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r <= 0)
            return later(r);
        c->drained += (size_t)r;
    }
    return 0;
}

/* One step of c after poll; 0 when it is to be closed. */
static int step(struct gt_http *h, struct conn *c, short revents, int64_t now)
{
    int ready = revents != 0;

    if (c->phase == READING) {
        if (ready && !read_some(h, c))
            return 0;
        if (c->phase == READING && now >= c->deadline)
            refuse(h, c, 408, "request not received in time");
        if (c->phase == WRITING)
            return write_some(c);
        return 1;
    }
    if (now >= c->deadline)
        return 0;
    if (c->phase == WRITING)
        return !ready || write_some(c);
    return !ready || drain_some(c);
}

/* Room for one more: the connection that has waited longest for its
 * request goes; -1 when all are answering (then none is accepted yet). */
static int oldest_idle(const struct conn *c, size_t n)
{
    int best = -1;
    size_t i;

    for (i = 0; i < n; i++)
        if (c[i].phase == READING && (best < 0 || c[i].opened < c[best].opened))
            best = (int)i;
    return best;
}

static void accept_one(struct gt_http *h, struct conn *c, size_t *n, struct pollfd *stop)
{
    int fd, i;

    if (*n == MAX_CONNS) {
        i = oldest_idle(c, *n);
        if (i < 0)
            return;
        conn_close(&c[i]);
        c[i] = c[--*n];
    }
    fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        /* Out of descriptors or memory: wait a little rather than spin. */
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            poll(stop, 1, 100);
        return;
    }
    memset(&c[*n], 0, offsetof(struct conn, head));
    c[*n].fd = fd;
    c[*n].phase = READING;
    c[*n].opened = now_ms();
    c[*n].deadline = c[*n].opened + GT_HTTP_TIMEOUT_MS;
    c[*n].head[0] = '\0';
    c[*n].out = NULL;
    c[*n].out_len = c[*n].out_off = c[*n].drained = 0;
    (*n)++;
}

/* The poll timeout: up to the nearest deadline. */
static int wait_ms(const struct conn *c, size_t n)
{
    int64_t next = -1, now = now_ms();
    size_t i;

    for (i = 0; i < n; i++)
        if (next < 0 || c[i].deadline < next)
            next = c[i].deadline;
    if (next < 0)
        return -1;
    return next <= now ? 0 : next - now > 60000 ? 60000 : (int)(next - now);
}

static void *server_main(void *arg)
{
    struct gt_http *h = arg;
    struct pollfd pf[MAX_CONNS + 2];
    struct conn *c = malloc(MAX_CONNS * sizeof(*c));
    size_t n = 0, i;

    if (!c)
        return NULL;
    for (;;) {
        /* The listener is left out while every slot answers a request. */
        int full = n == MAX_CONNS && oldest_idle(c, n) < 0;
        pf[0] = (struct pollfd){ h->stop_pipe[0], POLLIN, 0 };
        pf[1] = (struct pollfd){ full ? -1 : h->fd, POLLIN, 0 };
        for (i = 0; i < n; i++)
            pf[i + 2] = (struct pollfd){ c[i].fd, c[i].phase == WRITING ? POLLOUT : POLLIN, 0 };
        if (poll(pf, n + 2, wait_ms(c, n)) < 0 && errno != EINTR)
            break;
        if (pf[0].revents || atomic_load(&h->stopping))
            break;
        /* Backwards, so that a closed connection's slot takes one already stepped. */
        for (i = n; i-- > 0;)
            if (!step(h, &c[i], pf[i + 2].revents, now_ms())) {
                conn_close(&c[i]);
                c[i] = c[--n];
            }
        if (pf[1].revents)
            accept_one(h, c, &n, &pf[0]);
    }
    for (i = 0; i < n; i++)
        conn_close(&c[i]);
    free(c);
    return NULL;
}

/* ---- start and stop ---- */

/* A numeric address (IPv4 or IPv6) or "localhost": no name lookup, so the
 * static binary needs no resolver (NSS) at run time. */
static int numeric_addr(const char *host, const char *port, struct sockaddr_storage *ss,
                        socklen_t *len)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    char *end;
    long p = strtol(port, &end, 10);

    if (*end || p < 0 || p > 65535)
        return -1;
    memset(ss, 0, sizeof(*ss));
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)p);
        *len = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)p);
        *len = sizeof(*v6);
        return 0;
    }
    return -1;
}

static int bind_first(const char *host, const char *port, const char *spec,
                      struct gt_diag *d)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fd, err, one = 1;

    if (numeric_addr(host, port, &ss, &len) < 0) {
        gt_diag_set(d, "--serve %s: not a numeric address (use e.g. 127.0.0.1:9100, "
                       "[::1]:9100 or 0.0.0.0:9100)", spec);
        return -1;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        gt_diag_set(d, "--serve %s: cannot listen: %s", spec, strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, len) == 0 && listen(fd, 64) == 0)
        return fd;
    err = errno;
    close(fd);
    gt_diag_set(d, "--serve %s: cannot listen: %s", spec, strerror(err));
    return -1;
}

/* The server thread takes no signals: the views wait for theirs (a
 * resize, Ctrl-C) in their own system calls. */
static int start_thread(struct gt_http *h)
{
    int err = gt_thread_start(&h->thread, "gputop-serve", server_main, h);

    if (err)
        errno = err;
    return err ? -1 : 0;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

struct gt_http *gt_http_start(const char *spec, gt_http_handler fn, void *arg,
                              struct gt_diag *d)
{
    char host[256], port[16];
    struct gt_http *h;

    if (gt_http_parse_addr(spec, host, sizeof(host), port, sizeof(port), d) < 0)
        return NULL;
    h = calloc(1, sizeof(*h));
    if (!h) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->fn = fn;
    h->arg = arg;
    h->stop_pipe[0] = h->stop_pipe[1] = -1;
    pthread_mutex_init(&h->lock, NULL);
    h->fd = bind_first(host, port, spec, d);
    if (h->fd < 0 || pipe2(h->stop_pipe, O_CLOEXEC) < 0 ||
        start_thread(h) < 0) {
        if (h->fd >= 0)
            gt_diag_set(d, "--serve %s: cannot start the server: %s", spec, strerror(errno));
        if (h->fd >= 0)
            close(h->fd);
        if (h->stop_pipe[0] >= 0) {
            close(h->stop_pipe[0]);
            close(h->stop_pipe[1]);
        }
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    h->port = bound_port(h->fd);
    return h;
}

int gt_http_port(const struct gt_http *h)
{
    return h->port;
}

void gt_http_counts(struct gt_http *h, uint64_t *served, uint64_t *bad)
{
    pthread_mutex_lock(&h->lock);
    *served = h->served;
    *bad = h->bad;
    pthread_mutex_unlock(&h->lock);
}

void gt_http_stop(struct gt_http *h)
{
    if (!h)
        return;
    atomic_store(&h->stopping, 1);
    /* The pipe wakes poll; were it ever full, shutting the listener down
     * wakes it too, and the flag ends the loop either way. */
    if (write(h->stop_pipe[1], "x", 1) < 0)
        shutdown(h->fd, SHUT_RDWR);
    pthread_join(h->thread, NULL);
    close(h->fd);
    close(h->stop_pipe[0]);
    close(h->stop_pipe[1]);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
