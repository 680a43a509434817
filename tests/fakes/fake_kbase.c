/* The fake kbase kernel: request numbers as literal values and arguments
 * at the byte offsets of the kernel's UAPI headers (see fake_kbase.h). */
#include "fakes/fake_kbase_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int fkp_protocol(struct fake_kbase *fk, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(fk->st.last_error, sizeof(fk->st.last_error), fmt, ap);
    va_end(ap);
    fk->st.protocol_errors++;
    return fail(err);
}

struct file *fkp_file_of(struct fake_kbase *fk, int fd)
{
    if (fd < FD_BASE || fd >= FD_BASE + NFILES || fk->files[fd - FD_BASE].kind == F_FREE)
        return NULL;
    return &fk->files[fd - FD_BASE];
}

int fkp_new_file(struct fake_kbase *fk, int kind)
{
    int i;

    for (i = 0; i < NFILES; i++)
        if (fk->files[i].kind == F_FREE) {
            memset(&fk->files[i], 0, sizeof(fk->files[i]));
            fk->files[i].kind = kind;
            fk->files[i].held = -1;
            fk->st.open_fds++;
            return FD_BASE + i;
        }
    return fail(EMFILE);
}

/* ---- the GPU ---- */

int fkp_phys_of(const struct fake_kbase *fk, unsigned logical)
{
    unsigned p, n = 0;

    for (p = 0; p < 64; p++)
        if ((fk->core_mask >> p) & 1 && n++ == logical)
            return (int)p;
    return -1;
}

unsigned fkp_instances(const struct fake_kbase *fk, int block)
{
    return block == FK_MEMSYS ? fk->slices : block == FK_SHADER ? fk->cores : 1;
}

/* The kernel's (major, minor) at or past the JM or the CSF version given. */
static int since(const struct fake_kbase *fk, unsigned jm_minor, unsigned csf_minor)
{
    unsigned major = fk->cfg.api == FK_JM ? 11 : 1;
    unsigned minor = fk->cfg.api == FK_JM ? jm_minor : csf_minor;

    if (fk->cfg.api == FK_PRE_R21)
        return 0;
    return fk->cfg.major > major || (fk->cfg.major == major && fk->cfg.minor >= minor);
}

static int has_legacy(const struct fake_kbase *fk)
{
    return !since(fk, 40, 21);
}

int fkp_has_kinstr(const struct fake_kbase *fk)
{
    return since(fk, 34, 10);
}

int fkp_buggy(const struct fake_kbase *fk)
{
    return since(fk, 34, 10) && !since(fk, 37, 17);
}

/* The block_state bits OFF and PROTECTED are defined from JM 11.41 / CSF 1.23. */
int fkp_state_defined(const struct fake_kbase *fk)
{
    return since(fk, 41, 23);
}

static unsigned fls64_mask(uint64_t m)
{
    unsigned n = 0;

    while (n < 64 && (m >> n))
        n++;
    return n;
}

unsigned fkp_enum_instances(const struct fake_kbase *fk, int block)
{
    if (block != FK_SHADER || fk->cfg.enum_shader == 0)
        return fkp_instances(fk, block);
    if (fk->cfg.enum_shader == FK_ENUM_FLS)
        return fls64_mask(fk->core_mask);
    return (unsigned)fk->cfg.enum_shader;
}

int fkp_physical_idx(const struct fake_kbase *fk)
{
    if (fk->cfg.block_idx == FK_IDX_PHYSICAL)
        return 1;
    return fk->cfg.block_idx == FK_IDX_VERSION && fkp_buggy(fk);
}

/* The delta a dump delivers: zero when the counter's group of four is not
 * enabled or the block is off or protected. */
uint64_t fkp_value(const struct fake_kbase *fk, const uint64_t mask[2], int block,
                      unsigned inst, unsigned index)
{
    /* a group of four lies within one 64-bit word of the mask */
    if (!((mask[index / 64] >> (index / 4 * 4 % 64)) & 0xF))
        return 0;
    if ((fk->state[block][inst] & (2u | 32u)) && (fkp_state_defined(fk) || !fk->cfg.stale_state))
        return 0;
    return fk->delta[block][inst][index];
}

/* ---- device ioctls ---- */

static int version_reply(struct fake_kbase *fk, struct file *f, void *arg, size_t off)
{
    unsigned major = (unsigned)get(arg, off, 2), minor = (unsigned)get(arg, off + 2, 2);

    fk->st.version_checks++;
    if (f->version_set)
        return fail(EPERM);
    if (major == fk->cfg.major)
        minor = minor < fk->cfg.minor ? minor : fk->cfg.minor;
    else {
        major = fk->cfg.major;
        minor = fk->cfg.minor;
    }
    put(arg, off, 2, major);
    put(arg, off + 2, 2, minor);
    f->version_set = 1;
    return 0;
}

static size_t props_buffer(const struct fake_kbase *fk, uint8_t *out)
{
    struct { unsigned id, code; uint64_t v; } p[] = {
        { 29, 2, 0x07120206 },                  /* RAW_L2_FEATURES: 2^7-bit bus */
        { 1, 2, (fk->gpu_id >> 16) & 0xFFFF },  /* PRODUCT_ID */
        { 4, 2, 1 }, { 3, 2, 0 },               /* r1p0 */
        { 25, 3, fk->core_mask },               /* RAW_SHADER_PRESENT */
        { 14, 0, 19 },                          /* L2 log2 size */
        { 55, fk->id_u64 ? 3u : 2u, fk->gpu_id },
        { 62, 2, 1 },                           /* one core group */
        { 6, 2, 850000 },                       /* 850 MHz */
        { 64, 3, fk->core_mask },
        { 15, 0, fk->slices },
        { 27, 3, (1ull << fk->slices) - 1 },
        { 61, 2, 1 },
        { 59, 2, 0x04000400 },
        { 82, 0, 2 },
    };
    size_t i, n = 0;

    for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        size_t sz = 1u << p[i].code;
        if (out) {
            put(out, n, 4, (p[i].id << 2) | p[i].code);
            put(out, n + 4, sz, p[i].v);
        }
        n += 4 + sz;
    }
    return n;
}

static int get_gpuprops(struct fake_kbase *fk, void *arg)
{
    uint64_t ptr = get(arg, 0, 8);
    uint32_t size = (uint32_t)get(arg, 8, 4), flags = (uint32_t)get(arg, 12, 4);
    size_t need = props_buffer(fk, NULL);

    fk->st.gpuprops_calls++;
    if (flags)
        return fkp_protocol(fk, EINVAL, "GET_GPUPROPS flags %u", flags);
    if (size == 0)
        return (int)need;
    if (size < need || !ptr)
        return fkp_protocol(fk, EINVAL, "GET_GPUPROPS buffer of %u bytes, %zu needed", size, need);
    props_buffer(fk, (uint8_t *)(uintptr_t)ptr);
    return (int)need;
}

static int uk_gpuprops(struct fake_kbase *fk, void *arg)
{
    memset((uint8_t *)arg + 8, 0, 536 - 8);
    put(arg, 0, 4, 0);
    put(arg, 58, 1, fk->slices);
    put(arg, 136, 4, 0x07120206);
    put(arg, 240, 4, fk->gpu_id);
    put(arg, 268, 4, 1);
    put(arg, 280, 8, fk->core_mask);
    put(arg, 288, 2, fk->cores);
    fk->st.gpuprops_calls++;
    return 0;
}

static int legacy_setup(struct fake_kbase *fk, uint32_t count, const uint32_t bm[4])
{
    struct file *r;
    int fd;

    fk->st.reader_setups++;
    if (!has_legacy(fk))
        return fail(ENOTTY);
    if (count < 1 || count > 32 || (count & (count - 1)))
        return fkp_protocol(fk, EINVAL, "buffer_count %u is not a power of two in 1..32", count);
    if (fk->cfg.max_buffers && count > fk->cfg.max_buffers)
        return fail(ENOMEM);     /* one physically contiguous allocation */
    fd = fkp_new_file(fk, F_LEGACY);
    if (fd < 0)
        return -1;
    r = fkp_file_of(fk, fd);
    if (!r)
        return fail(EBADF);
    r->nbuf = count;
    r->bufsize = 256u * (2 + fk->slices + fk->phys);
    memcpy(r->bm, bm, sizeof(r->bm));
    memcpy(fk->st.legacy_bm, bm, sizeof(fk->st.legacy_bm));
    r->ring = calloc(count, r->bufsize);
    return fd;
}

/* ---- gates ---- */

static int gate(struct fake_kbase *fk, struct file *f, unsigned long req)
{
    int early = req == 0x40108003ul || req == 0xC0108038ul || req == 0xC0108039ul;

    if (f->flags_set)
        return 0;
    if (fk->cfg.new_gate && early && f->version_set)
        return 0;
    return fkp_protocol(fk, fk->cfg.new_gate ? EPERM : EINVAL,
                    "request 0x%lx before VERSION_CHECK and SET_FLAGS", req);
}

static int set_flags(struct fake_kbase *fk, struct file *f, void *arg, size_t off)
{
    fk->st.set_flags++;
    if (!f->version_set)
        return fkp_protocol(fk, fk->cfg.new_gate ? EPERM : EINVAL, "SET_FLAGS before VERSION_CHECK");
    if (f->flags_set)
        return fail(EPERM);
    if (get(arg, off, 4) & ~0x7ull)
        return fkp_protocol(fk, EINVAL, "SET_FLAGS 0x%llx", (unsigned long long)get(arg, off, 4));
    f->flags_set = 1;
    return 0;
}

static int dev_pre_r21(struct fake_kbase *fk, struct file *f, unsigned long req, void *arg)
{
    uint32_t bm[4];
    int fd;

    switch (req) {
    case 0xC0108000ul:
        put(arg, 0, 4, 0);
        return version_reply(fk, f, arg, 8);
    case 0xC0108212ul:
        put(arg, 0, 4, 0);
        return set_flags(fk, f, arg, 8);
    case 0xC218820Eul:
        if (gate(fk, f, req) < 0)
            return -1;
        return uk_gpuprops(fk, arg);
    case 0xC0208224ul:
        if (gate(fk, f, req) < 0)
            return -1;
        bm[FK_FE] = (uint32_t)get(arg, 12, 4);
        bm[FK_SHADER] = (uint32_t)get(arg, 16, 4);
        bm[FK_TILER] = (uint32_t)get(arg, 20, 4);
        bm[FK_MEMSYS] = (uint32_t)get(arg, 24, 4);
        fd = legacy_setup(fk, (uint32_t)get(arg, 8, 4), bm);
        if (fd < 0) {
            /* the UK dispatcher reports a failed call in the header
             * (MALI_ERROR_FUNCTION_FAILED), the ioctl itself succeeds */
            put(arg, 0, 4, 3);
            return 0;
        }
        put(arg, 0, 4, 0);
        put(arg, 28, 4, (uint32_t)fd);
        return 0;
    default:
        return fail(ENOTTY);
    }
}

static int dev_ioctl(struct fake_kbase *fk, struct file *f, unsigned long req, void *arg)
{
    int csf = fk->cfg.api == FK_CSF;
    uint32_t bm[4];

    if (fk->cfg.api == FK_PRE_R21)
        return dev_pre_r21(fk, f, req, arg);
    switch (req) {
    case 0xC0048000ul:
    case 0xC0048034ul:
        if ((req == 0xC0048034ul) != csf)
            return fail(EPERM);       /* the other front end's reserved number */
        return version_reply(fk, f, arg, 0);
    case 0x40048001ul:
        return set_flags(fk, f, arg, 0);
    case 0x40108003ul:
        return gate(fk, f, req) < 0 ? -1 : get_gpuprops(fk, arg);
    case 0x40148008ul:
        if (!f->flags_set)
            return fkp_protocol(fk, EINVAL, "HWCNT_READER_SETUP before SET_FLAGS");
        bm[FK_FE] = (uint32_t)get(arg, 4, 4);
        bm[FK_SHADER] = (uint32_t)get(arg, 8, 4);
        bm[FK_TILER] = (uint32_t)get(arg, 12, 4);
        bm[FK_MEMSYS] = (uint32_t)get(arg, 16, 4);
        return legacy_setup(fk, (uint32_t)get(arg, 0, 4), bm);
    case 0xC0108038ul:
        return gate(fk, f, req) < 0 ? -1 : fkp_enum_info(fk, f, arg);
    case 0xC0108039ul:
        return gate(fk, f, req) < 0 ? -1 : fkp_kinstr_setup(fk, f, arg);
    default:
        return fail(ENOTTY);
    }
}

/* ---- the legacy reader ---- */

/* One dump at the fake's current time holding ticks periods' counts
 * (more than one when periodic ticks found the ring full: the kernel's
 * accumulator kept their counts, mali_kbase_vinstr.c's client dump
 * returning -EBUSY before it dumps). */
void fkp_legacy_dump(struct fake_kbase *fk, struct file *r, uint64_t ticks, uint32_t event)
{
    int used[RING] = { 0 }, i, b, idx = -1;
    uint8_t *d;
    unsigned inst, k;

    for (i = 0; i < r->nqueued; i++)
        used[r->queue[i]] = 1;
    if (r->held >= 0)
        used[r->held] = 1;
    for (i = 0; i < (int)r->nbuf && idx < 0; i++)
        if (!used[i])
            idx = i;
    d = r->ring + (size_t)idx * r->bufsize;
    memset(d, 0, r->bufsize);
    for (b = 0; b < 4; b++) {
        uint64_t mask[2] = { 0, 0 };
        for (k = 0; k < 16; k++)
            if ((r->bm[b] >> k) & 1)
                mask[0] |= 0xFull << (4 * k);
        for (inst = 0; inst < fkp_instances(fk, b); inst++) {
            unsigned pos = b == FK_FE ? 0 : b == FK_TILER ? 1 : b == FK_MEMSYS ? 2 + inst
                         : 2 + fk->slices + (unsigned)fkp_phys_of(fk, inst);
            uint8_t *blk = d + (size_t)pos * 256;
            for (k = 4; k < 64; k++) {
                uint64_t v = fkp_value(fk, mask, b, inst, k) * ticks;
                if (v)      /* the buffer was zeroed */
                    put(blk, 4 * k, 4, v > 0xFFFFFFFFull ? 0xFFFFFFFFull : v);
            }
            put(blk, 8, 4, r->bm[b]);          /* PRFCNT_EN */
        }
    }
    r->ts[idx] = fk->now;
    r->event[idx] = event;
    r->queue[r->nqueued++] = idx;
    fk->st.dumps++;
}

/* A manual dump (DUMP, or kinstr's SAMPLE_SYNC and STOP) moves the fake's
 * own clock by the time step; the real clock has moved by itself. */
void fkp_manual_step(struct fake_kbase *fk)
{
    if (fk->real_clock)
        fkp_catch_up(fk);
    else
        fk->now += fk->step;
}

int fkp_legacy_free_buffers(const struct file *r)
{
    return (int)r->nbuf - r->nqueued - (r->held >= 0);
}

static int legacy_get(struct fake_kbase *fk, struct file *r, void *arg, int cycles)
{
    int idx, i;

    fk->st.gets++;
    if (r->held >= 0)
        return fkp_protocol(fk, EBUSY, "GET_BUFFER before the previous PUT_BUFFER");
    if (!r->nqueued)
        return fail(EAGAIN);
    idx = r->queue[0];
    for (i = 1; i < r->nqueued; i++)
        r->queue[i - 1] = r->queue[i];
    r->nqueued--;
    r->held = idx;
    put(arg, 0, 8, r->ts[idx]);
    put(arg, 8, 4, r->event[idx]);
    put(arg, 12, 4, (uint32_t)idx);
    if (cycles) {
        put(arg, 16, 8, fk->cyc_top);
        put(arg, 24, 8, fk->cyc_shader);
    }
    return 0;
}

static int legacy_ioctl(struct fake_kbase *fk, struct file *r, unsigned long req, void *arg)
{
    switch (req) {
    case 0x8004BE00ul:
        put(arg, 0, 4, 5);
        return 0;
    case 0x8004BE01ul:
        put(arg, 0, 4, r->bufsize);
        return 0;
    case 0x4004BE10ul:
        if (fk->suspend_after > 0) {
            fk->suspend_after--;
        } else if (fk->suspended > 0) {
            fk->suspended--;
            if (fk->cfg.old_dump)
                return fail(EBUSY);
        }
        if (fkp_legacy_free_buffers(r) <= 0)
            return fail(fk->cfg.old_dump ? EPERM : EBUSY);
        fkp_manual_step(fk);
        /* mali_kbase_vinstr.c, kbasep_vinstr_client_dump: periodic ticks
         * that found the ring full left their counts in the client's
         * accumulator, so a manual dump holds them too */
        fkp_legacy_dump(fk, r, r->owed + 1, 0);
        r->owed = 0;
        return 0;
    case 0x4004BE11ul:
        return 0;
    case 0x8010BE20ul:
        return legacy_get(fk, r, arg, 0);
    case 0x8020BE20ul:
        return fk->cfg.no_cycles ? fail(EINVAL) : legacy_get(fk, r, arg, 1);
    case 0x4010BE21ul:
    case 0x4020BE21ul:
        if (req == 0x4020BE21ul && fk->cfg.no_cycles)
            return fail(EINVAL);
        fk->st.puts++;
        if (r->held < 0 || get(arg, 12, 4) != (uint64_t)r->held)
            return fkp_protocol(fk, EINVAL, "PUT_BUFFER of buffer %u, held %d",
                            (unsigned)get(arg, 12, 4), r->held);
        r->held = -1;
        return 0;
    case 0x4004BE30ul: {
        /* mali_kbase_vinstr.c, kbasep_vinstr_hwcnt_reader_ioctl_set_interval:
         * the interval comes by value; 0 stops periodic dumps, anything
         * under DUMP_INTERVAL_MIN_NS (100 us) is raised to it, and the
         * first periodic dump is due at the next multiple of the interval
         * (kbasep_vinstr_next_dump_time_ns). */
        uint32_t ns = (uint32_t)(uintptr_t)arg;
        r->period = ns ? fkp_period_of(ns) : 0;
        r->next_tick = ns ? fkp_first_tick(fk->now, r->period) : 0;
        fk->st.period = r->period;
        fkp_schedule_changed(fk);
        return 0;
    }
    case 0x4004BEFFul:
        put(arg, 0, 4, 1);
        return 0;
    case 0x4008BEFFul:
        if (fk->cfg.no_cycles)
            return fail(EINVAL);
        put(arg, 0, 4, 1);
        put(arg, 4, 4, 3);
        return 0;
    default:
        return fail(ENOTTY);
    }
}

/* ---- the seam ---- */

static int do_open(struct fake_kbase *fk, const char *path, int flags)
{

    if (strcmp(path, "/dev/mali0") != 0)
        return fail(ENOENT);
    if (fk->cfg.open_errno)
        return fail(fk->cfg.open_errno);
    if (fk->lost)
        return fail(ENODEV);
    if ((flags & O_ACCMODE) == O_WRONLY)
        return fail(EINVAL);
    return fkp_new_file(fk, F_DEV);
}

static int do_close(struct fake_kbase *fk, int fd)
{
    struct file *f = fkp_file_of(fk, fd);

    if (!f)
        return fail(EBADF);
    free(f->ring);
    free(f->buf);
    memset(f, 0, sizeof(*f));
    fk->st.open_fds--;
    return 0;
}

static int do_ioctl(struct fake_kbase *fk, int fd, unsigned long req, void *arg)
{
    struct file *f = fkp_file_of(fk, fd);

    if (!f)
        return fail(EBADF);
    if (fk->lost || f->dead)
        return fail(ENODEV);
    if (fk->cfg.deny_request && req == fk->cfg.deny_request)
        return fail(fk->cfg.deny_errno);
    fkp_catch_up(fk);
    /* SET_INTERVAL takes its argument by value: 0 is a value there */
    if (!arg && !(f->kind == F_LEGACY && req == 0x4004BE30ul))
        return fkp_protocol(fk, EFAULT, "request 0x%lx without an argument", req);
    switch (f->kind) {
    case F_DEV: return dev_ioctl(fk, f, req, arg);
    case F_LEGACY: return legacy_ioctl(fk, f, req, arg);
    default: return fkp_kinstr_ioctl(fk, f, req, arg);
    }
}

static void *do_mmap(struct fake_kbase *fk, void *addr, size_t len, int prot, int flags, int fd,
                     off_t off)
{
    struct file *f = fkp_file_of(fk, fd);

    (void)addr;
    (void)flags;
    if (!f || f->kind == F_DEV || off != 0 || (prot & PROT_WRITE)) {
        errno = EINVAL;
        return MAP_FAILED;
    }
    if (f->kind == F_LEGACY) {
        /* the mapping is whole pages; older kernels compare it with the
         * ring's exact size, newer ones with the size rounded to pages */
        size_t page = fk->cfg.page_size ? fk->cfg.page_size : 4096;
        size_t vma = (len + page - 1) / page * page, ring = (size_t)f->nbuf * f->bufsize;
        size_t limit = fk->cfg.old_mmap ? ring : (ring + page - 1) / page * page;
        if (len == 0 || vma > limit) {
            errno = EINVAL;
            return MAP_FAILED;
        }
        if (len < ring) {
            fkp_protocol(fk, EINVAL, "mmap of %zu bytes, the ring holds %zu", len, ring);
            return MAP_FAILED;
        }
    }
    if (f->kind == F_KINSTR && len != f->buf_len) {
        fkp_protocol(fk, EINVAL, "mmap of %zu bytes", len);
        return MAP_FAILED;
    }
    fk->st.mapped++;
    return f->kind == F_LEGACY ? (void *)f->ring : (void *)f->buf;
}

static int do_munmap(struct fake_kbase *fk, void *addr, size_t len)
{
    int i;

    (void)len;
    for (i = 0; i < NFILES; i++)
        if (fk->files[i].kind != F_FREE &&
            (addr == fk->files[i].ring || addr == fk->files[i].buf)) {
            fk->st.mapped--;
            return 0;
        }
    return fkp_protocol(fk, EINVAL, "munmap of an address never mapped");
}


static int do_poll(struct fake_kbase *fk, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    nfds_t i;
    int ready = 0;

    (void)timeout_ms;
    fkp_catch_up(fk);
    for (i = 0; i < n; i++) {
        struct file *f = fkp_file_of(fk, fds[i].fd);
        fds[i].revents = 0;
        if (!f)
            fds[i].revents = POLLNVAL;
        else if (fk->lost || f->dead)
            fds[i].revents = POLLERR | POLLHUP;
        else if ((f->kind == F_LEGACY && f->nqueued) || (f->kind == F_KINSTR && f->pending))
            fds[i].revents = POLLIN;
        ready += fds[i].revents != 0;
    }
    return ready;
}

/* The seam's entry points: each takes the fake's lock, as every kbase
 * ioctl that touches a reader takes its context's (mali_kbase_vinstr.c,
 * mali_kbase_kinstr_prfcnt.c), so that the worker's dumps and gputop's
 * threads see one kernel state. */
static struct fake_kbase *locked(void *ctx)
{
    fkp_lock(ctx);
    return ctx;
}

static int unlock_with(struct fake_kbase *fk, int r)
{
    fkp_unlock(fk);
    return r;
}

static int f_open(void *ctx, const char *path, int flags)
{
    struct fake_kbase *fk = locked(ctx);

    return unlock_with(fk, do_open(fk, path, flags));
}

static int f_close(void *ctx, int fd)
{
    struct fake_kbase *fk = locked(ctx);

    return unlock_with(fk, do_close(fk, fd));
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct fake_kbase *fk = locked(ctx);

    return unlock_with(fk, do_ioctl(fk, fd, req, arg));
}

static void *f_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct fake_kbase *fk = locked(ctx);
    void *p = do_mmap(fk, addr, len, prot, flags, fd, off);

    fkp_unlock(fk);
    return p;
}

static int f_munmap(void *ctx, void *addr, size_t len)
{
    struct fake_kbase *fk = locked(ctx);

    return unlock_with(fk, do_munmap(fk, addr, len));
}

/* Neither reader is read with read(2). */
static ssize_t f_read(void *ctx, int fd, void *buf, size_t len)
{
    (void)fd;
    (void)buf;
    (void)len;
    return unlock_with(locked(ctx), fail(EINVAL));
}

static int f_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct fake_kbase *fk = locked(ctx);

    return unlock_with(fk, do_poll(fk, fds, n, timeout_ms));
}

/* ---- set-up ---- */

/* The lock, and the worker's condition on CLOCK_MONOTONIC (fake_kbase_clock.c). */
static int init_lock(struct fake_kbase *fk)
{
    pthread_condattr_t ca;
    int bad;

    if (pthread_mutex_init(&fk->lock, NULL) != 0)
        return -1;
    bad = pthread_condattr_init(&ca) != 0;
    bad = bad || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
          pthread_cond_init(&fk->wake, &ca) != 0;
    pthread_condattr_destroy(&ca);
    if (bad) {
        pthread_mutex_destroy(&fk->lock);
        return -1;
    }
    return 0;
}

struct fake_kbase *fk_new(const struct fk_config *cfg)
{
    struct fake_kbase *fk = calloc(1, sizeof(*fk));
    unsigned p;

    if (!fk)
        return NULL;
    if (init_lock(fk) < 0) {
        free(fk);
        return NULL;
    }
    fk->cfg = *cfg;
    fk->step = 100000000ull;
    fk->now = 1000000000000ull;
    switch (cfg->gpu) {
    case FK_T830:
        fk->gpu_id = 0x08301000;
        fk->core_mask = 0xF;
        fk->slices = 1;
        fk->nvalues = 64;
        break;
    case FK_G715:
        fk->gpu_id = 0xB0021010;
        fk->core_mask = 0xEF;
        fk->slices = 2;
        fk->nvalues = 128;
        break;
    case FK_G720:
        fk->gpu_id = 0xC0001010;
        fk->id_u64 = 1;
        fk->core_mask = 0x1FFB;
        fk->slices = 2;
        fk->nvalues = 128;
        break;
    /* Bifrost and Valhall job-manager parts: arch major and product major
     * as kbase's GPU_ID2_PRODUCT_TGOX = GPU_ID2_MODEL_MAKE(7, 2) and
     * GPU_ID2_PRODUCT_TBEX = GPU_ID2_MODEL_MAKE(9, 2) (mali_kbase_gpu_id.h),
     * version r1p0; 64 values a block, like every GPU before G715 (kbase's
     * KBASE_HWCNT_V5_DEFAULT_VALUES_PER_BLOCK; HWCPipe offers the 64-value
     * legacy reader only below G715). A G52 MC2 with one L2 slice; a G78
     * MC10 with two slices and a fused-off core 3 (mask 0x7F7). */
    case FK_G52:
        fk->gpu_id = 0x72121000;
        fk->core_mask = 0x3;
        fk->slices = 1;
        fk->nvalues = 64;
        break;
    case FK_G78:
        fk->gpu_id = 0x92021000;
        fk->core_mask = 0x7F7;
        fk->slices = 2;
        fk->nvalues = 64;
        break;
    }
    if (cfg->gpu_id)
        fk->gpu_id = cfg->gpu_id;
    if (cfg->core_mask)
        fk->core_mask = cfg->core_mask;
    if (cfg->nvalues)
        fk->nvalues = cfg->nvalues;
    fk->cores = (unsigned)__builtin_popcountll(fk->core_mask);
    for (p = 0; p < 64; p++)
        if ((fk->core_mask >> p) & 1)
            fk->phys = p + 1;
    fk->sys.ctx = fk;
    fk->sys.open = f_open;
    fk->sys.close = f_close;
    fk->sys.ioctl = f_ioctl;
    fk->sys.mmap = f_mmap;
    fk->sys.munmap = f_munmap;
    fk->sys.read = f_read;
    fk->sys.poll = f_poll;
    fk->sys.root = "";
    fk->sys.page_size = cfg->page_size ? cfg->page_size : 4096;
    return fk;
}

void fk_free(struct fake_kbase *fk)
{
    int i;

    if (!fk)
        return;
    fkp_stop_worker(fk);
    for (i = 0; i < NFILES; i++) {
        free(fk->files[i].ring);
        free(fk->files[i].buf);
    }
    pthread_cond_destroy(&fk->wake);
    pthread_mutex_destroy(&fk->lock);
    free(fk);
}

const struct gt_sys *fk_sys(struct fake_kbase *fk)
{
    return &fk->sys;
}

void fk_set_counter(struct fake_kbase *fk, int block, unsigned instance, unsigned index,
                    uint64_t delta)
{
    fkp_lock(fk);
    if (block >= 0 && block < 4 && instance < MAXINST && index < NVAL_MAX)
        fk->delta[block][instance][index] = delta;
    fkp_unlock(fk);
}

void fk_set_block_state(struct fake_kbase *fk, int block, unsigned instance, uint32_t state)
{
    fkp_lock(fk);
    if (block >= 0 && block < 4 && instance < MAXINST)
        fk->state[block][instance] = state;
    fkp_unlock(fk);
}

void fk_set_time_step(struct fake_kbase *fk, uint64_t ns)
{
    fkp_lock(fk);
    fk->step = ns;
    fkp_unlock(fk);
}

void fk_advance(struct fake_kbase *fk, uint64_t ns)
{
    fkp_lock(fk);
    fkp_run_to(fk, fk->now + ns);
    fkp_unlock(fk);
}

uint64_t fk_now(struct fake_kbase *fk)
{
    uint64_t t;

    fkp_lock(fk);
    t = fk->now;
    fkp_unlock(fk);
    return t;
}

void fk_set_cycles(struct fake_kbase *fk, uint64_t top, uint64_t shader)
{
    fkp_lock(fk);
    fk->cyc_top = top;
    fk->cyc_shader = shader;
    fkp_unlock(fk);
}

void fk_lose_device(struct fake_kbase *fk)
{
    int i;

    fkp_lock(fk);
    fk->lost = 1;
    for (i = 0; i < NFILES; i++)
        if (fk->files[i].kind != F_FREE)
            fk->files[i].dead = 1;
    fkp_unlock(fk);
}

void fk_restore_device(struct fake_kbase *fk)
{
    fkp_lock(fk);
    fk->lost = 0;
    fkp_unlock(fk);
}

void fk_fill_ring(struct fake_kbase *fk)
{
    int i;

    fkp_lock(fk);
    for (i = 0; i < NFILES; i++) {
        struct file *f = &fk->files[i];
        if (f->kind == F_LEGACY)
            while (fkp_legacy_free_buffers(f) > 0) {
                fkp_manual_step(fk);
                fkp_legacy_dump(fk, f, 1, 0);
            }
        if (f->kind == F_KINSTR && f->started)
            while (f->pending < RING - 1) {
                fkp_manual_step(fk);
                fkp_kinstr_write(fk, f, 1, 0);
            }
    }
    fkp_unlock(fk);
}

/* A copy taken under the lock, as the worker counts as it goes. */
const struct fk_stats *fk_stats(struct fake_kbase *fk)
{
    fkp_lock(fk);
    fk->st_seen = fk->st;
    fkp_unlock(fk);
    return &fk->st_seen;
}

void fk_suspend(struct fake_kbase *fk, int n)
{
    fkp_lock(fk);
    fk->suspended = n;
    fkp_unlock(fk);
}

void fk_suspend_after(struct fake_kbase *fk, int after, int n)
{
    fkp_lock(fk);
    fk->suspend_after = after;
    fk->suspended = n;
    fkp_unlock(fk);
}
