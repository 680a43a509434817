/* Fault injection at the system-call seam (see fault_sys.h): every call
 * goes to the wrapped seam unless it is the armed site. */
#include "fakes/fault_sys.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

const int fs_errnos[6] = { EINTR, EAGAIN, EBUSY, ENODEV, EIO, EPERM };

/* path with every run of digits as one 'N', so one site covers every
 * process or device number. */
static void file_key(const char *path, char *out)
{
    size_t n = 0;

    while (*path && n + 1 < FS_FILE_LEN) {
        if (isdigit((unsigned char)*path)) {
            out[n++] = 'N';
            while (isdigit((unsigned char)*path))
                path++;
            continue;
        }
        out[n++] = *path++;
    }
    out[n] = '\0';
}

static const char *fd_key(const struct fault_sys *f, int fd)
{
    for (size_t i = 0; f->by_file && i < FS_MAX_FDS; i++)
        if (f->fds[i].fd == fd && f->fds[i].file[0])
            return f->fds[i].file;
    return "";
}

/* The fd's entry, NULL when not tracked. */
static int *fd_cut(struct fault_sys *f, int fd)
{
    for (size_t i = 0; f->by_file && i < FS_MAX_FDS; i++)
        if (f->fds[i].fd == fd && f->fds[i].file[0])
            return &f->fds[i].cut;
    return NULL;
}

static void fd_remember(struct fault_sys *f, int fd, const char *key)
{
    for (size_t i = 0; i < FS_MAX_FDS; i++)
        if (!f->fds[i].file[0]) {
            f->fds[i].fd = fd;
            f->fds[i].cut = 0;
            snprintf(f->fds[i].file, FS_FILE_LEN, "%s", key);
            return;
        }
}

static void fd_forget(struct fault_sys *f, int fd)
{
    for (size_t i = 0; i < FS_MAX_FDS; i++)
        if (f->fds[i].fd == fd)
            f->fds[i].file[0] = '\0';
}

static int same(const struct fs_site *a, enum fs_call call, unsigned long req,
                unsigned long sub, const char *file)
{
    return a->call == call && a->req == req && a->sub == sub && strcmp(a->file, file) == 0;
}

static void note(struct fault_sys *f, enum fs_call call, unsigned long req, unsigned long sub,
                 const char *file)
{
    if (!f->logging)
        return;
    for (size_t i = 0; i < f->nsites; i++)
        if (same(&f->sites[i], call, req, sub, file)) {
            f->calls[i]++;
            return;
        }
    if (f->nsites < FS_MAX_SITES) {
        struct fs_site *s = &f->sites[f->nsites];
        f->calls[f->nsites++] = 1;
        memset(s, 0, sizeof(*s));
        s->call = call;
        s->req = req;
        s->sub = sub;
        snprintf(s->file, sizeof(s->file), "%s", file);
    }
}

/* 1 when this call is to fail (errno set). */
static int hit(struct fault_sys *f, enum fs_call call, unsigned long req, unsigned long sub,
               const char *file)
{
    int gone = __atomic_load_n(&f->vanished, __ATOMIC_ACQUIRE);

    note(f, call, req, sub, file);
    if (gone) {
        errno = gone;
        return 1;
    }
    if (f->remaining <= 0 || !same(&f->target, call, req, sub, file))
        return 0;
    if (f->skip > 0) {
        f->skip--;
        return 0;
    }
    f->remaining--;
    f->injected++;
    errno = f->err;
    return 1;
}

static int fs_open(void *ctx, const char *path, int flags)
{
    struct fault_sys *f = ctx;
    char key[FS_FILE_LEN] = "";
    int fd;

    /* A fake tree's root (a temporary directory) is not part of the site. */
    if (f->by_file) {
        size_t rl = f->inner->root ? strlen(f->inner->root) : 0;
        file_key(rl && strncmp(path, f->inner->root, rl) == 0 ? path + rl : path, key);
    }
    if (hit(f, FS_OPEN, 0, 0, key))
        return -1;
    fd = f->inner->open(f->inner->ctx, path, flags);
    if (fd >= 0 && key[0])
        fd_remember(f, fd, key);
    return fd;
}

static int fs_close(void *ctx, int fd)
{
    struct fault_sys *f = ctx;
    fd_forget(f, fd);
    return f->inner->close(f->inner->ctx, fd);
}

static int fs_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct fault_sys *f = ctx;
    unsigned long sub = f->ioctl_sub && arg ? f->ioctl_sub(req, arg) : 0;

    return hit(f, FS_IOCTL, req, sub, fd_key(f, fd)) ? -1
        : f->inner->ioctl(f->inner->ctx, fd, req, arg);
}

static void *fs_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct fault_sys *f = ctx;
    if (hit(f, FS_MMAP, 0, 0, fd_key(f, fd)))
        return MAP_FAILED;
    return f->inner->mmap(f->inner->ctx, addr, len, prot, flags, fd, off);
}

static int fs_munmap(void *ctx, void *addr, size_t len)
{
    struct fault_sys *f = ctx;
    return f->inner->munmap(f->inner->ctx, addr, len);
}

static int errno_now(struct fault_sys *f)
{
    return __atomic_load_n(&f->vanished, __ATOMIC_ACQUIRE);
}

static size_t short_len(size_t len)
{
    len /= 2;
    return len < FS_SHORT_MAX ? len : FS_SHORT_MAX;
}

static ssize_t fs_read(void *ctx, int fd, void *buf, size_t len)
{
    struct fault_sys *f = ctx;
    int *cut = fd_cut(f, fd);

    ssize_t n;

    if (cut && *cut)
        return 0;          /* truncated: the end came early */
    if (!hit(f, FS_READ, 0, 0, fd_key(f, fd)))
        return f->inner->read(f->inner->ctx, fd, buf, len);
    if (errno_now(f) || (f->err != FS_SHORT_READ && f->err != FS_TRUNCATED))
        return -1;
    if (f->err == FS_SHORT_READ)
        return f->inner->read(f->inner->ctx, fd, buf, short_len(len));
    n = f->inner->read(f->inner->ctx, fd, buf, len);
    if (n > 0 && cut) {
        *cut = 1;
        n /= 2;
    }
    return n;
}

static int fs_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_POLL, 0, 0, n ? fd_key(f, fds[0].fd) : "") ? -1
        : f->inner->poll(f->inner->ctx, fds, n, timeout_ms);
}

static ssize_t fs_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct fault_sys *f = ctx;

    if (hit(f, FS_READ, 0, f->by_offset ? (unsigned long)off : 0, fd_key(f, fd))) {
        if ((f->err != FS_SHORT_READ && f->err != FS_TRUNCATED) || errno_now(f))
            return -1;
        len = short_len(len);
    }
    return f->inner->pread(f->inner->ctx, fd, buf, len, off);
}

static ssize_t fs_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_WRITE, 0, f->by_offset ? (unsigned long)off : 0, fd_key(f, fd)) ? -1
        : f->inner->pwrite(f->inner->ctx, fd, buf, len, off);
}

static int fs_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                              int group_fd, unsigned long flags)
{
    struct fault_sys *f = ctx;
    return hit(f, FS_OPEN, 1, 0, "") ? -1
        : f->inner->perf_event_open(f->inner->ctx, attr, pid, cpu, group_fd, flags);
}

/* Register loads and stores cannot fail with an errno: passed through
 * (garbage values are the fake's business). */
static uint32_t fs_reg_read32(void *ctx, const volatile void *addr)
{
    struct fault_sys *f = ctx;

    /* A mapped block that is gone answers loads with a bus error: all ones. */
    if (__atomic_load_n(&f->vanished, __ATOMIC_ACQUIRE))
        return 0xffffffffu;
    return f->inner->reg_read32(f->inner->ctx, addr);
}

static void fs_reg_write32(void *ctx, volatile void *addr, uint32_t value)
{
    struct fault_sys *f = ctx;

    if (!__atomic_load_n(&f->vanished, __ATOMIC_ACQUIRE))
        f->inner->reg_write32(f->inner->ctx, addr, value);
}

static int fs_drm_devices(void *ctx, struct gt_drm_device *out, int max)
{
    struct fault_sys *f = ctx;

    /* A vanished device is no longer listed; the others still are. */
    return f->inner->drm_devices(f->inner->ctx, out,
                                 __atomic_load_n(&f->vanished, __ATOMIC_ACQUIRE) ? 0 : max);
}

/* The clock is no system call: never a fault. */
static unsigned long long fs_now_ns(void *ctx)
{
    struct fault_sys *f = ctx;

    return f->inner->now_ns(f->inner->ctx);
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
    f->sys.pwrite = inner->pwrite ? fs_pwrite : NULL;
    f->sys.perf_event_open = inner->perf_event_open ? fs_perf_event_open : NULL;
    f->sys.drm_devices = inner->drm_devices ? fs_drm_devices : NULL;
    f->sys.now_ns = inner->now_ns ? fs_now_ns : NULL;
    f->sys.reg_read32 = inner->reg_read32 ? fs_reg_read32 : NULL;
    f->sys.reg_write32 = inner->reg_write32 ? fs_reg_write32 : NULL;
}

void fs_arm(struct fault_sys *f, struct fs_site site, int err, int times)
{
    fs_arm_after(f, site, err, times, 0);
}

void fs_arm_after(struct fault_sys *f, struct fs_site site, int err, int times, int skip)
{
    f->target = site;
    f->err = err;
    f->remaining = times;
    f->skip = skip;
}

void fs_vanish(struct fault_sys *f, int err)
{
    /* Atomic: a test flips it while the sampler's thread calls through. */
    __atomic_store_n(&f->vanished, err, __ATOMIC_RELEASE);
}

const char *fs_site_name(struct fs_site site, char *buf, size_t len)
{
    static const char *const names[] = { "open", "ioctl", "mmap", "poll", "read", "pwrite" };
    char sub[32] = "";

    if (site.sub)
        snprintf(sub, sizeof(sub), " #0x%lx", site.sub);
    if (site.call == FS_IOCTL)
        snprintf(buf, len, "ioctl 0x%08lx%s%s%s", site.req, sub, site.file[0] ? " on " : "",
                 site.file);
    else
        snprintf(buf, len, "%s%s%s%s", names[site.call], site.file[0] ? " " : "", site.file,
                 site.sub ? sub : "");
    return buf;
}

void fs_every_case_of(const struct fs_site *sites, const unsigned *calls, size_t n,
                      int mid_run, const int *errs, size_t nerrs, fs_case_fn *fn, void *arg)
{
    for (size_t i = 0; i < n; i++)
        for (size_t e = 0; e < nerrs; e++)
            for (unsigned k = 0; k < (calls[i] ? calls[i] : 1); k++) {
                fn(arg, sites[i], errs[e], 1, (int)k);
                if (mid_run)
                    fn(arg, sites[i], errs[e], 3, (int)k);
            }
}

void fs_every_case(const struct fs_site *sites, const unsigned *calls, size_t n, int mid_run,
                   fs_case_fn *fn, void *arg)
{
    fs_every_case_of(sites, calls, n, mid_run, fs_errnos, FS_NERRNOS, fn, arg);
}
