/* The real system calls behind the seam in gputop/sys.h. */
#include "gputop/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int real_open(void *ctx, const char *path, int flags)
{
    (void)ctx;
    return open(path, flags | O_CLOEXEC);
}

static int real_close(void *ctx, int fd)
{
    (void)ctx;
    return close(fd);
}

static int real_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    int r;

    (void)ctx;
    do
        r = ioctl(fd, req, arg);
    while (r < 0 && errno == EINTR);
    return r;
}

static void *real_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    (void)ctx;
    return mmap(addr, len, prot, flags, fd, off);
}

static int real_munmap(void *ctx, void *addr, size_t len)
{
    (void)ctx;
    return munmap(addr, len);
}

static ssize_t real_read(void *ctx, int fd, void *buf, size_t len)
{
    ssize_t r;

    (void)ctx;
    do
        r = read(fd, buf, len);
    while (r < 0 && errno == EINTR);
    return r;
}

static ssize_t real_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    ssize_t r;

    (void)ctx;
    do
        r = pread(fd, buf, len, off);
    while (r < 0 && errno == EINTR);
    return r;
}

static int real_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    (void)ctx;
    return poll(fds, n, timeout_ms);
}

/* glibc and bionic have no wrapper for it. */
static int real_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                                int group_fd, unsigned long flags)
{
    (void)ctx;
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static uint32_t real_reg_read32(void *ctx, const volatile void *addr)
{
    (void)ctx;
    return *(const volatile uint32_t *)addr;
}

static void real_reg_write32(void *ctx, volatile void *addr, uint32_t value)
{
    (void)ctx;
    *(volatile uint32_t *)addr = value;
}

static const struct gt_sys real_sys = {
    .ctx = NULL,
    .open = real_open,
    .close = real_close,
    .ioctl = real_ioctl,
    .mmap = real_mmap,
    .munmap = real_munmap,
    .read = real_read,
    .poll = real_poll,
    .root = "",
    .perf_event_open = real_perf_event_open,
    .pread = real_pread,
    .reg_read32 = real_reg_read32,
    .reg_write32 = real_reg_write32,
};

const struct gt_sys *gt_sys_real(void)
{
    return &real_sys;
}

int gt_sys_open_below(const struct gt_sys *sys, const char *path)
{
    char full[4096];

    if (snprintf(full, sizeof(full), "%s%s", sys->root ? sys->root : "", path) >= (int)sizeof(full)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return sys->open(sys->ctx, full, O_RDONLY);
}

/* Fills buf (NUL-terminated) from fd until end of file or a full buffer:
 * from the current position with read, or from the start with pread. */
static ssize_t fill(const struct gt_sys *sys, int fd, char *buf, size_t len, int from_start)
{
    size_t total = 0;

    if (len == 0) {
        errno = EINVAL;
        return -1;
    }
    while (total < len - 1) {
        ssize_t n = from_start
            ? sys->pread(sys->ctx, fd, buf + total, len - 1 - total, (off_t)total)
            : sys->read(sys->ctx, fd, buf + total, len - 1 - total);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        total += (size_t)n;
    }
    buf[total] = '\0';
    return (ssize_t)total;
}

ssize_t gt_sys_reread(const struct gt_sys *sys, int fd, char *buf, size_t len)
{
    if (!sys->pread) {
        errno = ENOSYS;
        return -1;
    }
    return fill(sys, fd, buf, len, 1);
}

ssize_t gt_sys_read_file(const struct gt_sys *sys, const char *path, char *buf, size_t len)
{
    ssize_t n;
    int fd, e;

    fd = gt_sys_open_below(sys, path);
    if (fd < 0)
        return -1;
    n = fill(sys, fd, buf, len, 0);
    e = errno;
    sys->close(sys->ctx, fd);
    errno = e;
    return n;
}

unsigned long long gt_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}
