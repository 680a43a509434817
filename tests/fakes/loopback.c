/* Loopback clients and background processes for the export tests. */
#include "fakes/loopback.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A socket (with type flags) connecting to 127.0.0.1:port: blocking, the
 * connection is made; non-blocking, it may still be under way. -1 on error. */
static int connect_to(int port, int flags)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static int connect_port(int port)
{
    return connect_to(port, 0);
}

int loopback_idle(int port, int timeout_ms)
{
    struct pollfd pf;
    int fd = connect_to(port, SOCK_NONBLOCK);

    if (fd < 0)
        return -1;
    pf = (struct pollfd){ fd, POLLOUT, 0 };
    poll(&pf, 1, timeout_ms);
    return fd;
}

char *loopback_exchange(int port, const char *req, size_t reqlen, int hold_ms, int timeout_ms,
                        size_t *len)
{
    int fd = connect_port(port);
    size_t cap = 1 << 16, n = 0, sent = 0;
    char *buf;
    long long until = ms_now() + timeout_ms;

    if (fd < 0)
        return NULL;
    buf = malloc(cap + 1);
    while (sent < reqlen) {
        ssize_t w = send(fd, req + sent, reqlen - sent, MSG_NOSIGNAL);
        if (w <= 0)
            break;      /* the server may answer and close before all is sent */
        sent += (size_t)w;
    }
    if (hold_ms > 0)
        usleep((useconds_t)hold_ms * 1000);
    for (;;) {
        struct pollfd pf = { fd, POLLIN, 0 };
        long long left = until - ms_now();
        ssize_t r;
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
            break;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        r = recv(fd, buf + n, cap - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *loopback_get(int port, const char *path, int *status)
{
    char req[512], *ans, *body, *out;
    size_t len;

    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    ans = loopback_exchange(port, req, strlen(req), 0, 10000, &len);
    *status = -1;
    if (!ans)
        return NULL;
    if (sscanf(ans, "HTTP/1.1 %d", status) != 1 || !(body = strstr(ans, "\r\n\r\n"))) {
        free(ans);
        return NULL;
    }
    out = strdup(body + 4);
    free(ans);
    return out;
}

int loopback_free_port(void)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

int bg_start(struct bg_proc *p, char *const argv[])
{
    int pfd[2];

    memset(p, 0, sizeof(*p));
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    p->pid = fork();
    if (p->pid < 0)
        return -1;
    if (p->pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(pfd[1], 2);
        setpgid(0, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    p->err_fd = pfd[0];
    return 0;
}

int bg_wait_err(struct bg_proc *p, const char *text, int timeout_ms)
{
    long long until = ms_now() + timeout_ms;

    while (!strstr(p->err, text)) {
        struct pollfd pf = { p->err_fd, POLLIN, 0 };
        long long left = until - ms_now();
        ssize_t r;
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
            return 0;
        if (p->err_len + 1 >= sizeof(p->err))
            return 0;
        r = read(p->err_fd, p->err + p->err_len, sizeof(p->err) - 1 - p->err_len);
        if (r <= 0)
            return 0;
        p->err_len += (size_t)r;
        p->err[p->err_len] = '\0';
    }
    return 1;
}

int bg_served_port(struct bg_proc *p, int timeout_ms)
{
    const char *at;
    int port = -1;

    if (!bg_wait_err(p, "/metrics\n", timeout_ms) || !(at = strstr(p->err, "http://127.0.0.1:")))
        return -1;
    sscanf(at, "http://127.0.0.1:%d/metrics", &port);
    return port;
}

int bg_stop(struct bg_proc *p, int sig, int timeout_ms)
{
    long long until = ms_now() + timeout_ms;
    int status = -1;

    if (p->pid <= 0)
        return -1;
    kill(p->pid, sig);
    while (waitpid(p->pid, &status, WNOHANG) == 0) {
        if (ms_now() > until) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &status, 0);
            break;
        }
        usleep(20000);
    }
    close(p->err_fd);
    p->pid = 0;
    return status;
}
