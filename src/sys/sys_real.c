/* The real system calls behind the seam in gputop/sys.h. */
#include "gputop/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

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

static ssize_t real_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
    ssize_t r;

    (void)ctx;
    do
        r = pwrite(fd, buf, len, off);
    while (r < 0 && errno == EINTR);
    return r;
}

static void copy_node(char *dst, size_t len, const drmDevice *d, int type)
{
    if (d->available_nodes & (1 << type))
        snprintf(dst, len, "%s", d->nodes[type]);
}

/* libdrm lists devices from /sys and /dev without opening them, so a
 * sleeping GPU stays asleep. */
static int real_drm_devices(void *ctx, struct gt_drm_device *out, int max)
{
    drmDevicePtr devs[32];
    int n, i;

    (void)ctx;
    n = drmGetDevices2(0, devs, (int)(sizeof(devs) / sizeof(devs[0])));
    if (n == -ENOENT)
        return 0;   /* no /dev/dri: no DRM devices */
    if (n < 0) {
        errno = -n;
        return -1;
    }
    for (i = 0; i < n && i < max; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        copy_node(out[i].render, sizeof(out[i].render), devs[i], DRM_NODE_RENDER);
        copy_node(out[i].primary, sizeof(out[i].primary), devs[i], DRM_NODE_PRIMARY);
        if (devs[i]->bustype != DRM_BUS_PCI)
            continue;
        snprintf(out[i].pci_slot, sizeof(out[i].pci_slot), "%04x:%02x:%02x.%x",
                 devs[i]->businfo.pci->domain, devs[i]->businfo.pci->bus,
                 devs[i]->businfo.pci->dev, devs[i]->businfo.pci->func);
        out[i].vendor = devs[i]->deviceinfo.pci->vendor_id;
        out[i].device = devs[i]->deviceinfo.pci->device_id;
        out[i].revision = devs[i]->deviceinfo.pci->revision_id;
    }
    drmFreeDevices(devs, n);
    return n < max ? n : max;
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
    .pwrite = real_pwrite,
    .drm_devices = real_drm_devices,
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
