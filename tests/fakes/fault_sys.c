/* Fault injection at the system-call seam (see fault_sys.h): every call
 * goes to the wrapped seam unless it is the armed site. */
#include "fakes/fault_sys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static void note(struct fault_sys *f, enum fs_call call, unsigned long req)
{
    if (!f->logging)
        return;
    for (size_t i = 0; i < f->nsites; i++)
        if (f->sites[i].call == call && f->sites[i].req == req)
            return;
    if (f->nsites < FS_MAX_SITES)
        f->sites[f->nsites++] = (struct fs_site){ call, req };
}

/* 1 when this call is to fail (errno set). */
static int hit(struct fault_sys *f, enum fs_call call, unsigned long req)
{
    note(f, call, req);
    if (f->remaining <= 0 || f->target.call != call || f->target.req != req)
        return 0;
    f->remaining--;
    f->injected++;
    errno = f->err;
    return 1;
}

static int fs_open(void *ctx, const char *path, int flags)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_OPEN, 0) ? -1 : f->inner->open(f->inner->ctx, path, flags);
}

static int fs_close(void *ctx, int fd)
{
    struct fault_sys *f = ctx;
    return f->inner->close(f->inner->ctx, fd);
}

static int fs_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_IOCTL, req) ? -1 : f->inner->ioctl(f->inner->ctx, fd, req, arg);
}

static void *fs_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct fault_sys *f = ctx;
    if (hit(f, FS_MMAP, 0))
        return MAP_FAILED;
    return f->inner->mmap(f->inner->ctx, addr, len, prot, flags, fd, off);
}

static int fs_munmap(void *ctx, void *addr, size_t len)
{
    struct fault_sys *f = ctx;
    return f->inner->munmap(f->inner->ctx, addr, len);
}

static ssize_t fs_read(void *ctx, int fd, void *buf, size_t len)
{
    struct fault_sys *f = ctx;

    if (hit(f, FS_READ, 0)) {
        if (f->err != FS_SHORT_READ)
            return -1;
        len /= 2;
    }
    return f->inner->read(f->inner->ctx, fd, buf, len);
}

static int fs_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_POLL, 0) ? -1 : f->inner->poll(f->inner->ctx, fds, n, timeout_ms);
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_READ, 0) ? -1 : f->inner->pread(f->inner->ctx, fd, buf, len, off);
}

static int fs_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                              int group_fd, unsigned long flags)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_OPEN, 1) ? -1
        : f->inner->perf_event_open(f->inner->ctx, attr, pid, cpu, group_fd, flags);
}

void fs_init(struct fault_sys *f, const struct gt_sys *inner)
{
    memset(f, 0, sizeof(*f));
    f->inner = inner;
    f->sys = *inner;
    f->sys.ctx = f;
    f->sys.open = fs_open;
    f->sys.close = fs_close;
    f->sys.ioctl = fs_ioctl;
    f->sys.mmap = fs_mmap;
    f->sys.munmap = fs_munmap;
    f->sys.read = fs_read;
    f->sys.poll = fs_poll;
    /* Only where the wrapped seam has them (the callers test for NULL). */
    f->sys.pread = inner->pread ? fs_pread : NULL;
    f->sys.perf_event_open = inner->perf_event_open ? fs_perf_event_open : NULL;
}

void fs_arm(struct fault_sys *f, struct fs_site site, int err, int times)
{
    f->target = site;
    f->err = err;
    f->remaining = times;
}

const char *fs_site_name(struct fs_site site, char *buf, size_t len)
{
    static const char *const names[] = { "open", "ioctl", "mmap", "poll", "read" };

    if (site.call == FS_IOCTL)
        snprintf(buf, len, "ioctl 0x%08lx", site.req);
    else
        snprintf(buf, len, "%s", names[site.call]);
    return buf;
}
