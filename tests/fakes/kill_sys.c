/* Signals at a chosen call through the system-call seam (see kill_sys.h). */
#include "kill_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Counts the call; 1 when it is the one to fail with EINTR. Only calls
 * in which the real kernel sleeps interruptibly are ever failed: the
 * others (device opens, the debugfs and sysfs files, register accesses,
 * kbase's ioctls) take uninterruptible locks or do not wait. */
static int tick(struct kill_sys *k, int can_block)
{
    long n = atomic_fetch_add(&k->calls, 1) + 1;
    int fd;

    if (n != k->at)
        return 0;
    if (k->mark[0]) {
        fd = open(k->mark, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* process-directed, so whichever thread the kernel picks handles it */
    kill(getpid(), k->sig);
    return can_block && k->eintr;
}

static int interrupted(void)
{
    errno = EINTR;
    return -1;
}

static int ks_open(void *ctx, const char *path, int flags)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->open(k->inner->ctx, path, flags);
}

static int ks_close(void *ctx, int fd)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->close(k->inner->ctx, fd);
}

static int ks_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct kill_sys *k = ctx;

    if (tick(k, req == k->intr_req))
        return interrupted();
    return k->inner->ioctl(k->inner->ctx, fd, req, arg);
}

static void *ks_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->mmap(k->inner->ctx, addr, len, prot, flags, fd, off);
}

static int ks_munmap(void *ctx, void *addr, size_t len)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->munmap(k->inner->ctx, addr, len);
}

static ssize_t ks_read(void *ctx, int fd, void *buf, size_t len)
{
    struct kill_sys *k = ctx;

    if (tick(k, 1))
        return interrupted();
    return k->inner->read(k->inner->ctx, fd, buf, len);
}

static int ks_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct kill_sys *k = ctx;

    if (tick(k, 1))
        return interrupted();
    return k->inner->poll(k->inner->ctx, fds, n, timeout_ms);
}

static int ks_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                              int group_fd, unsigned long flags)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->perf_event_open(k->inner->ctx, attr, pid, cpu, group_fd, flags);
}

static ssize_t ks_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->pread(k->inner->ctx, fd, buf, len, off);
}

static ssize_t ks_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->pwrite(k->inner->ctx, fd, buf, len, off);
}

static uint32_t ks_reg_read32(void *ctx, const volatile void *addr)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->reg_read32(k->inner->ctx, addr);
}

static void ks_reg_write32(void *ctx, volatile void *addr, uint32_t value)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    k->inner->reg_write32(k->inner->ctx, addr, value);
}

static int ks_drm_devices(void *ctx, struct gt_drm_device *out, int max)
{
    struct kill_sys *k = ctx;

    tick(k, 0);
    return k->inner->drm_devices(k->inner->ctx, out, max);
}

/* The clock is no system call: passed through, never a kill point. */
static unsigned long long ks_now_ns(void *ctx)
{
    struct kill_sys *k = ctx;

    return k->inner->now_ns(k->inner->ctx);
}

static int parse_env(struct kill_sys *k)
{
    const char *at = getenv("GPUTOP_KILL_AT"), *mark = getenv("GPUTOP_KILL_MARK");
    char mode;

    if (mark && *mark) {
        if (!at || sscanf(at, "%ld", &k->at) != 1 || k->at < 1)
            return -1;
        snprintf(k->mark, sizeof(k->mark), "%s", mark);
        return 0;
    }
    if (!at || !*at)
        return 0;
    if (sscanf(at, "%ld:%d:%c", &k->at, &k->sig, &mode) != 3 || k->at < 1 || k->sig < 1 ||
        (mode != 'r' && mode != 'i'))
        return -1;
    k->eintr = mode == 'i';
    return 0;
}

void ks_interruptible_ioctl(struct kill_sys *k, unsigned long req)
{
    k->intr_req = req;
}

int ks_init_from_env(struct kill_sys *k, const struct gt_sys *inner)
{
    memset(k, 0, sizeof(*k));
    atomic_init(&k->calls, 0);
    k->inner = inner;
    k->sys = *inner;
    k->sys.ctx = k;
    /* a call the inner seam lacks stays missing (NULL) */
    k->sys.open = inner->open ? ks_open : NULL;
    k->sys.close = inner->close ? ks_close : NULL;
    k->sys.ioctl = inner->ioctl ? ks_ioctl : NULL;
    k->sys.mmap = inner->mmap ? ks_mmap : NULL;
    k->sys.munmap = inner->munmap ? ks_munmap : NULL;
    k->sys.read = inner->read ? ks_read : NULL;
    k->sys.poll = inner->poll ? ks_poll : NULL;
    k->sys.perf_event_open = inner->perf_event_open ? ks_perf_event_open : NULL;
    k->sys.pread = inner->pread ? ks_pread : NULL;
    k->sys.pwrite = inner->pwrite ? ks_pwrite : NULL;
    k->sys.reg_read32 = inner->reg_read32 ? ks_reg_read32 : NULL;
    k->sys.reg_write32 = inner->reg_write32 ? ks_reg_write32 : NULL;
    k->sys.drm_devices = inner->drm_devices ? ks_drm_devices : NULL;
    k->sys.now_ns = inner->now_ns ? ks_now_ns : NULL;
    return parse_env(k);
}
