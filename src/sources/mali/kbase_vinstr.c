/* The legacy kbase hardware-counter reader ("vinstr"): a ring of 32-bit
 * dumps in the v5 block order, filled by DUMP and handed over with
 * GET_BUFFER / PUT_BUFFER. Used for Job Manager GPUs such as Mali-T8xx. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define VINSTR_POLL_MS 1000
#define RING_MAX 32
#define RING_MIN 2

struct vinstr {
    int fd;
    uint8_t *map;
    size_t map_len;
    uint32_t dump_size;        /* bytes per dump */
    uint32_t nbuffers;
    uint32_t shader_blocks;    /* highest present core + 1 */
    int with_cycles;           /* the 32-byte GET/PUT forms are accepted */
    uint64_t prev_ts;          /* end of the previous dump: start of the next interval */
    const char *call;          /* the reader call made last, for messages */
    uint32_t enabled[GT_KB_NBLOCKS];
};

static int sys_ioctl(const struct gt_kbase_dev *dev, int fd, unsigned long req, void *arg)
{
    return dev->sys->ioctl(dev->sys->ctx, fd, req, arg);
}

/* Bit k of a block's legacy mask enables counters 4k..4k+3; the reader
 * carries only the first 64 counters of a block. */
static uint32_t legacy_mask(const uint64_t mask[2])
{
    uint32_t bm = 0;
    unsigned k;

    for (k = 0; k < 16; k++)
        if ((mask[0] >> (4 * k)) & 0xFull)
            bm |= 1u << k;
    return bm;
}

static unsigned highest_core(uint64_t mask)
{
    unsigned n = 0;

    while (n < 64 && (mask >> n) != 0)
        n++;
    return n;
}

static const char *blocked_hint(int err)
{
    if (err == EACCES || err == EPERM)
        return " — the driver or the vendor's SELinux policy refuses counter access to this "
               "user; try `adb root` on a userdebug build";
    if (err == ENOTTY)
        return " — this kernel has no legacy counter reader";
    return "";
}

static int setup_post_r21(const struct gt_kbase_dev *dev, const uint32_t bm[GT_KB_NBLOCKS],
                          uint32_t count)
{
    struct gt_kbase_hwcnt_reader_setup s = {
        .buffer_count = count,
        .fe_bm = bm[GT_KB_FE],
        .shader_bm = bm[GT_KB_SHADER],
        .tiler_bm = bm[GT_KB_TILER],
        .mmu_l2_bm = bm[GT_KB_MEMSYS],
    };

    return sys_ioctl(dev, dev->fd, GT_KBASE_IOCTL_HWCNT_READER_SETUP, &s);
}

static int setup_pre_r21(const struct gt_kbase_dev *dev, const uint32_t bm[GT_KB_NBLOCKS],
                         uint32_t count)
{
    struct gt_uk_hwcnt_reader_setup s;

    memset(&s, 0, sizeof(s));
    s.header.id = GT_UK_FUNC_HWCNT_READER_SETUP;
    s.buffer_count = count;
    s.jm_bm = bm[GT_KB_FE];
    s.shader_bm = bm[GT_KB_SHADER];
    s.tiler_bm = bm[GT_KB_TILER];
    s.mmu_l2_bm = bm[GT_KB_MEMSYS];
    if (sys_ioctl(dev, dev->fd, GT_UK_IOCTL_HWCNT_READER_SETUP, &s) < 0)
        return -1;
    if (s.header.ret != 0 || s.fd < 0) {
        /* The UK dispatcher reports every failure, a failed allocation
         * included, in the header only: treat it as one, so a smaller
         * ring is tried as on newer kernels. */
        errno = ENOMEM;
        return -1;
    }
    return s.fd;
}

static int setup_ring(struct vinstr *v, const struct gt_kbase_dev *dev, uint32_t count)
{
    int fd = dev->api == GT_KBASE_API_PRE_R21 ? setup_pre_r21(dev, v->enabled, count)
                                              : setup_post_r21(dev, v->enabled, count);
    if (fd < 0)
        return -1;
    v->fd = fd;
    v->nbuffers = count;
    return 0;
}

static void close_ring(struct vinstr *v, const struct gt_kbase_dev *dev)
{
    if (v->map)
        dev->sys->munmap(dev->sys->ctx, v->map, v->map_len);
    if (v->fd >= 0)
        dev->sys->close(dev->sys->ctx, v->fd);
    v->map = NULL;
    v->fd = -1;
}

/* The buffers come from one physically contiguous allocation, so a large
 * ring can fail with ENOMEM; the largest the kernel grants is kept. */
static int open_reader(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    uint32_t count;
    int err = ENOMEM;

    for (count = RING_MAX; count >= RING_MIN; count /= 2) {
        if (setup_ring(v, dev, count) == 0)
            return 0;
        err = errno;
        if (err != ENOMEM)
            break;
    }
    if (err == ENOMEM && dev->api == GT_KBASE_API_PRE_R21)
        gt_diag_set(d, "%s: HWCNT_READER_SETUP (UK call %d) failed for every ring of %d..%d "
                       "dumps: the kernel answered with an error code in the call's header",
                    dev->path, GT_UK_FUNC_HWCNT_READER_SETUP, RING_MAX, RING_MIN);
    else
        gt_diag_errno(d, err, "%s: HWCNT_READER_SETUP failed: %s%s%s", dev->path, strerror(err),
                      err == ENOMEM ? " (for every ring of 32..2 dumps)" : "", blocked_hint(err));
    return -1;
}

/* Newer kernels report whether dumps carry clock cycles; older ones only
 * know the plain version call and the 16-byte GET/PUT forms. */
static void query_features(struct vinstr *v, const struct gt_kbase_dev *dev, uint32_t *ncycles)
{
    struct gt_kbase_hwcnt_reader_api_version av = { 0, 0 };
    uint32_t version = 0;

    *ncycles = 0;
    if (sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_API_VERSION_WITH_FEATURES, &av) == 0) {
        v->with_cycles = (av.features & (GT_KBASE_HWCNT_FEATURE_CYCLES_TOP |
                                         GT_KBASE_HWCNT_FEATURE_CYCLES_SHADER)) != 0;
        if (av.features & GT_KBASE_HWCNT_FEATURE_CYCLES_TOP)
            *ncycles = 1;
        if (av.features & GT_KBASE_HWCNT_FEATURE_CYCLES_SHADER)
            *ncycles = 2;
        return;
    }
    (void)sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_API_VERSION, &version);
}

static int check_sizes(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    uint32_t hwver = 0, size = 0, blocks;

    if (sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_HWVER, &hwver) == 0 && hwver == 4) {
        gt_diag_set(d, "%s: the counter reader uses the v4 dump layout (Mali-T60x/T62x/T72x), "
                       "which gputop does not read", dev->path);
        return -1;
    }
    if (sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_BUFFER_SIZE, &size) < 0) {
        gt_diag_errno(d, errno, "%s: GET_BUFFER_SIZE failed: %s", dev->path, strerror(errno));
        return -1;
    }
    v->shader_blocks = highest_core(dev->gpu.core_mask);
    blocks = 2 + dev->gpu.l2_slices + v->shader_blocks;
    if (size < blocks * GT_KBASE_LEGACY_VALUES_PER_BLOCK * 4u || size > (1u << 24)) {
        gt_diag_set(d, "%s: the kernel's dump size %u bytes does not fit %u blocks of %u counters "
                       "(%u L2 slices, core mask 0x%llx)", dev->path, size, blocks,
                    GT_KBASE_LEGACY_VALUES_PER_BLOCK, dev->gpu.l2_slices,
                    (unsigned long long)dev->gpu.core_mask);
        return -1;
    }
    v->dump_size = size;
    return 0;
}

static int map_ring(struct vinstr *v, const struct gt_kbase_dev *dev)
{
    size_t len = (size_t)v->dump_size * v->nbuffers;
    void *p = dev->sys->mmap(dev->sys->ctx, NULL, len, PROT_READ, MAP_PRIVATE, v->fd, 0);

    if (p == MAP_FAILED)
        return -1;
    v->map = p;
    v->map_len = len;
    return 0;
}

static size_t page_size(const struct gt_kbase_dev *dev)
{
    long p;

    if (dev->sys->page_size)
        return dev->sys->page_size;
    p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* A mapping is always whole pages. Older kernels refuse one longer than
 * buffer_count * dump size, so only a ring of whole pages maps there;
 * newer ones compare with the size rounded up to pages. Rings of whole
 * pages, which every kernel maps, are tried first, largest first; then
 * the others, for the newer rule. */
static void ring_order(uint32_t granted, uint32_t dump_size, size_t page, uint32_t *order,
                       int *n)
{
    uint32_t c;
    int pass;

    *n = 0;
    for (pass = 0; pass < 2; pass++)
        for (c = granted; c >= RING_MIN; c /= 2)
            if ((((size_t)c * dump_size) % page == 0) == (pass == 0))
                order[(*n)++] = c;
}

static int place_ring(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    uint32_t order[8], granted = v->nbuffers, refused_whole = 0, mapped_tries = 0;
    size_t page = page_size(dev);
    int n, i, err = 0;

    ring_order(granted, v->dump_size, page, order, &n);
    for (i = 0; i < n; i++) {
        if (order[i] != v->nbuffers || v->fd < 0) {
            close_ring(v, dev);
            if (setup_ring(v, dev, order[i]) < 0) {
                if (errno == ENOMEM)
                    continue;
                gt_diag_errno(d, errno, "%s: HWCNT_READER_SETUP for a ring of %u dumps failed: %s",
                              dev->path, order[i], strerror(errno));
                return -1;
            }
        }
        if (map_ring(v, dev) == 0)
            return 0;
        err = errno;
        mapped_tries++;
        if (((size_t)order[i] * v->dump_size) % page == 0)
            refused_whole = order[i];
    }
    if (!mapped_tries)
        gt_diag_errno(d, ENOMEM, "%s: HWCNT_READER_SETUP failed for every smaller ring too: %s",
                      dev->path, strerror(ENOMEM));
    else if (refused_whole || err != EINVAL)
        gt_diag_errno(d, err, "%s: cannot map the counter ring (%u dumps of %u bytes): %s",
                      dev->path, refused_whole ? refused_whole : granted, v->dump_size,
                      strerror(err));
    else
        gt_diag_set(d, "%s: cannot map the counter ring: this kernel refuses a mapping longer "
                       "than buffer_count x dump size (the older kbase rule; mappings are whole "
                       "%zu-byte pages), and no ring of %u..%u dumps of %u bytes it could "
                       "allocate is a whole number of pages", dev->path, page, RING_MIN, granted,
                    v->dump_size);
    return -1;
}

/* ---- taking dumps ---- */

static int get_buffer(struct vinstr *v, const struct gt_kbase_dev *dev,
                      struct gt_kbase_hwcnt_reader_metadata_cycles *md)
{
    memset(md, 0, sizeof(*md));
    if (v->with_cycles)
        return sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_BUFFER_WITH_CYCLES, md);
    return sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_GET_BUFFER, &md->md);
}

static int put_buffer(struct vinstr *v, const struct gt_kbase_dev *dev,
                      struct gt_kbase_hwcnt_reader_metadata_cycles *md)
{
    if (v->with_cycles)
        return sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_PUT_BUFFER_WITH_CYCLES, md);
    return sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_PUT_BUFFER, &md->md);
}

/* Decodes the dump in buffer idx. */
static void decode(struct vinstr *v, const struct gt_kbase_dev *dev, uint32_t idx,
                   struct gt_kbase_frame *f)
{
    gt_kbase_decode_legacy(f, &dev->gpu, v->map + (size_t)idx * v->dump_size, v->shader_blocks,
                           v->enabled);
}

static int wait_ready(struct vinstr *v, const struct gt_kbase_dev *dev, int timeout_ms)
{
    struct pollfd pfd = { .fd = v->fd, .events = POLLIN, .revents = 0 };
    int r = dev->sys->poll(dev->sys->ctx, &pfd, 1, timeout_ms);

    if (timeout_ms)
        v->call = "poll";
    if (r < 0)
        return -1;
    if (r == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
        errno = ENODEV;
        return -1;
    }
    return 0;
}

/* Takes one filled buffer, adds it into f (when f is not NULL) and hands
 * it back. Returns 0, or -1 with errno. */
static int consume(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_kbase_frame *f)
{
    struct gt_kbase_hwcnt_reader_metadata_cycles md;

    v->call = "GET_BUFFER";
    if (get_buffer(v, dev, &md) < 0)
        return -1;
    if (md.md.buffer_idx >= v->nbuffers) {
        errno = ERANGE;
        return -1;
    }
    if (f) {
        decode(v, dev, md.md.buffer_idx, f);
        if (!f->ts_start_ns)
            f->ts_start_ns = v->prev_ts;
        f->ts_end_ns = md.md.timestamp;
        f->cycles[0] += md.top;
        f->cycles[1] += md.shader_cores;
    }
    v->prev_ts = md.md.timestamp;
    v->call = "PUT_BUFFER";
    return put_buffer(v, dev, &md);
}

/* A full ring means dumps we have not read: they are deltas too, so they
 * are added in rather than dropped. */
static int drain(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_kbase_frame *f)
{
    uint32_t n = 0;

    while (n < v->nbuffers && wait_ready(v, dev, 0) == 0) {
        if (consume(v, dev, f) < 0)
            return -1;
        n++;
    }
    if (f && n) {
        f->merged += n;
        f->flags |= GT_KB_FRAME_OVERFLOW;
    }
    return 0;
}

static int dump(struct vinstr *v, const struct gt_kbase_dev *dev)
{
    uint32_t unused = 0;

    v->call = "DUMP";
    return sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_DUMP, &unused);
}

static int ring_waiting(struct vinstr *v, const struct gt_kbase_dev *dev)
{
    int err = errno, r = wait_ready(v, dev, 0) == 0;

    errno = err;
    return r;
}

/* A refused DUMP means a full ring when dumps are waiting: EBUSY on newer
 * kernels, EPERM on older ones; they are drained in and the dump taken
 * again. On older kernels EBUSY with nothing waiting means the GPU is
 * suspended; two such refusals in a row make DUMP_SUSPENDED. */
enum { DUMP_OK = 0, DUMP_SUSPENDED = 1 };

static int dump_now(struct vinstr *v, const struct gt_kbase_dev *dev, struct gt_kbase_frame *f)
{
    int tries;

    for (tries = 0; tries < 2; tries++) {
        if (dump(v, dev) == 0)
            return DUMP_OK;
        if (errno != EBUSY && errno != EPERM)
            return -1;
        if (ring_waiting(v, dev)) {
            if (drain(v, dev, f) < 0)
                return -1;
        } else if (errno == EPERM) {
            return -1;          /* refused outright, not a full ring */
        }
    }
    if (errno == EBUSY && !ring_waiting(v, dev))
        return DUMP_SUSPENDED;
    return -1;
}

/* What a failed reader call means, where the errno says. */
static const char *lost_hint(int err)
{
    if (err == ENODEV || err == EIO || err == ESHUTDOWN)
        return " (GPU device lost)";
    if (err == ETIMEDOUT)
        return " (no dump arrived within a second: the kernel did not take it)";
    if (err == EPERM || err == EACCES)
        return " (refused with no dump waiting, so not a full ring: counter access withdrawn)";
    return "";
}

static int vinstr_sample(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct vinstr *v = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    int dr;

    gt_kbase_frame_clear(f);
    dr = dump_now(v, dev, f);
    if (dr == DUMP_SUSPENDED && f->merged) {
        f->ncycles = r->ncycles;        /* what was drained is data up to its own end */
        return 0;
    }
    if (dr == DUMP_SUSPENDED) {
        gt_diag_set(d, "%s: the GPU is suspended: the kernel refused DUMP twice with EBUSY, "
                       "an older kbase's answer while the GPU sleeps; no data for this "
                       "interval, trying again later", dev->path);
        return GT_KB_AGAIN;
    }
    if (dr < 0 || wait_ready(v, dev, VINSTR_POLL_MS) < 0 || consume(v, dev, f) < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: counter dump failed (%s on the legacy reader): %s%s", dev->path,
                      v->call, strerror(err), lost_hint(err));
        return -1;
    }
    f->ncycles = r->ncycles;
    return 0;
}

static int vinstr_next(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct vinstr *v = r->priv;
    const struct gt_kbase_dev *dev = r->dev;

    gt_kbase_frame_clear(f);
    if (wait_ready(v, dev, 0) < 0) {
        if (errno == ETIMEDOUT)
            return GT_KB_EMPTY;
    } else if (consume(v, dev, f) == 0) {
        f->ncycles = r->ncycles;
        return 0;
    }
    gt_diag_errno(d, errno, "%s: periodic dump failed (%s on the legacy reader): %s%s",
                  dev->path, v->call, strerror(errno), lost_hint(errno));
    return -1;
}

/* SET_INTERVAL takes the period by value (mali_kbase_vinstr.c), in a u32. */
static int set_interval(struct vinstr *v, const struct gt_kbase_dev *dev, uint64_t ns)
{
    v->call = "SET_INTERVAL";
    return dev->sys->ioctl(dev->sys->ctx, v->fd, GT_KBASE_HWCNT_READER_SET_INTERVAL,
                           (void *)(uintptr_t)(uint32_t)ns);
}

static int vinstr_set_period(struct gt_kbase_reader *r, uint64_t ns, struct gt_diag *d)
{
    struct vinstr *v = r->priv;

    if (set_interval(v, r->dev, ns) < 0) {
        gt_diag_errno(d, errno, "%s: the legacy reader refused SET_INTERVAL %llu ns: %s",
                      r->dev->path, (unsigned long long)ns, strerror(errno));
        return -1;
    }
    r->period_ns = ns;
    return 0;
}

/* Periodic dumps stop; the ring's dumps are added into f, then a last
 * dump with what was counted since the last periodic one (what
 * kinstr_prfcnt's STOP sample holds), so a stop loses no counts. */
static int vinstr_finish(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct vinstr *v = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    uint32_t n = 0;
    int dr;

    if (r->period_ns && set_interval(v, dev, 0) < 0) {
        gt_diag_errno(d, errno, "%s: SET_INTERVAL 0 failed: %s", dev->path, strerror(errno));
        return -1;
    }
    while (n < v->nbuffers && wait_ready(v, dev, 0) == 0) {
        if (consume(v, dev, f) < 0)
            return -1;
        n++;
    }
    f->ncycles = r->ncycles;
    dr = dump_now(v, dev, f);
    if (dr == DUMP_SUSPENDED)
        return (int)n;          /* a suspended GPU counted nothing since */
    if (dr < 0 || wait_ready(v, dev, VINSTR_POLL_MS) < 0 || consume(v, dev, f) < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: the last dump after periodic dumps stopped failed (%s on "
                              "the legacy reader): %s%s", dev->path, v->call, strerror(err),
                      lost_hint(err));
        return -1;
    }
    return (int)n + 1;
}

/* The first dump after CLEAR only fixes the kernel time the next interval
 * starts from; periodic dumps start after it. */
static int vinstr_start(struct gt_kbase_reader *r, struct gt_diag *d)
{
    struct vinstr *v = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    uint32_t unused = 0;
    int dr;

    v->call = "CLEAR";
    if (sys_ioctl(dev, v->fd, GT_KBASE_HWCNT_READER_CLEAR, &unused) < 0)
        goto fail;
    dr = dump_now(v, dev, NULL);
    if (dr == DUMP_SUSPENDED) {
        gt_diag_set(d, "%s: starting the counter reader failed: the GPU is suspended (DUMP "
                       "refused twice with EBUSY)", dev->path);
        return -1;
    }
    if (dr < 0 || wait_ready(v, dev, VINSTR_POLL_MS) < 0 || consume(v, dev, NULL) < 0)
        goto fail;
    if (r->period_ns && set_interval(v, dev, r->period_ns) < 0)
        goto fail;
    return 0;
fail: {
        int err = errno;
        gt_diag_errno(d, err, "%s: starting the counter reader failed (%s): %s%s", dev->path,
                      v->call, strerror(err), lost_hint(err));
        return -1;
    }
    return 0;
}

static void vinstr_close(struct gt_kbase_reader *r)
{
    struct vinstr *v = r->priv;
    const struct gt_kbase_dev *dev = r->dev;

    if (!v)
        return;
    close_ring(v, dev);
    free(v);
    r->priv = NULL;
}

static const struct gt_kbase_reader_ops vinstr_ops = {
    .name = "legacy hwcnt reader",
    .start = vinstr_start,
    .sample = vinstr_sample,
    .next = vinstr_next,
    .finish = vinstr_finish,
    .set_period = vinstr_set_period,
    .close = vinstr_close,
};

int gt_kbase_vinstr_open(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                         const struct gt_kbase_enable *en, struct gt_diag *d)
{
    struct vinstr *v = calloc(1, sizeof(*v));
    int b;

    memset(r, 0, sizeof(*r));
    r->ops = &vinstr_ops;
    r->dev = dev;
    if (!v) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    v->fd = -1;
    r->priv = v;
    for (b = 0; b < GT_KB_NBLOCKS; b++)
        v->enabled[b] = legacy_mask(en->mask[b]);
    if (open_reader(v, dev, d) < 0 || check_sizes(v, dev, d) < 0 || place_ring(v, dev, d) < 0) {
        vinstr_close(r);
        return -1;
    }
    query_features(v, dev, &r->ncycles);
    r->values_per_block = GT_KBASE_LEGACY_VALUES_PER_BLOCK;
    for (b = 0; b < GT_KB_NBLOCKS; b++)
        r->values[b] = GT_KBASE_LEGACY_VALUES_PER_BLOCK;
    r->shader_instances = v->shader_blocks;
    r->buffers = v->nbuffers;
    return 0;
}
