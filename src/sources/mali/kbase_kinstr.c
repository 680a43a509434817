/* The kinstr_prfcnt counter reader of kbase (JM 11.34+, CSF 1.10+): u64
 * values per block, found through each sample's metadata items, for GPUs
 * such as Mali-G715 and G720 whose blocks hold 128 counters. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KINSTR_POLL_MS   1000
#define KINSTR_MAX_ITEMS 256
#define KINSTR_MAX_MAP   (256u << 20)
#define STOP_WAIT_MS     100

struct block_info {
    int present;
    uint8_t set;
    uint16_t instances, values;
};

struct kinstr {
    int fd;
    const uint8_t *map;
    size_t map_len;
    uint32_t md_stride;          /* metadata item size the kernel uses */
    struct block_info blocks[GT_KB_NBLOCKS];
    uint32_t clock_domains;
    int started;
    int physical;                /* shader block_idx are physical core positions */
    int trust_state;             /* block_state OFF/PROTECTED bits mean something */
    char why[160];               /* what was wrong with the last sample's layout */
};

static int kioctl(const struct gt_kbase_dev *dev, int fd, unsigned long req, void *arg)
{
    return dev->sys->ioctl(dev->sys->ctx, fd, req, arg);
}

static const char *hint(int err)
{
    if (err == EACCES || err == EPERM)
        return " — the driver or the vendor's SELinux policy refuses counter access to this "
               "user; try `adb root` on a userdebug build";
    if (err == ENOTTY)
        return " — this kernel has no kinstr_prfcnt interface";
    if (err == ENODEV || err == EIO || err == ESHUTDOWN)
        return " (GPU device lost)";
    return "";
}

/* ---- enumeration ---- */

static int read_enum_item(struct kinstr *k, const struct gt_prfcnt_enum_item *it, int *sentinel)
{
    switch (it->item_type) {
    case GT_PRFCNT_ENUM_BLOCK: {
        uint8_t t = it->u.block.block_type;
        if (!it->u.block.num_values && !it->u.block.num_instances) {
            *sentinel = 1;
            return 0;
        }
        if (it->u.block.num_values > GT_KB_MAX_VALUES)
            return -1;
        if (t < GT_KB_NBLOCKS) {
            k->blocks[t].present = 1;
            k->blocks[t].set = it->u.block.set;
            k->blocks[t].instances = it->u.block.num_instances;
            k->blocks[t].values = it->u.block.num_values;
        }
        return 0;
    }
    case GT_PRFCNT_ENUM_SAMPLE_INFO:
        if (it->u.sample_info.num_clock_domains > 4)
            return -1;
        k->clock_domains = it->u.sample_info.num_clock_domains;
        return 0;
    default:
        return 0;   /* request items, and kinds newer than us */
    }
}

static int enumerate(struct kinstr *k, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    struct gt_kbase_kinstr_prfcnt_enum_info info = { 0, 0, 0 };
    uint8_t *items;
    uint32_t i;
    int sentinel = 0;

    if (kioctl(dev, dev->fd, GT_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO, &info) < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: KINSTR_PRFCNT_ENUM_INFO failed: %s%s", dev->path, strerror(err),
                      hint(err));
        return -1;
    }
    if (info.info_item_size < sizeof(struct gt_prfcnt_enum_item) || info.info_item_size > 1024 ||
        info.info_item_count < 1 || info.info_item_count > KINSTR_MAX_ITEMS) {
        gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO gave %u items of %u bytes, outside what "
                       "gputop accepts", dev->path, info.info_item_count, info.info_item_size);
        return -1;
    }
    items = calloc(info.info_item_count, info.info_item_size);
    if (!items) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    info.info_list_ptr = (uint64_t)(uintptr_t)items;
    if (kioctl(dev, dev->fd, GT_KBASE_IOCTL_KINSTR_PRFCNT_ENUM_INFO, &info) < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: KINSTR_PRFCNT_ENUM_INFO failed: %s%s", dev->path, strerror(err),
                      hint(err));
        free(items);
        return -1;
    }
    for (i = 0; i < info.info_item_count && !sentinel; i++) {
        struct gt_prfcnt_enum_item it;
        memcpy(&it, items + (size_t)i * info.info_item_size, sizeof(it));
        if (read_enum_item(k, &it, &sentinel) < 0) {
            gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO item %u is malformed", dev->path, i);
            free(items);
            return -1;
        }
    }
    free(items);
    return 0;
}

static unsigned fls64_of(uint64_t m)
{
    unsigned n = 0;

    while (n < 64 && (m >> n))
        n++;
    return n;
}

/* ENUM_INFO says what a sample will hold; frames and the catalogue follow
 * it. Shader-core instances are the core count on some kernels and
 * fls64(core mask) on upstream ones; anything else means the kernel and
 * the GPU properties disagree, and no core could be trusted. */
static int check_blocks(struct kinstr *k, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    static const char *const names[GT_KB_NBLOCKS] = { "front-end", "tiler", "memory-system",
                                                      "shader-core" };
    const struct gt_kbase_gpu *g = &dev->gpu;
    unsigned fls = fls64_of(g->core_mask);
    int b;

    for (b = 0; b < GT_KB_NBLOCKS; b++) {
        const struct block_info *bi = &k->blocks[b];
        unsigned want = b == GT_KB_MEMSYS ? g->l2_slices : b == GT_KB_SHADER ? g->shader_cores : 1;
        if (!bi->present) {
            gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO lists no %s block, so its counters "
                           "cannot be read", dev->path, names[b]);
            return -1;
        }
        if (bi->values <= 4) {      /* values 0..3 are the block header */
            gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO gives the %s block %u values: no "
                           "counters past its header", dev->path, names[b], bi->values);
            return -1;
        }
        if (b == GT_KB_SHADER && bi->instances != g->shader_cores && bi->instances != fls) {
            gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO reports %u shader-core blocks, but the "
                           "GPU properties give %u cores (core mask 0x%llx, highest core %u): "
                           "the two disagree, so no core's counters can be placed",
                        dev->path, bi->instances, g->shader_cores,
                        (unsigned long long)g->core_mask, fls ? fls - 1 : 0);
            return -1;
        }
        if (b != GT_KB_SHADER && bi->instances != want) {
            gt_diag_set(d, "%s: KINSTR_PRFCNT_ENUM_INFO reports %u %s blocks, but the GPU "
                           "properties give %u", dev->path, bi->instances, names[b], want);
            return -1;
        }
    }
    return 0;
}

/* ---- setup ---- */

static int setup(struct kinstr *k, const struct gt_kbase_dev *dev,
                 const struct gt_kbase_enable *en, uint64_t period_ns, struct gt_diag *d)
{
    struct gt_prfcnt_request_item req[GT_KB_NBLOCKS + 2];
    union gt_kbase_kinstr_prfcnt_setup s;
    uint32_t n = 0;
    int b, fd;

    memset(req, 0, sizeof(req));
    req[n].item_type = GT_PRFCNT_REQUEST_MODE;
    req[n].u.mode.mode = period_ns ? GT_PRFCNT_MODE_PERIODIC : GT_PRFCNT_MODE_MANUAL;
    req[n].u.mode.period_ns = period_ns;
    n++;
    for (b = 0; b < GT_KB_NBLOCKS; b++) {
        if (!k->blocks[b].present)
            continue;
        req[n].item_type = GT_PRFCNT_REQUEST_ENABLE;
        req[n].u.enable.block_type = (uint8_t)b;
        req[n].u.enable.set = k->blocks[b].set;
        req[n].u.enable.enable_mask[0] = en->mask[b][0];
        req[n].u.enable.enable_mask[1] = en->mask[b][1];
        n++;
    }
    n++;   /* the zeroed sentinel */
    memset(&s, 0, sizeof(s));
    s.in.request_item_count = n;
    s.in.request_item_size = sizeof(req[0]);
    s.in.requests_ptr = (uint64_t)(uintptr_t)req;
    fd = kioctl(dev, dev->fd, GT_KBASE_IOCTL_KINSTR_PRFCNT_SETUP, &s);
    if (fd < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: KINSTR_PRFCNT_SETUP failed: %s%s", dev->path, strerror(err),
                      hint(err));
        return -1;
    }
    k->fd = fd;
    if (s.out.prfcnt_metadata_item_size < sizeof(struct gt_prfcnt_metadata_item) ||
        s.out.prfcnt_metadata_item_size > 1024 || s.out.prfcnt_mmap_size_bytes == 0 ||
        s.out.prfcnt_mmap_size_bytes > KINSTR_MAX_MAP) {
        gt_diag_set(d, "%s: KINSTR_PRFCNT_SETUP gave metadata items of %u bytes and a %u-byte "
                       "buffer, outside what gputop accepts", dev->path,
                    s.out.prfcnt_metadata_item_size, s.out.prfcnt_mmap_size_bytes);
        return -1;
    }
    k->md_stride = s.out.prfcnt_metadata_item_size;
    k->map_len = s.out.prfcnt_mmap_size_bytes;
    return 0;
}

static int map_buffer(struct kinstr *k, const struct gt_kbase_dev *dev, struct gt_diag *d)
{
    void *p = dev->sys->mmap(dev->sys->ctx, NULL, k->map_len, PROT_READ, MAP_SHARED, k->fd, 0);

    if (p == MAP_FAILED) {
        gt_diag_errno(d, errno, "%s: cannot map the kinstr_prfcnt buffer (%zu bytes): %s",
                      dev->path, k->map_len, strerror(errno));
        return -1;
    }
    k->map = p;
    return 0;
}

static int command(struct kinstr *k, const struct gt_kbase_dev *dev, uint16_t cmd)
{
    struct gt_prfcnt_control_cmd c;

    memset(&c, 0, sizeof(c));
    c.cmd = cmd;
    c.user_data = 0x67707574ull;   /* "gput" */
    return kioctl(dev, k->fd, GT_KINSTR_PRFCNT_CMD, &c);
}

/* ---- decoding a sample ---- */

static int wait_sample(struct kinstr *k, const struct gt_kbase_dev *dev, int timeout_ms)
{
    struct pollfd pfd = { .fd = k->fd, .events = POLLIN, .revents = 0 };
    int r = dev->sys->poll(dev->sys->ctx, &pfd, 1, timeout_ms);

    if (r < 0)
        return -1;
    if (r == 0) {
        errno = timeout_ms ? ETIMEDOUT : EAGAIN;
        return -1;
    }
    if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
        errno = ENODEV;
        return -1;
    }
    return 0;
}

__attribute__((format(printf, 2, 3)))
static int bad_layout(struct kinstr *k, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(k->why, sizeof(k->why), fmt, ap);
    va_end(ap);
    errno = ERANGE;
    return -1;
}

static int add_block(struct kinstr *k, const struct gt_kbase_dev *dev,
                     const struct gt_prfcnt_metadata_item *it, struct gt_kbase_frame *f)
{
    unsigned type = it->u.block.block_type, idx = it->u.block.block_idx, n, i;
    uint64_t off = it->u.block.values_offset;
    uint8_t *state;
    uint64_t *row;
    int inst;

    if (type >= GT_KB_NBLOCKS)
        return 0;   /* firmware and CSG blocks: not in our tables */
    inst = (int)idx;
    if (type == GT_KB_SHADER && k->physical)
        inst = gt_kbase_core_rank(dev->gpu.core_mask, idx);
    if (inst < 0)
        return bad_layout(k, "shader block_idx %u is no core of the mask 0x%llx", idx,
                          (unsigned long long)dev->gpu.core_mask);
    if ((uint32_t)inst >= f->ninst[type])
        return bad_layout(k, "block type %u instance %u is past the GPU's", type, (unsigned)inst);
    n = k->blocks[type].values;
    if (off > k->map_len || k->map_len - off < (uint64_t)n * 8 || off % 8)
        return bad_layout(k, "block type %u's values at offset %llu lie outside the buffer",
                          type, (unsigned long long)off);
    if (gt_kbase_frame_begin_row(f, (int)type, (uint32_t)inst, n, &row))
        memcpy(row, k->map + off, (size_t)n * 8);
    else
        for (i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, k->map + off + 8 * i, 8);
            row[i] += v;
        }
    state = &f->state[f->base[type] + (uint32_t)inst];
    if (!k->trust_state)
        return 0;
    if (it->u.block.block_state & GT_PRFCNT_BLOCK_STATE_OFF)
        *state |= GT_KB_STATE_OFF;
    if (it->u.block.block_state & GT_PRFCNT_BLOCK_STATE_PROTECTED)
        *state |= GT_KB_STATE_PROTECTED;
    return 0;
}

/* Some kernels number shader blocks by physical core position (gaps
 * where the core mask has holes) whatever their version says; Arm's
 * client finds them at run time too. A block_idx at or past ENUM_INFO's
 * instance count, or a gap in the numbering, means physical positions. */
struct idx_scan {
    unsigned n, max;
    uint64_t seen[4];
    int dup;
};

static void scan_idx(struct idx_scan *sc, const struct gt_prfcnt_metadata_item *it)
{
    unsigned idx = it->u.block.block_idx;

    if (it->u.block.block_type != GT_KB_SHADER)
        return;
    if ((sc->seen[idx / 64] >> (idx % 64)) & 1)
        sc->dup = 1;
    sc->seen[idx / 64] |= 1ull << (idx % 64);
    if (!sc->n || idx > sc->max)
        sc->max = idx;
    sc->n++;
}

static int numbering_physical(const struct kinstr *k, const struct idx_scan *sc)
{
    if (!sc->n)
        return 0;
    return sc->max >= k->blocks[GT_KB_SHADER].instances || sc->max + 1 != sc->n;
}

static void add_meta(const struct gt_prfcnt_metadata_item *it, struct gt_kbase_frame *f)
{
    if (!f->ts_start_ns || it->u.sample.timestamp_start < f->ts_start_ns)
        f->ts_start_ns = it->u.sample.timestamp_start;
    if (it->u.sample.timestamp_end > f->ts_end_ns)
        f->ts_end_ns = it->u.sample.timestamp_end;
    if (it->u.sample.flags & GT_PRFCNT_SAMPLE_FLAG_OVERFLOW)
        f->flags |= GT_KB_FRAME_OVERFLOW;
    if (it->u.sample.flags & GT_PRFCNT_SAMPLE_FLAG_ERROR)
        f->flags |= GT_KB_FRAME_ERROR;
}

static void add_clock(const struct gt_prfcnt_metadata_item *it, struct gt_kbase_frame *f)
{
    uint32_t i, n = it->u.clock.num_domains < 2 ? it->u.clock.num_domains : 2;

    for (i = 0; i < n; i++)
        f->cycles[i] += it->u.clock.cycles[i];
    if (n > f->ncycles)
        f->ncycles = n;
}

/* Walks one sample's metadata items, at most as many as fit the buffer:
 * with f NULL only to scan the shader numbering, else to add it into f. */
static int walk(struct kinstr *k, const struct gt_kbase_dev *dev, uint64_t off,
                struct gt_kbase_frame *f, struct idx_scan *sc)
{
    size_t max = k->map_len / k->md_stride, i;

    for (i = 0; i < max; i++, off += k->md_stride) {
        struct gt_prfcnt_metadata_item it;

        if (off > k->map_len || k->map_len - off < sizeof(it))
            return bad_layout(k, "metadata item %zu at offset %llu lies outside the buffer",
                              i, (unsigned long long)off);
        memcpy(&it, k->map + off, sizeof(it));
        if (it.item_type == GT_PRFCNT_ITEM_NONE)
            return 0;
        if (it.item_type == GT_PRFCNT_SAMPLE_BLOCK && sc)
            scan_idx(sc, &it);
        if (!f)
            continue;
        if (it.item_type == GT_PRFCNT_SAMPLE_META)
            add_meta(&it, f);
        else if (it.item_type == GT_PRFCNT_SAMPLE_CLOCK)
            add_clock(&it, f);
        else if (it.item_type == GT_PRFCNT_SAMPLE_BLOCK && add_block(k, dev, &it, f) < 0)
            return -1;
    }
    return bad_layout(k, "no end item among the sample's %zu metadata items", max);
}

static int decode(struct kinstr *k, const struct gt_kbase_dev *dev, uint64_t off,
                  struct gt_kbase_frame *f)
{
    struct idx_scan sc;

    memset(&sc, 0, sizeof(sc));
    if (walk(k, dev, off, NULL, &sc) < 0)
        return -1;
    if (sc.dup)
        return bad_layout(k, "a shader block_idx appears twice in one sample");
    if (!k->physical && numbering_physical(k, &sc))
        k->physical = 1;
    return walk(k, dev, off, f, NULL);
}

/* Takes the oldest waiting sample, adds it into f (unless NULL) and hands
 * it back. */
static int consume(struct kinstr *k, const struct gt_kbase_dev *dev, struct gt_kbase_frame *f)
{
    struct gt_prfcnt_sample_access a = { 0, 0 };
    int r = 0;

    if (kioctl(dev, k->fd, GT_KINSTR_PRFCNT_GET_SAMPLE, &a) < 0)
        return -1;
    if (f)
        r = decode(k, dev, a.sample_offset_bytes, f);
    if (kioctl(dev, k->fd, GT_KINSTR_PRFCNT_PUT_SAMPLE, &a) < 0)
        return -1;
    return r;
}

/* Samples already waiting are deltas too: added, not dropped. */
static int drain(struct kinstr *k, const struct gt_kbase_dev *dev, struct gt_kbase_frame *f)
{
    uint32_t n;

    for (n = 0; n < GT_PRFCNT_RING_SAMPLES; n++) {
        if (wait_sample(k, dev, 0) < 0)
            return errno == EAGAIN ? (int)n : -1;
        if (consume(k, dev, f) < 0)
            return -1;
    }
    return (int)n;
}

/* Why a sample (manual or periodic) could not be taken; -1. */
static int sample_failed(struct kinstr *k, const struct gt_kbase_dev *dev, int err,
                         struct gt_diag *d)
{
    if (err == ERANGE && k->why[0])
        gt_diag_set(d, "%s: kinstr_prfcnt sample not usable: %s", dev->path, k->why);
    else
        gt_diag_errno(d, err, "%s: kinstr_prfcnt sample failed: %s%s", dev->path, strerror(err),
                      hint(err));
    k->why[0] = 0;
    return -1;
}

static int kinstr_sample(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct kinstr *k = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    int drained = 0;

    gt_kbase_frame_clear(f);
    if (command(k, dev, GT_PRFCNT_CMD_SAMPLE_SYNC) < 0) {
        if (errno != EBUSY)
            goto fail;
        drained = drain(k, dev, f);
        if (drained < 0 || command(k, dev, GT_PRFCNT_CMD_SAMPLE_SYNC) < 0)
            goto fail;
    }
    if (wait_sample(k, dev, KINSTR_POLL_MS) < 0 || consume(k, dev, f) < 0)
        goto fail;
    if (drained) {
        f->merged += (uint32_t)drained;
        f->flags |= GT_KB_FRAME_OVERFLOW;
    }
    r->physical_idx = k->physical;
    return 0;
fail:
    return sample_failed(k, dev, errno, d);
}

static int kinstr_next(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct kinstr *k = r->priv;
    const struct gt_kbase_dev *dev = r->dev;

    gt_kbase_frame_clear(f);
    if (wait_sample(k, dev, 0) < 0) {
        if (errno == EAGAIN)
            return GT_KB_EMPTY;
        goto fail;
    }
    if (consume(k, dev, f) < 0)
        goto fail;
    r->physical_idx = k->physical;
    return 0;
fail:
    return sample_failed(k, dev, errno, d);
}

/* STOP writes one last sample; with what the ring still holds it is
 * added into f, so a change of period loses no counts. */
static int kinstr_finish(struct gt_kbase_reader *r, struct gt_kbase_frame *f, struct gt_diag *d)
{
    struct kinstr *k = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    int n = 0;

    if (!k->started)
        return 0;
    if (command(k, dev, GT_PRFCNT_CMD_STOP) < 0) {
        gt_diag_set(d, "%s: kinstr_prfcnt STOP failed: %s%s", dev->path, strerror(errno),
                    hint(errno));
        return -1;
    }
    k->started = 0;
    while (n <= GT_PRFCNT_RING_SAMPLES && wait_sample(k, dev, n ? 0 : STOP_WAIT_MS) == 0) {
        if (consume(k, dev, f) < 0) {
            gt_diag_set(d, "%s: kinstr_prfcnt sample after STOP failed: %s", dev->path,
                        strerror(errno));
            return -1;
        }
        n++;
    }
    return n;
}

static int kinstr_start(struct gt_kbase_reader *r, struct gt_diag *d)
{
    struct kinstr *k = r->priv;
    const struct gt_kbase_dev *dev = r->dev;

    if (command(k, dev, GT_PRFCNT_CMD_START) < 0) {
        int err = errno;
        gt_diag_errno(d, err, "%s: kinstr_prfcnt START failed: %s%s", dev->path, strerror(err),
                      hint(err));
        return -1;
    }
    k->started = 1;
    return 0;
}

/* STOP writes one last sample, which is taken so the ring is left empty;
 * kernels with the known bugs may not write it, hence the short wait. */
static void kinstr_close(struct gt_kbase_reader *r)
{
    struct kinstr *k = r->priv;
    const struct gt_kbase_dev *dev = r->dev;
    int n;

    if (!k)
        return;
    if (k->started && command(k, dev, GT_PRFCNT_CMD_STOP) == 0)
        for (n = 0; n < GT_PRFCNT_RING_SAMPLES && wait_sample(k, dev, n ? 0 : STOP_WAIT_MS) == 0;
             n++)
            if (consume(k, dev, NULL) < 0)
                break;
    if (k->map)
        dev->sys->munmap(dev->sys->ctx, (void *)k->map, k->map_len);
    if (k->fd >= 0)
        dev->sys->close(dev->sys->ctx, k->fd);
    free(k);
    r->priv = NULL;
}

static const struct gt_kbase_reader_ops kinstr_ops = {
    .name = "kinstr_prfcnt",
    .start = kinstr_start,
    .sample = kinstr_sample,
    .next = kinstr_next,
    .finish = kinstr_finish,
    .close = kinstr_close,
};

int gt_kbase_kinstr_open(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                         const struct gt_kbase_enable *en, struct gt_diag *d)
{
    return gt_kbase_kinstr_open_periodic(r, dev, en, 0, d);
}

int gt_kbase_kinstr_open_periodic(struct gt_kbase_reader *r, const struct gt_kbase_dev *dev,
                                  const struct gt_kbase_enable *en, uint64_t period_ns,
                                  struct gt_diag *d)
{
    struct kinstr *k = calloc(1, sizeof(*k));
    uint32_t b, values = 0;

    memset(r, 0, sizeof(*r));
    r->ops = &kinstr_ops;
    r->dev = dev;
    if (!k) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    k->fd = -1;
    r->priv = k;
    if (enumerate(k, dev, d) < 0 || check_blocks(k, dev, d) < 0 ||
        setup(k, dev, en, period_ns, d) < 0 ||
        map_buffer(k, dev, d) < 0) {
        kinstr_close(r);
        return -1;
    }
    k->trust_state = gt_kbase_block_state_trusted(dev);
    for (b = 0; b < GT_KB_NBLOCKS; b++) {
        r->values[b] = k->blocks[b].values;
        if (k->blocks[b].values > values)
            values = k->blocks[b].values;
    }
    r->values_per_block = values;
    r->shader_instances = k->blocks[GT_KB_SHADER].instances;
    r->ncycles = k->clock_domains < 2 ? k->clock_domains : 2;
    r->buffers = GT_PRFCNT_RING_SAMPLES;
    r->period_ns = period_ns;
    return 0;
}
