/* A fake MIPS coherency manager GCR block behind the seam's /dev/mem: the
 * perf registers' documented behaviour, counting on the test's clock or
 * CLOCK_MONOTONIC, qualifier groups, and bus errors as a real SIGBUS.
 * Sources, beside each behaviour below: DOC is the vendor document
 * vendor-docs/mips-cm-perf-registers.txt (MIPS CPS "Performance Registers
 * (GCR)"); the global registers' offsets are Linux
 * arch/mips/include/asm/mips-cm.h (GCR_CONFIG 0x000, GCR_BASE 0x008,
 * GCR_REV 0x030; the debug block at MIPS_CM_GDB_OFS 0x6000). */
#include "fake_gcr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define GCR_SIZE  0x8000u
#define DEVMEM_FD 4242
#define PAGE      4096u
#define MAXU32    0xffffffffull
#define NEV       32
#define NGROUPS   4

/* An event's qualifier groups (vendor document: "composed of several
 * groups ... matched in all groups"); the bit layouts are per core (CPS
 * Software User's Manual), so tests choose their own. */
struct qual_groups {
    int n;
    uint32_t group[NGROUPS], attr;
};

struct fake_gcr {
    struct gt_sys sys;
    struct fg_config cfg;
    struct fg_stats st;
    struct fg_regs r;
    uint8_t *map;              /* what mmap handed out */
    size_t map_len;
    uint64_t map_off;
    uint64_t now;              /* CM cycles since the fake began */
    uint32_t rate[NEV];        /* events per 1000 cycles */
    struct qual_groups qg[NEV];
    int devmem_open;
    int memfd;                 /* backs the mapping; -1 before mmap */
    int bus_error;             /* the memfd is cut: accesses raise SIGBUS */
    /* Reads give all ones, writes are lost: a block that does not answer,
     * read as Linux reads an absent device (include/linux/pci.h,
     * PCI_POSSIBLE_ERROR; what a given SoC's bus returns may differ). */
    int all_ones;
    uint64_t t0_ns, clock_done; /* hz: when the clock began, cycles it gave */
    uint64_t t_new_ns;         /* when the fake was made (cut_after_ns) */
};

static void proto(struct fake_gcr *fg, const char *fmt, ...)
{
    va_list ap;

    fg->st.protocol_errors++;
    va_start(ap, fmt);
    vsnprintf(fg->st.last_error, sizeof(fg->st.last_error), fmt, ap);
    va_end(ap);
}

/* Events of number ev in the cycles [0, t). */
static uint64_t events_until(const struct fake_gcr *fg, unsigned ev, uint64_t t)
{
    return ev < NEV ? t * fg->rate[ev] / 1000 : 0;
}

uint64_t fg_true_events(const struct fake_gcr *fg, unsigned ev)
{
    return events_until(fg, ev, fg->now);
}

/* DOC, GCR_DB_PC_CTL Perf_Ovf_Stop (bit 29): with it set, all counters stop
 * once any of them, the cycle counter included, reaches 0xFFFFFFFF. */
static int stopped(const struct fake_gcr *fg)
{
    return (fg->r.ctl & (1u << 29)) && (fg->r.ov & 7u);
}

/* Cycles until a counter at value v counting event ev (or cycles, ev < 0)
 * reaches 0xffffffff; UINT64_MAX when it never does. */
static int qual_matches(const struct fake_gcr *fg, int ev, uint32_t q);

static uint64_t cycles_to_max(const struct fake_gcr *fg, int ev, uint32_t q, uint32_t v)
{
    uint64_t need = MAXU32 - v, base, target;

    if (ev < 0)
        return need;
    if ((unsigned)ev >= NEV || fg->rate[ev] == 0 ||
        !qual_matches(fg, ev, q))
        return UINT64_MAX;
    base = events_until(fg, (unsigned)ev, fg->now);
    target = (base + need) * 1000;
    return (target + fg->rate[ev] - 1) / fg->rate[ev] - fg->now;
}

/* Whether event ev counts under qualifier q: every group must match (DOC,
 * GCR_DB_PC_QUAL: "the qualifier criteria is matched in all groups"). */
static int qual_matches(const struct fake_gcr *fg, int ev, uint32_t q)
{
    const struct qual_groups *g;
    int i;

    if (ev < 0 || ev >= NEV)
        return 1;
    g = &fg->qg[ev];
    for (i = 0; i < g->n; i++)
        if (!(q & g->group[i] & g->attr))
            return 0;
    return 1;
}

/* One counter over step cycles; sets its overflow bit as DOC says
 * (GCR_DB_PC_CTL, GCR_DB_PC_OV): on reaching 0xFFFFFFFF under Perf_Ovf_Stop,
 * else on rolling over to 0 and counting on. */
static void count(struct fake_gcr *fg, uint32_t *v, int ev, uint32_t q, uint64_t step,
                  uint32_t ovbit)
{
    uint64_t inc = ev < 0 ? step
                 : !qual_matches(fg, ev, q) ? 0
                 : events_until(fg, (unsigned)ev, fg->now + step) - events_until(fg, (unsigned)ev, fg->now);
    uint64_t nv = *v + inc;

    if (fg->r.ctl & (1u << 29)) {
        if (nv >= MAXU32) {
            nv = MAXU32;
            fg->r.ov |= ovbit;
        }
    } else if (nv > MAXU32) {
        fg->r.ov |= ovbit;
    }
    *v = (uint32_t)nv;
}

static void step_counters(struct fake_gcr *fg, uint64_t step)
{
    int e0 = (int)(fg->r.event & 0xff), e1 = (int)(fg->r.event >> 8 & 0xff);

    if (fg->r.ctl & (1u << 4))
        count(fg, &fg->r.cycle, -1, 0, step, 1u);
    if (fg->r.ctl & (1u << 6))
        count(fg, &fg->r.cnt0, e0, fg->r.qual0, step, 2u);
    if (fg->r.ctl & (1u << 8))
        count(fg, &fg->r.cnt1, e1, fg->r.qual1, step, 4u);
}

void fg_advance(struct fake_gcr *fg, uint64_t cycles)
{
    int e0 = (int)(fg->r.event & 0xff), e1 = (int)(fg->r.event >> 8 & 0xff);

    while (cycles > 0) {
        uint64_t step = cycles, c;
        if (stopped(fg)) {
            fg->now += cycles;
            return;
        }
        /* Under Perf_Ovf_Stop, stop at the first counter to reach the top. */
        if (fg->r.ctl & (1u << 29)) {
            if ((fg->r.ctl & (1u << 4)) && (c = cycles_to_max(fg, -1, 0, fg->r.cycle)) < step)
                step = c;
            if ((fg->r.ctl & (1u << 6)) && (c = cycles_to_max(fg, e0, fg->r.qual0, fg->r.cnt0)) < step)
                step = c;
            if ((fg->r.ctl & (1u << 8)) && (c = cycles_to_max(fg, e1, fg->r.qual1, fg->r.cnt1)) < step)
                step = c;
            if (step == 0)
                step = 1;
        }
        step_counters(fg, step);
        fg->now += step;
        cycles -= step;
    }
}

/* The debug block's perf registers (DOC's offsets 0x100..0x1a8, at 0x6000
 * in the GCR block: MIPS_CM_GDB_OFS in mips-cm.h). */
static uint32_t *pc_reg(struct fake_gcr *fg, uint32_t off)
{
    switch (off) {
    case 0x6100: return &fg->r.ctl;
    case 0x6120: return &fg->r.ov;
    case 0x6130: return &fg->r.event;
    case 0x6180: return &fg->r.cycle;
    case 0x6190: return &fg->r.qual0;
    case 0x6198: return &fg->r.cnt0;
    case 0x61a0: return &fg->r.qual1;
    case 0x61a8: return &fg->r.cnt1;
    }
    return NULL;
}

static int offset_of(struct fake_gcr *fg, const volatile void *addr, uint32_t *off)
{
    const uint8_t *gcr = fg->map ? fg->map + (fg->cfg.base - fg->map_off) : NULL;
    const uint8_t *a = (const uint8_t *)(uintptr_t)addr;

    if (!gcr || a < gcr || a >= gcr + GCR_SIZE || ((uintptr_t)a & 3)) {
        proto(fg, "register access at %p outside the mapped GCR block or unaligned", (void *)a);
        return -1;
    }
    *off = (uint32_t)(a - gcr);
    return 0;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A real CM clock runs whether or not anyone looks: the cycles since the
 * clock began, less those already given. */
static void clock_tick(struct fake_gcr *fg)
{
    __extension__ unsigned __int128 want;

    if (!fg->cfg.hz)
        return;
    want = (unsigned __int128)(mono_ns() - fg->t0_ns) * fg->cfg.hz / 1000000000u;
    if (want > fg->clock_done) {
        fg_advance(fg, (uint64_t)(want - fg->clock_done));
        fg->clock_done = (uint64_t)want;
    }
}

void fg_set_hz(struct fake_gcr *fg, uint64_t hz)
{
    clock_tick(fg);
    fg->t0_ns = mono_ns();
    fg->clock_done = 0;
    fg->cfg.hz = hz;
}

uint64_t fg_now_cycles(struct fake_gcr *fg)
{
    clock_tick(fg);
    return fg->now;
}

/* The bus transaction itself: a real load from the mapping, which raises
 * SIGBUS once the memfd under it is cut (a memfd is shmem: Linux
 * mm/shmem.c shmem_fault gives VM_FAULT_SIGBUS for a page beyond i_size). Done before any state changes, so a
 * handler jumping out leaves the fake consistent. */
static void touch(struct fake_gcr *fg, const volatile void *addr)
{
    if (fg->cfg.cut_after_ns && !fg->bus_error && mono_ns() - fg->t_new_ns >= fg->cfg.cut_after_ns)
        fg_bus_error(fg, 1);
    (void)*(const volatile uint32_t *)addr;
}

static uint32_t fake_read32(void *ctx, const volatile void *addr)
{
    struct fake_gcr *fg = ctx;
    uint32_t off, *r;

    if (offset_of(fg, addr, &off) < 0)
        return 0xdeadbeef;
    touch(fg, addr);
    fg->st.reads++;
    clock_tick(fg);
    fg_advance(fg, fg->cfg.access_cycles);
    if (fg->all_ones)
        return 0xffffffffu;
    if (off == 0x000)
        return fg->cfg.config;
    /* GCR_BASE: what the kernel's mips_cm_probe (arch/mips/kernel/mips-cm.c)
     * compares with the address it mapped. */
    if (off == 0x008)
        return fg->cfg.base_readback;
    if (off == 0x030)
        return fg->cfg.rev;
    if ((r = pc_reg(fg, off)))
        return *r;
    proto(fg, "read of GCR offset 0x%x, which gputop has no business reading", off);
    return 0;
}

/* DOC, GCR_DB_PC_CTL: Perf_Num_Cnt [3:0] is read-only (counters
 * implemented); P1_Reset (9), P0_Reset (7) and Cycl_Cnt_Reset (5) clear the
 * counter and its overflow bit, in the same write that starts counting. */
static void write_ctl(struct fake_gcr *fg, uint32_t v)
{
    fg->r.ctl = (v & ~0xfu) | fg->cfg.num_cnt;
    if (v & (1u << 5)) {
        fg->r.cycle = 0;
        fg->r.ov &= ~1u;
    }
    if (v & (1u << 7)) {
        fg->r.cnt0 = 0;
        fg->r.ov &= ~2u;
    }
    if (v & (1u << 9)) {
        fg->r.cnt1 = 0;
        fg->r.ov &= ~4u;
    }
}

static void fake_write32(void *ctx, volatile void *addr, uint32_t v)
{
    struct fake_gcr *fg = ctx;
    uint32_t off, *r;

    if (offset_of(fg, addr, &off) < 0)
        return;
    touch(fg, addr);
    fg->st.writes++;
    clock_tick(fg);
    fg_advance(fg, fg->cfg.access_cycles);
    if (fg->all_ones)
        return;
    fg->st.last_off[fg->st.nwrites % 64] = off;
    fg->st.last_val[fg->st.nwrites++ % 64] = v;
    if (fg->st.nlog < 256) {
        fg->st.log_off[fg->st.nlog] = off;
        fg->st.log_val[fg->st.nlog++] = v;
    }
    if (!(r = pc_reg(fg, off))) {
        proto(fg, "write of 0x%08x to GCR offset 0x%x, not a performance register", v, off);
        return;
    }
    if (off == 0x6100)
        write_ctl(fg, v);
    else if (off == 0x6120)
        fg->r.ov &= ~v;              /* DOC, GCR_DB_PC_OV: a 1 written clears its bit */
    else
        *r = v;
}

static int fake_open(void *ctx, const char *path, int flags)
{
    struct fake_gcr *fg = ctx;

    if (strcmp(path, "/dev/mem") != 0)
        return open(path, flags | O_CLOEXEC);
    fg->st.opens++;
    if (fg->cfg.open_errno) {
        errno = fg->cfg.open_errno;
        return -1;
    }
    /* Without O_SYNC the kernel would map RAM-like (cached): wrong for
     * registers (Linux drivers/char/mem.c, uncached_access: O_DSYNC, which
     * O_SYNC includes, makes the /dev/mem mapping uncached). */
    if ((flags & O_ACCMODE) != O_RDWR || (flags & O_SYNC) != O_SYNC)
        proto(fg, "/dev/mem opened with flags 0x%x, not O_RDWR|O_SYNC", (unsigned)flags);
    /* Not the kernel's limit (/dev/mem opens any number of times): the
     * fake keeps one mapping, and gputop needs one open, so a second is
     * refused and counted against gputop. */
    if (fg->devmem_open) {
        proto(fg, "/dev/mem opened a second time while open");
        errno = EMFILE;
        return -1;
    }
    fg->devmem_open = 1;
    fg->st.open_fds++;
    return DEVMEM_FD;
}

static int fake_close(void *ctx, int fd)
{
    struct fake_gcr *fg = ctx;

    if (fd != DEVMEM_FD)
        return close(fd);
    if (!fg->devmem_open) {
        errno = EBADF;
        return -1;
    }
    fg->devmem_open = 0;
    fg->st.open_fds--;
    return 0;
}

static void *fake_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct fake_gcr *fg = ctx;
    uint64_t o = (uint64_t)off;

    (void)addr;
    if (fd != DEVMEM_FD || !fg->devmem_open || fg->map) {
        errno = EBADF;
        return MAP_FAILED;
    }
    if (o % PAGE || len == 0 || !(prot & PROT_READ) || !(prot & PROT_WRITE) ||
        !(flags & MAP_SHARED)) {
        proto(fg, "mmap of /dev/mem off 0x%llx len %zu prot %d flags %d",
              (unsigned long long)o, len, prot, flags);
        errno = EINVAL;
        return MAP_FAILED;
    }
    /* The kernel maps what is asked; the fake needs the block inside. */
    if (fg->cfg.base < o || fg->cfg.base + GCR_SIZE > o + len) {
        errno = ENXIO;
        return MAP_FAILED;
    }
    fg->memfd = memfd_create("fake-gcr", MFD_CLOEXEC);
    if (fg->memfd < 0)
        return MAP_FAILED;
    if (ftruncate(fg->memfd, fg->bus_error ? 0 : (off_t)len) < 0 ||
        (fg->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fg->memfd, 0)) ==
            MAP_FAILED) {
        close(fg->memfd);
        fg->memfd = -1;
        fg->map = NULL;
        return MAP_FAILED;
    }
    /* Plain loads from it would see this, not registers. */
    if (!fg->bus_error)
        memset(fg->map, 0xa5, len);
    fg->map_len = len;
    fg->map_off = o;
    fg->st.maps++;
    return fg->map;
}

static void unmap_block(struct fake_gcr *fg)
{
    if (fg->map)
        munmap(fg->map, fg->map_len);
    if (fg->memfd >= 0)
        close(fg->memfd);
    fg->map = NULL;
    fg->memfd = -1;
}

static int fake_munmap(void *ctx, void *addr, size_t len)
{
    struct fake_gcr *fg = ctx;

    if (addr != fg->map || len != fg->map_len) {
        proto(fg, "munmap of %p/%zu, not the mapping", addr, len);
        errno = EINVAL;
        return -1;
    }
    unmap_block(fg);
    fg->st.unmaps++;
    return 0;
}

static ssize_t fake_read(void *ctx, int fd, void *buf, size_t len)
{
    (void)ctx;
    return read(fd, buf, len);
}

struct fake_gcr *fg_new(const struct fg_config *cfg)
{
    struct fake_gcr *fg = calloc(1, sizeof(*fg));

    if (!fg)
        return NULL;
    fg->cfg = *cfg;
    fg->memfd = -1;
    fg->t0_ns = fg->t_new_ns = mono_ns();
    if (!fg->cfg.base_readback)
        fg->cfg.base_readback = (uint32_t)cfg->base;
    if (!fg->cfg.rev)
        fg->cfg.rev = 0x0700;
    if (!fg->cfg.num_cnt)
        fg->cfg.num_cnt = 2;
    fg->r.ctl = fg->cfg.num_cnt;
    fg->sys.ctx = fg;
    fg->sys.open = fake_open;
    fg->sys.close = fake_close;
    fg->sys.mmap = fake_mmap;
    fg->sys.munmap = fake_munmap;
    fg->sys.read = fake_read;
    fg->sys.root = cfg->root ? cfg->root : "/nonexistent-fake-gcr-root";
    fg->sys.reg_read32 = fake_read32;
    fg->sys.reg_write32 = fake_write32;
    return fg;
}

void fg_free(struct fake_gcr *fg)
{
    if (!fg)
        return;
    unmap_block(fg);
    free(fg);
}

const struct gt_sys *fg_sys(struct fake_gcr *fg)
{
    return &fg->sys;
}

void fg_set_rate(struct fake_gcr *fg, unsigned ev, uint32_t per_1000)
{
    if (ev < NEV)
        fg->rate[ev] = per_1000;
}

void fg_get_regs(const struct fake_gcr *fg, struct fg_regs *r)
{
    *r = fg->r;
}

void fg_set_regs(struct fake_gcr *fg, const struct fg_regs *r)
{
    fg->r = *r;
    fg->r.ctl = (fg->r.ctl & ~0xfu) | fg->cfg.num_cnt;
}

void fg_set_qual_groups(struct fake_gcr *fg, unsigned ev, const uint32_t *groups, int n,
                        uint32_t attr)
{
    int i;

    if (ev >= NEV || n < 0 || n > NGROUPS)
        return;
    fg->qg[ev].n = n;
    fg->qg[ev].attr = attr;
    for (i = 0; i < n; i++)
        fg->qg[ev].group[i] = groups[i];
}

void fg_bus_error(struct fake_gcr *fg, int on)
{
    fg->bus_error = on;
    if (fg->memfd >= 0 && ftruncate(fg->memfd, on ? 0 : (off_t)fg->map_len) < 0)
        proto(fg, "ftruncate of the fake's memfd failed");
}

void fg_all_ones(struct fake_gcr *fg, int on)
{
    fg->all_ones = on;
}

void fg_set_rev(struct fake_gcr *fg, uint32_t rev)
{
    fg->cfg.rev = rev;
}

const struct fg_stats *fg_stats(const struct fake_gcr *fg)
{
    return &fg->st;
}
