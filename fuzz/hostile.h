/* A hostile kernel for the libFuzzer targets: wraps a fake's system-call
 * seam and, driven by the fuzz input, alters what comes back: bytes a
 * read or pread returned, register loads, and (through the target's
 * on_ioctl hook, which knows where each reply lies) ioctl replies. Each
 * alteration first takes one input byte saying how much to change, so
 * the fuzzer can keep most answers sane and reach deeper code. */
#ifndef GPUTOP_FUZZ_HOSTILE_H
#define GPUTOP_FUZZ_HOSTILE_H

#include "fuzz_common.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"
#include "gputop/sys.h"

struct hostile {
    const struct gt_sys *inner;
    struct gt_sys sys;
    const uint8_t *data;
    size_t size, pos;
    void (*on_ioctl)(struct hostile *h, unsigned long req, void *arg);
};

static inline uint8_t hostile_byte(struct hostile *h)
{
    return h->pos < h->size ? h->data[h->pos++] : 0;
}

/* Leaves buf alone, changes one byte, one 32-bit word, or all of it, as
 * the next input byte says; nothing once the input is used up. */
static inline void hostile_scribble(struct hostile *h, void *buf, size_t n)
{
    uint8_t *b = buf, mode;

    if (!n || h->pos >= h->size)
        return;
    mode = hostile_byte(h);
    if ((mode & 3) == 0)
        return;
    if ((mode & 3) == 1) {
        size_t at = (size_t)hostile_byte(h) << 8;
        at = (at | hostile_byte(h)) % n;
        b[at] ^= hostile_byte(h);
        return;
    }
    if ((mode & 3) == 2) {
        size_t at = (size_t)hostile_byte(h) << 8;
        at = (at | hostile_byte(h)) % n & ~(size_t)3;
        for (size_t i = at; i < at + 4 && i < n; i++)
            b[i] = hostile_byte(h);
        return;
    }
    for (size_t i = 0; i < n; i++)
        b[i] = hostile_byte(h);
}

static inline int hostile_open(void *ctx, const char *path, int flags)
{
    struct hostile *h = ctx;
    return h->inner->open(h->inner->ctx, path, flags);
}

static inline int hostile_close(void *ctx, int fd)
{
    struct hostile *h = ctx;
    return h->inner->close(h->inner->ctx, fd);
}

static inline int hostile_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct hostile *h = ctx;
    int rc = h->inner->ioctl(h->inner->ctx, fd, req, arg);

    if (rc >= 0 && h->on_ioctl)
        h->on_ioctl(h, req, arg);
    return rc;
}

static inline ssize_t hostile_read(void *ctx, int fd, void *buf, size_t len)
{
    struct hostile *h = ctx;
    ssize_t n = h->inner->read(h->inner->ctx, fd, buf, len);

    if (n > 0)
        hostile_scribble(h, buf, (size_t)n);
    return n;
}

static inline ssize_t hostile_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
    struct hostile *h = ctx;
    ssize_t n = h->inner->pread(h->inner->ctx, fd, buf, len, off);

    if (n > 0)
        hostile_scribble(h, buf, (size_t)n);
    return n;
}

static inline uint32_t hostile_reg_read32(void *ctx, const volatile void *addr)
{
    struct hostile *h = ctx;
    uint32_t v = h->inner->reg_read32(h->inner->ctx, addr);

    hostile_scribble(h, &v, sizeof(v));
    return v;
}

/* The rest pass straight through, with inner's own context. */
static inline void *hostile_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd,
                                 off_t off)
{
    struct hostile *h = ctx;
    return h->inner->mmap(h->inner->ctx, addr, len, prot, flags, fd, off);
}

static inline int hostile_munmap(void *ctx, void *addr, size_t len)
{
    struct hostile *h = ctx;
    return h->inner->munmap(h->inner->ctx, addr, len);
}

static inline int hostile_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct hostile *h = ctx;
    return h->inner->poll(h->inner->ctx, fds, n, timeout_ms);
}

static inline int hostile_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid,
                                          int cpu, int group_fd, unsigned long flags)
{
    struct hostile *h = ctx;
    return h->inner->perf_event_open(h->inner->ctx, attr, pid, cpu, group_fd, flags);
}

static inline void hostile_reg_write32(void *ctx, volatile void *addr, uint32_t value)
{
    struct hostile *h = ctx;
    h->inner->reg_write32(h->inner->ctx, addr, value);
}

static inline ssize_t hostile_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
    struct hostile *h = ctx;
    return h->inner->pwrite(h->inner->ctx, fd, buf, len, off);
}

static inline int hostile_drm_devices(void *ctx, struct gt_drm_device *out, int max)
{
    struct hostile *h = ctx;
    return h->inner->drm_devices(h->inner->ctx, out, max);
}

static inline unsigned long long hostile_now_ns(void *ctx)
{
    struct hostile *h = ctx;
    return h->inner->now_ns(h->inner->ctx);
}

/* The seam as inner's, with the answers above; calls inner lacks stay NULL. */
static inline void hostile_wrap(struct hostile *h, const struct gt_sys *inner,
                                const uint8_t *data, size_t size)
{
    memset(h, 0, sizeof(*h));
    h->inner = inner;
    h->data = data;
    h->size = size;
    h->sys = *inner;
    h->sys.ctx = h;
    h->sys.open = hostile_open;
    h->sys.close = hostile_close;
    h->sys.ioctl = hostile_ioctl;
    h->sys.read = hostile_read;
    h->sys.mmap = hostile_mmap;
    h->sys.munmap = hostile_munmap;
    h->sys.poll = hostile_poll;
#define HOSTILE_OPT(f) h->sys.f = inner->f ? hostile_##f : NULL
    HOSTILE_OPT(pread);
    HOSTILE_OPT(pwrite);
    HOSTILE_OPT(reg_read32);
    HOSTILE_OPT(reg_write32);
    HOSTILE_OPT(perf_event_open);
    HOSTILE_OPT(drm_devices);
    HOSTILE_OPT(now_ns);      /* a fake's clock needs the fake's own context */
#undef HOSTILE_OPT
}

/* What gputop does with a source: open, select every stride-th counter
 * (a source that can count only so many at once refuses all of them),
 * start, a few samples, close. */
static inline void hostile_run(const struct gt_sys *sys, const char *spec, unsigned stride,
                               int samples)
{
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap;
    unsigned char *used;
    int bad;

    gt_diag_clear(&d);
    s = gt_source_open(spec, sys, &d);
    if (!s)
        return;
    used = calloc(s->catalog.ncounters + 1, 1);
    if (!used)
        abort();
    for (size_t k = 0; k < s->catalog.ncounters; k++)
        used[k] = k % (stride ? stride : 1) == 0;
    bad = s->type->select && s->type->select(s, used, &d) < 0;
    free(used);
    if (bad)
        goto out;
    if (s->type->start(s, &d) < 0 || gt_snapshot_init(&snap, s->catalog.nslots) < 0)
        goto out;
    for (int i = 0; i < samples; i++) {
        gt_snapshot_zero(&snap);
        if (s->type->sample(s, &snap, &d) < 0)
            break;
    }
    gt_snapshot_free(&snap);
out:
    gt_source_close(s);
}

#endif
