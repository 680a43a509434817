/* GPU time per Android app UID from the power/gpu_work_period tracepoint
 * (Android 14+; emitted by Arm's kbase, whose processes print no DRM
 * fdinfo): the Processes watcher reads it where tracefs is readable
 * (root), from an ftrace instance of its own so that other tracers'
 * buffers are not drained. Event text, from the tracepoint's TP_printk
 * (mali_power_gpu_work_period_trace.h, the AOSP gpu_work.c spec):
 *   gpu_work_period: gpu_id=%u uid=%u start_time_ns=%llu end_time_ns=%llu
 *   total_active_duration_ns=%llu */
#include "gputop/fdinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INSTANCE "/instances/gputop"
#define EVENT INSTANCE "/events/power/gpu_work_period/enable"
#define MAX_UIDS 256

struct uid_time {
    unsigned uid;
    uint64_t active_ns;
};

struct gt_gpu_work {
    const struct gt_sys *sys;
    char tracefs[64];             /* "/sys/kernel/tracing" or the debugfs one */
    int fd;                       /* the instance's trace_pipe, O_NONBLOCK */
    char why[200];                /* why not readable, "" when it is */
    char part[512];               /* a line cut by the end of a read */
    size_t npart;
    struct uid_time uids[MAX_UIDS];
    size_t nuids;
};

/* One event line into per-uid active time; 0, or -1 when not one. */
int gt_gpu_work_parse(const char *line, unsigned *uid, uint64_t *active_ns)
{
    const char *ev = strstr(line, "gpu_work_period:"), *u, *a;

    if (!ev || !(u = strstr(ev, " uid=")) || !(a = strstr(ev, " total_active_duration_ns=")))
        return -1;
    *uid = (unsigned)strtoul(u + 5, NULL, 10);
    *active_ns = strtoull(a + 26, NULL, 10);
    return 0;
}

static void add(struct gt_gpu_work *g, unsigned uid, uint64_t ns)
{
    size_t i;

    for (i = 0; i < g->nuids; i++)
        if (g->uids[i].uid == uid) {
            g->uids[i].active_ns += ns;
            return;
        }
    if (g->nuids == MAX_UIDS)
        return;
    g->uids[g->nuids].uid = uid;
    g->uids[g->nuids].active_ns = ns;
    g->nuids++;
}

static void take_lines(struct gt_gpu_work *g, const char *buf, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned uid;
        uint64_t ns;
        if (buf[i] != '\n') {
            if (g->npart < sizeof(g->part) - 1)
                g->part[g->npart++] = buf[i];
            continue;
        }
        g->part[g->npart] = '\0';
        if (gt_gpu_work_parse(g->part, &uid, &ns) == 0)
            add(g, uid, ns);
        g->npart = 0;
    }
}

/* path below the seam's root (its open takes the path as given) */
static int open_below(const struct gt_sys *sys, const char *path, int flags)
{
    char full[4300];

    snprintf(full, sizeof(full), "%s%s", sys->root ? sys->root : "", path);
    return sys->open(sys->ctx, full, flags);
}

static int write_text(const struct gt_sys *sys, const char *path, const char *v)
{
    int fd = open_below(sys, path, O_WRONLY | O_CLOEXEC), r;

    if (fd < 0)
        return -1;
    r = sys->pwrite ? (int)sys->pwrite(sys->ctx, fd, v, strlen(v), 0) : -1;
    sys->close(sys->ctx, fd);
    return r < 0 ? -1 : 0;
}

/* An instance of its own (mkdir in tracefs makes one), the event on. */
static int enable(struct gt_gpu_work *g)
{
    const char *root = g->sys->root ? g->sys->root : "";
    char path[4300];

    snprintf(path, sizeof(path), "%s%s" INSTANCE, root, g->tracefs);
    if (mkdir(path, 0755) < 0 && errno != EEXIST) {
        snprintf(g->why, sizeof(g->why), "%s" INSTANCE ": %s%s", g->tracefs, strerror(errno),
                 errno == EACCES || errno == EPERM ? " (GPU time per app needs root)" : "");
        return -1;
    }
    snprintf(path, sizeof(path), "%s" EVENT, g->tracefs);
    if (write_text(g->sys, path, "1") < 0) {
        snprintf(g->why, sizeof(g->why), "no power/gpu_work_period event (Android 14+ "
                 "kernels): %s", strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s" INSTANCE "/trace_pipe", g->tracefs);
    g->fd = open_below(g->sys, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (g->fd < 0) {
        snprintf(g->why, sizeof(g->why), "%.60s/trace_pipe: %s", g->tracefs, strerror(errno));
        return -1;
    }
    return 0;
}

struct gt_gpu_work *gt_gpu_work_open(const struct gt_sys *sys)
{
    static const char *const where[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
    struct gt_gpu_work *g = calloc(1, sizeof(*g));
    const char *root = sys->root ? sys->root : "";
    char path[4300];
    size_t i;

    if (!g)
        return NULL;
    g->sys = sys;
    g->fd = -1;
    snprintf(g->why, sizeof(g->why), "no tracefs (/sys/kernel/tracing)");
    for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        snprintf(path, sizeof(path), "%s%s/events", root, where[i]);
        if (access(path, F_OK) != 0)
            continue;
        snprintf(g->tracefs, sizeof(g->tracefs), "%s", where[i]);
        if (enable(g) == 0)
            g->why[0] = '\0';
        break;
    }
    return g;
}

const char *gt_gpu_work_why(const struct gt_gpu_work *g)
{
    return g->why;
}

/* Everything the instance holds now; per-uid active time since the last
 * call into out (at most max), busiest first is the caller's. */
size_t gt_gpu_work_take(struct gt_gpu_work *g, unsigned *uid, uint64_t *active_ns, size_t max)
{
    char buf[4096];
    ssize_t n;
    size_t i, k;

    if (g->fd < 0)
        return 0;
    while ((n = g->sys->read(g->sys->ctx, g->fd, buf, sizeof(buf))) > 0)
        take_lines(g, buf, (size_t)n);
    k = g->nuids < max ? g->nuids : max;
    for (i = 0; i < k; i++) {
        uid[i] = g->uids[i].uid;
        active_ns[i] = g->uids[i].active_ns;
    }
    g->nuids = 0;
    return k;
}

/* The event off, the instance gone (rmdir removes an instance). */
void gt_gpu_work_close(struct gt_gpu_work *g)
{
    const char *root;
    char path[4300];

    if (!g)
        return;
    if (g->fd >= 0) {
        g->sys->close(g->sys->ctx, g->fd);
        snprintf(path, sizeof(path), "%s" EVENT, g->tracefs);
        write_text(g->sys, path, "0");
        root = g->sys->root ? g->sys->root : "";
        snprintf(path, sizeof(path), "%s%s" INSTANCE, root, g->tracefs);
        rmdir(path);
    }
    free(g);
}

/* Android names app uids u<user>_a<app> (AID_APP_START 10000, a user's
 * range 100000: system/core libcutils' multiuser.h). */
void gt_gpu_work_uid_name(unsigned uid, char *buf, size_t len)
{
    unsigned user = uid / 100000, app = uid % 100000;

    if (app >= 10000 && app < 20000)
        snprintf(buf, len, "u%u_a%u", user, app - 10000);
    else
        snprintf(buf, len, "uid %u", uid);
}
