/* Performance counters through debugfs amdgpu_regs2 (root), programmed as
 * AMD's own tools do (aqlprofile, Mesa, PAL): select registers written in
 * broadcast, SQ enabled in SQ_PERFCOUNTER_CTRL/CTRL2, CP_PERFMON_CNTL
 * started in mode 0 and stopped with the sample bit, LO/HI read per
 * instance with GRBM_GFX_INDEX banking (pmc_units.c), counter groups
 * rotated across samples when a block has more counters than registers,
 * and every register written restored on close. Register addresses:
 * counter-programming.md §4. */
#include "amd.h"
#include "gputop/amd_gfx1151.h"
#include "gputop/amdgpu_uapi.h"
#include "gputop/catalog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REGS 8
#define MAX_SAVED 64
#define MAX_PASSES 16
#define MAX_ADDRS 128          /* selections one instance sums (an SE's WGPs) */

/* One register bank: how it is banked, how many counters run at once,
 * their select and data registers (offsets in GC segment 1), and the data
 * width. */
struct bank {
    const char *hw_block;
    enum gt_amd_bank_unit unit;
    unsigned limit;
    uint32_t sel[MAX_REGS], data[MAX_REGS];
    unsigned width;            /* bytes read: 8 for LO/HI, 4 for LO only */
};

/* Counters per pass: Mesa ac_perfcounter_gfx11.c and aqlprofile
 * gfx11_block_info.h (GRBM 2, SQ 8 data registers, TCP 4, GL1C 4, GL2C 4).
 * One rocprofv3 run on gfx1151 suggested TCP counts one event a pass
 * (rdna35.md §1, ROCm/rocm-systems PR #10041): gputop checks it when it
 * opens the counters (tcp_check) and takes turns if so. Addresses:
 * gc_11_5_0_offset.h (SQ, TCP), Mesa's gfx11 table (GRBM, GL1C, GL2C).
 * GL1C's select fields are presumed to be the TCP/GL2C layout (PERF_SEL
 * in the low bits), which no header confirms. */
static const struct bank banks[] = {
    { "GRBM", GT_UNIT_GLOBAL, 2, { 0x3840, 0x3841 }, { 0x3040, 0x3043 }, 8 },
    /* SQ per WGP, every SQ event (aqlprofile programs SQ_WAVES,
     * SQ_BUSY_CYCLES, ... here, never in the SQG registers, whose
     * SQG_PERF_SEL list is another). Selects 0, 2, .., 14 feed the eight
     * low-half-only data registers (aqlprofile; PAL): 32-bit counters. */
    { "SQ_WGP", GT_UNIT_WGP, 8, { 0x39c0, 0x39c2, 0x39c4, 0x39c6, 0x39c8, 0x39ca, 0x39cc, 0x39ce },
      { 0x31c0, 0x31c2, 0x31c4, 0x31c6, 0x31c8, 0x31ca, 0x31cc, 0x31ce }, 4 },
    { "TCP", GT_UNIT_CU, 4, { 0x3b40, 0x3b42, 0x3b44, 0x3b45 },
      { 0x3340, 0x3342, 0x3344, 0x3346 }, 8 },
    { "GL1C", GT_UNIT_GL1C, 4, { 0x3ba0, 0x3ba2, 0x3ba3, 0x3ba4 },
      { 0x33a0, 0x33a2, 0x33a4, 0x33a6 }, 8 },
    { "GL2C", GT_UNIT_CHANNEL, 4, { 0x3b80, 0x3b82, 0x3b84, 0x3b85 },
      { 0x3380, 0x3382, 0x3384, 0x3386 }, 8 },
};
#define NBANKS (sizeof(banks) / sizeof(banks[0]))
#define TCP_BANK 2

/* Counters one row divides or adds up count in the same pass where the
 * limits allow, so a ratio never mixes two passes (a load that changes
 * between them would show in the ratio). Sets that share a counter are
 * kept together as one (the two SQ_BUSY_CYCLES sets). */
static const char *const together[][5] = {
    { "GRBM_COUNT", "GRBM_GUI_ACTIVE" },
    { "GL2C_HIT", "GL2C_MISS" },
    { "GL2C_MC_WRREQ", "GL2C_EA_WRREQ_64B" },
    { "GL2C_EA_RDREQ_32B", "GL2C_EA_RDREQ_64B", "GL2C_EA_RDREQ_96B", "GL2C_EA_RDREQ_128B" },
    { "GL2C_READ_32_REQ", "GL2C_READ_64_REQ", "GL2C_READ_128_REQ",
      "GL2C_COMPRESSED_READ_96_REQ" },
    { "GL1C_REQ", "GL1C_REQ_MISS" },
    { "GL1C_GL2_REQ_READ_32B", "GL1C_GL2_REQ_READ_64B", "GL1C_GL2_REQ_READ_128B" },
    /* Wave waits and occupancy; IPC. */
    { "SQ_WAIT_ANY", "SQ_WAIT_INST_ANY", "SQ_WAVE_CYCLES", "SQ_BUSY_CYCLES" },
    { "SQ_INSTS_ALL", "SQ_INSTS_INTERNAL", "SQ_BUSY_CYCLES" },
    { "SQC_ICACHE_HITS", "SQC_ICACHE_MISSES" },
    { "SQC_DCACHE_HITS", "SQC_DCACHE_MISSES" },
    { "TCP_REQ", "TCP_REQ_MISS" },
};
#define NTOGETHER (sizeof(together) / sizeof(together[0]))

/* Before the first interval every pass counts this long, so that no
 * counter starts with no reading at all (shown as 0, it would read as an
 * idle unit): its first intervals are estimated from this one. */
#define WARMUP_NS 2000000ull

struct ctr {
    int cat;                   /* catalogue index */
    const char *name;
    uint32_t slot, n;
    uint32_t event;
    enum gt_amd_domain domain;
    unsigned bank, group, reg; /* which pass and which register */
    int set;                   /* index in together[], -1 if none */
    int used;
    uint64_t *last;            /* n values of its latest pass */
    uint64_t last_ns;          /* ... and the time it counted them; 0 none yet */
    int fresh;                 /* counted in the last sample's pass */
    struct gt_amd_addr *addr;  /* instance i sums addr[first[i] .. first[i + 1]) */
    uint32_t *first;
};

struct saved {
    uint32_t dword, value;
};

struct gt_amd_pmc {
    struct gt_amd_dev *dev;
    struct gt_amd_device geom;
    int fd, v2;                /* regs2; V2 ioctl works */
    struct gt_amd_hold power; /* what keeps GFX on and the perfmon clock running */
    uint64_t pass_ns;          /* when the pass counting now started (START) */
    uint64_t latch_ns;         /* when the last interval ended (its latch) */
    struct ctr *ctr;
    size_t nctr;
    unsigned ngroups[NBANKS];
    unsigned limit[NBANKS];    /* counters a pass: banks[].limit, or fewer as found */
    unsigned pass;
    int counting;
    int perfclk;               /* gputop keeps PERFMON_CLOCK_STATE set */
    struct saved saved[MAX_SAVED];
    size_t nsaved;
    struct { uint32_t se, sh, inst; int valid; } state;
};

/* ---- regs2 access ---- */

static int set_state(struct gt_amd_pmc *p, uint32_t se, uint32_t sh, uint32_t inst)
{
    const struct gt_sys *sys = p->dev->sys;
    struct gt_regs2_iocdata_v2 v2;
    int r;

    if (p->state.valid && p->state.se == se && p->state.sh == sh && p->state.inst == inst)
        return 0;
    memset(&v2, 0, sizeof(v2));
    v2.use_grbm = 1;
    v2.grbm.se = se;
    v2.grbm.sh = sh;
    v2.grbm.instance = inst;
    if (p->v2) {
        r = sys->ioctl(sys->ctx, p->fd, GT_REGS2_IOC_SET_STATE_V2, &v2);
        if (r < 0 && (errno == EINVAL || errno == ENOTTY)) {
            p->v2 = 0;   /* a kernel before the XCC series (about 6.5) */
            return set_state(p, se, sh, inst);
        }
    } else {
        r = sys->ioctl(sys->ctx, p->fd, GT_REGS2_IOC_SET_STATE, &v2);
    }
    if (r < 0)
        return -1;
    p->state.se = se;
    p->state.sh = sh;
    p->state.inst = inst;
    p->state.valid = 1;
    return 0;
}

static int broadcast(struct gt_amd_pmc *p)
{
    return set_state(p, GT_REGS2_BROADCAST, GT_REGS2_BROADCAST, GT_REGS2_BROADCAST);
}

/* The file offset is the register's byte address. */
static int rd(struct gt_amd_pmc *p, uint32_t dword, void *buf, size_t len)
{
    const struct gt_sys *sys = p->dev->sys;
    ssize_t n = sys->pread(sys->ctx, p->fd, buf, len, (off_t)dword * 4);

    if (n != (ssize_t)len) {
        if (n >= 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

static int wr(struct gt_amd_pmc *p, uint32_t dword, uint32_t v)
{
    const struct gt_sys *sys = p->dev->sys;
    ssize_t n;

    if (!sys->pwrite) {
        errno = ENOSYS;
        return -1;
    }
    n = sys->pwrite(sys->ctx, p->fd, &v, sizeof(v), (off_t)dword * 4);
    if (n != (ssize_t)sizeof(v)) {
        if (n >= 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* Writes in broadcast, saving the register's old value the first time. */
static int wr_saved(struct gt_amd_pmc *p, uint32_t dword, uint32_t v)
{
    size_t i;

    if (broadcast(p) < 0)
        return -1;
    for (i = 0; i < p->nsaved && p->saved[i].dword != dword; i++)
        ;
    if (i == p->nsaved) {
        uint32_t old;
        if (p->nsaved == MAX_SAVED) {
            errno = ENOSPC;
            return -1;
        }
        if (rd(p, dword, &old, sizeof(old)) < 0)
            return -1;
        p->saved[p->nsaved].dword = dword;
        p->saved[p->nsaved].value = old;
        p->nsaved++;
    }
    return wr(p, dword, v);
}

/* Sets RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE, as the kernel does for
 * a stable pstate (gfx_v11_0_update_perf_clk), keeping the register's
 * other bits: the perfmon clock runs, the shader clock stays free. 1 when
 * it had to be set (it was clear), 0 when it was set, -1 on an error. */
static int perfclk_ungate(struct gt_amd_pmc *p)
{
    uint32_t v;

    if (broadcast(p) < 0 || rd(p, GT_REG_RLC_CGTT_MGCG_OVERRIDE, &v, sizeof(v)) < 0)
        return -1;
    if (v & GT_PERFMON_CLOCK_STATE)
        return 0;
    return wr_saved(p, GT_REG_RLC_CGTT_MGCG_OVERRIDE, v | GT_PERFMON_CLOCK_STATE) < 0 ? -1 : 1;
}

int gt_amd_pmc_perfclk(const struct gt_amd_pmc *p)
{
    return p->perfclk;
}

/* ---- the plan: which counter in which pass and register ---- */

static int bank_of(const char *hw_block)
{
    size_t b;

    for (b = 0; b < NBANKS; b++)
        if (strcmp(banks[b].hw_block, hw_block) == 0)
            return (int)b;
    return -1;
}

static int set_of(const char *name)
{
    size_t s, i;

    for (s = 0; s < NTOGETHER; s++)
        for (i = 0; i < 5 && together[s][i]; i++)
            if (strcmp(together[s][i], name) == 0)
                return (int)s;
    return -1;
}

static int in_set(size_t s, const char *name)
{
    size_t i;

    for (i = 0; i < 5 && together[s][i]; i++)
        if (strcmp(together[s][i], name) == 0)
            return 1;
    return 0;
}

/* Joins sets that share a counter: every member of a set takes the
 * lowest set number any member has, until nothing changes. */
static void join_sets(struct gt_amd_pmc *p)
{
    size_t s, i;
    int changed = 1, low;

    while (changed) {
        changed = 0;
        for (s = 0; s < NTOGETHER; s++) {
            low = INT32_MAX;
            for (i = 0; i < p->nctr; i++)
                if (in_set(s, p->ctr[i].name) && p->ctr[i].set < low)
                    low = p->ctr[i].set;
            for (i = 0; i < p->nctr; i++)
                if (in_set(s, p->ctr[i].name) && p->ctr[i].set != low) {
                    p->ctr[i].set = low;
                    changed = 1;
                }
        }
    }
}

static unsigned first_fit(unsigned *fill, unsigned need, unsigned limit)
{
    unsigned g;

    for (g = 0; g < MAX_PASSES - 1 && fill[g] + need > limit; g++)
        ;
    return g;
}

static void assign(struct ctr *c, unsigned *fill, unsigned g)
{
    c->group = g;
    c->reg = fill[g]++;
}

/* Sets first, each whole into the first pass with room for it (a set
 * larger than a pass goes member by member), then the lone counters. */
static void plan(struct gt_amd_pmc *p)
{
    unsigned fill[MAX_PASSES], b, g, need;
    size_t i, j;

    for (i = 0; i < p->nctr; i++)
        p->ctr[i].group = UINT32_MAX;
    for (b = 0; b < NBANKS; b++) {
        memset(fill, 0, sizeof(fill));
        for (i = 0; i < p->nctr; i++) {
            struct ctr *c = &p->ctr[i];
            if (c->bank != b || !c->used || c->group != UINT32_MAX || c->set < 0)
                continue;
            for (need = 0, j = 0; j < p->nctr; j++)
                need += p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set;
            if (need > p->limit[b])
                continue;
            g = first_fit(fill, need, p->limit[b]);
            for (j = i; j < p->nctr; j++)
                if (p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set)
                    assign(&p->ctr[j], fill, g);
        }
        for (i = 0; i < p->nctr; i++) {
            struct ctr *c = &p->ctr[i];
            if (c->bank == b && c->used && c->group == UINT32_MAX)
                assign(c, fill, first_fit(fill, 1, p->limit[b]));
        }
        for (g = 0; g < MAX_PASSES && fill[g]; g++)
            ;
        p->ngroups[b] = g;
    }
}

unsigned gt_amd_pmc_passes(const struct gt_amd_pmc *p)
{
    unsigned b, most = 0;

    for (b = 0; b < NBANKS; b++)
        if (p->ngroups[b] > most)
            most = p->ngroups[b];
    return most;
}

unsigned gt_amd_pmc_ncounters(const struct gt_amd_pmc *p)
{
    unsigned n = 0;
    size_t i;

    for (i = 0; i < p->nctr; i++)
        n += p->ctr[i].used != 0;
    return n;
}

void gt_amd_pmc_describe(const struct gt_amd_pmc *p, char *buf, size_t len)
{
    size_t b, i, off = 0;

    buf[0] = '\0';
    for (b = 0; b < NBANKS && off < len; b++) {
        unsigned n = 0;
        for (i = 0; i < p->nctr; i++)
            n += p->ctr[i].bank == b && p->ctr[i].used;
        if (!n)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s %u in %u pass%s (limit %u%s)",
                                off ? ", " : "", banks[b].hw_block, n, p->ngroups[b],
                                p->ngroups[b] == 1 ? "" : "es", p->limit[b],
                                p->limit[b] < banks[b].limit ? ": counts one event a pass "
                                "here, its other counters stood still" : "");
    }
}

void gt_amd_pmc_select(struct gt_amd_pmc *p, const unsigned char *used, struct gt_catalog *c)
{
    size_t i;

    /* GRBM_GUI_ACTIVE always counts: it tells a gated perfmon clock (it
     * stays 0 while GRBM_STATUS reads busy). */
    for (i = 0; i < p->nctr; i++)
        p->ctr[i].used = !used || used[p->ctr[i].cat] ||
                         strcmp(p->ctr[i].name, "GRBM_GUI_ACTIVE") == 0;
    plan(p);
    for (i = 0; i < p->nctr; i++)
        c->counters[p->ctr[i].cat].estimated = p->ctr[i].used && p->ngroups[p->ctr[i].bank] > 1;
}

/* ---- counting ---- */

static int program(struct gt_amd_pmc *p)
{
    size_t i;

    p->counting = 0;
    for (i = 0; i < p->nctr; i++) {
        const struct ctr *c = &p->ctr[i];
        const struct bank *bk = &banks[c->bank];
        if (!c->used || c->group != p->pass % p->ngroups[c->bank])
            continue;
        /* PERF_SEL in the low bits; CNTR_MODE and PERF_MODE 0 = accumulate. */
        if (wr_saved(p, GT_GC_SEG1 + bk->sel[c->reg], c->event) < 0)
            return -1;
    }
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_RESET) < 0 ||
        wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_START) < 0)
        return -1;
    p->pass_ns = gt_sys_now(p->dev->sys);
    p->counting = 1;
    return 0;
}

/* The code tells the source a device gone (GT_ERR_NODEV). */
static int fail(struct gt_amd_pmc *p, struct gt_diag *d, const char *what)
{
    gt_diag_errno(d, errno, "%s/amdgpu_regs2: %s failed: %s", p->dev->debugfs, what,
                  strerror(errno));
    return -1;
}

/* Stops the pass and latches its counts into LO/HI (CP_PERFMON_CNTL
 * STOP | PERFMON_SAMPLE_ENABLE); *at gets when. */
static int latch(struct gt_amd_pmc *p, uint64_t *at)
{
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_STOP | GT_PERFMON_SAMPLE) < 0)
        return -1;
    *at = gt_sys_now(p->dev->sys);
    p->counting = 0;
    return 0;
}

/* Instance i is the sum of its selections (an SE's WGPs, an array's four
 * GL1C); a 32-bit counter is read as its low half only. The values are
 * kept with the time they counted. */
static int read_ctr(struct gt_amd_pmc *p, struct ctr *c, uint64_t counted_ns)
{
    const struct bank *bk = &banks[c->bank];
    uint32_t i, k;

    for (i = 0; i < c->n; i++) {
        uint64_t sum = 0;
        for (k = c->first[i]; k < c->first[i + 1]; k++) {
            const struct gt_amd_addr *a = &c->addr[k];
            uint64_t v = 0;
            if (set_state(p, a->se, a->sh, a->inst) < 0 ||
                rd(p, GT_GC_SEG1 + bk->data[c->reg], &v, bk->width) < 0)
                return -1;
            sum += v;
        }
        c->last[i] = sum;
    }
    c->last_ns = counted_ns;
    c->fresh = 1;
    return 0;
}

static int counted_now(const struct gt_amd_pmc *p, const struct ctr *c)
{
    return c->used && c->group == p->pass % p->ngroups[c->bank];
}

/* Every pass counts once, briefly, so that each counter has a reading
 * (and a rate) before the first interval. */
static int warm_up(struct gt_amd_pmc *p)
{
    struct timespec ts = { 0, (long)WARMUP_NS };
    unsigned n = gt_amd_pmc_passes(p), k;
    uint64_t at;
    size_t i;

    for (k = 0; n > 1 && k < n; k++, p->pass++) {
        if (program(p) < 0)
            return -1;
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
        ts.tv_nsec = (long)WARMUP_NS;
        if (latch(p, &at) < 0)
            return -1;
        for (i = 0; i < p->nctr; i++)
            if (counted_now(p, &p->ctr[i]) && read_ctr(p, &p->ctr[i], at - p->pass_ns) < 0)
                return -1;
    }
    p->pass = 0;
    return 0;
}

int gt_amd_pmc_start(struct gt_amd_pmc *p, struct gt_diag *d)
{
    p->pass = 0;
    /* SQ counts only the stages enabled in SQ_PERFCOUNTER_CTRL, and on
     * gfx11 only with CTRL2's FORCE_EN for the VMIDs in VMID_EN (or queues
     * with COMPUTE_PERFCOUNT_ENABLE): aqlprofile, radeonsi and RADV write
     * both before counting. */
    if (wr_saved(p, GT_REG_SQ_PERFCOUNTER_CTRL, GT_SQ_CTRL_ALL_STAGES) < 0 ||
        wr_saved(p, GT_REG_SQ_PERFCOUNTER_CTRL2, GT_SQ_CTRL2_FORCE_ALL_VMIDS) < 0)
        return fail(p, d, "enabling SQ counting (SQ_PERFCOUNTER_CTRL/CTRL2)");
    /* Again after a runtime suspend, which reset the register. */
    if (p->perfclk && perfclk_ungate(p) < 0)
        return fail(p, d, "setting RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE");
    if (warm_up(p) < 0)
        return fail(p, d, "counting each pass once before the first interval");
    if (program(p) < 0)
        return fail(p, d, "programming the counter selects");
    p->latch_ns = p->pass_ns;
    return 0;
}

/* The most a 32-bit counter can add in a clock, per WGP register. On
 * gfx10/11 the wave-cycle counters count plain clocks (rocprofiler-sdk's
 * gfx11 OccupancyPercent has no x4 where gfx9's has), each resident wave
 * every clock: up to the WGP's wave slots. Busy cycles count at most one.
 * Instructions and cache events: at most 8 a clock (ASSUMPTION,
 * gputop-sources(7), "Not yet verified"). 64-bit counters: 0 (they do not
 * wrap). */
static double max_per_clk(const struct gt_amd_pmc *p, const struct ctr *c)
{
    if (banks[c->bank].width != 4)
        return 0;
    switch (c->event) {
    case 3:                    /* SQ_BUSY_CYCLES */
        return 1;
    case 24: case 26: case 35: /* SQ_WAVE_CYCLES, SQ_WAIT_INST_ANY, SQ_WAIT_ANY */
        return p->geom.max_waves_per_cu * 2.0;
    default:
        return 8;
    }
}

/* The time (ns) after which counter c may have wrapped; 0: never. */
static double wrap_ns(const struct gt_amd_pmc *p, const struct ctr *c)
{
    double per = max_per_clk(p, c), hz = p->geom.max_sclk_mhz * 1e6;

    return per > 0 && hz > 0 ? 4294967296.0 / (hz * per) * 1e9 : 0;
}

/* Three quarters of the soonest wrap, so that a late wake-up of up to a
 * third of the period still reads every counter. */
uint64_t gt_amd_pmc_max_interval(const struct gt_amd_pmc *p)
{
    double least = 0, w;
    size_t i;

    for (i = 0; i < p->nctr; i++)
        if (p->ctr[i].used && (w = wrap_ns(p, &p->ctr[i])) > 0 && (least == 0 || w < least))
            least = w;
    return (uint64_t)(least * 0.75);
}

int gt_amd_pmc_fresh(const struct gt_amd_pmc *p, const char *name, uint64_t *sum)
{
    size_t i;
    uint32_t k;

    for (i = 0; i < p->nctr; i++) {
        const struct ctr *c = &p->ctr[i];
        if (!c->used || !c->fresh || strcmp(c->name, name) != 0)
            continue;
        for (*sum = 0, k = 0; k < c->n; k++)
            *sum += c->last[k];
        return 1;
    }
    return 0;
}

/* Whether counter c, counting for counted ns, may have wrapped (the
 * sampler was late past the cap): then it is not read, and like a counter
 * rotated out it is estimated from its last reading. */
static int may_wrap(const struct gt_amd_pmc *p, const struct ctr *c, uint64_t counted)
{
    double w = wrap_ns(p, c);

    return w > 0 && (double)counted >= w;
}

/* Says which counters were not read for fear of a wrap; 1 when any. The
 * interval is kept (an error would make the sampler back off, and every
 * later pass late). */
static int wrapped(struct gt_amd_pmc *p, uint64_t counted, struct gt_diag *d)
{
    unsigned n = 0;
    size_t i;

    for (i = 0; i < p->nctr; i++)
        n += counted_now(p, &p->ctr[i]) && may_wrap(p, &p->ctr[i], counted);
    if (!n)
        return 0;
    gt_diag_set(d, "%s/amdgpu_regs2: this interval's counters ran %.1f ms (the sampler was "
                   "late); %u 32-bit SQ counter%s could have wrapped in that time and %s "
                   "estimated from the last reading", p->dev->debugfs, (double)counted / 1e6, n,
                n == 1 ? "" : "s", n == 1 ? "is" : "are");
    return 1;
}

/* A counter's estimate for an interval of span_ns: its latest reading at
 * the rate it counted then (a reading of this interval is only scaled up
 * by the dead time between the latch and the next START). */
static void estimate(const struct ctr *c, uint64_t span_ns, uint64_t *deltas)
{
    double f = c->last_ns ? (double)span_ns / (double)c->last_ns : 0.0;
    uint32_t i;

    for (i = 0; i < c->n; i++)
        deltas[c->slot + i] = (uint64_t)((double)c->last[i] * f + 0.5);
}

/* A failed access left the counters stopped (after the latch, before
 * the next START): counting starts again now, and this interval, which
 * they did not count whole, has none. */
static int restart(struct gt_amd_pmc *p, struct gt_diag *d)
{
    if (program(p) < 0)
        return fail(p, d, "starting the counters again");
    p->latch_ns = p->pass_ns;
    gt_diag_set(d, "%s/amdgpu_regs2: the counters stopped after a failed access and count "
                   "again from now", p->dev->debugfs);
    return -1;
}

int gt_amd_pmc_sample(struct gt_amd_pmc *p, uint64_t *deltas, unsigned *estimated,
                      uint64_t *end_ns, struct gt_diag *d)
{
    uint64_t at, counted, span;
    int late, bad = 0, e = 0, gated = 0;
    size_t i;

    *estimated = 0;
    if (!p->counting)
        return restart(p, d);
    /* Stop and sample: LO/HI hold what the sample latched. */
    if (latch(p, &at) < 0)
        return fail(p, d, "stopping the counters (CP_PERFMON_CNTL)");
    counted = at - p->pass_ns;
    span = at - p->latch_ns;
    p->latch_ns = *end_ns = at;
    /* The driver owns the register and may have gated the clock again
     * meanwhile: then these counts stood still for a while. */
    if (p->perfclk && (gated = perfclk_ungate(p)) < 0)
        return fail(p, d, "checking RLC_CGTT_MGCG_OVERRIDE");
    if (gated > 0)
        gt_diag_set(d, "%s/amdgpu_regs2: the driver gated the perfmon clock again (cleared "
                       "RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE); set again, and this "
                       "interval's counters are estimated from their last reading",
                    p->dev->debugfs);
    late = gated > 0 || wrapped(p, counted, d);
    for (i = 0; i < p->nctr && !bad; i++) {
        struct ctr *c = &p->ctr[i];
        c->fresh = 0;
        if (counted_now(p, c) && !gated && !may_wrap(p, c, counted) &&
            read_ctr(p, c, counted) < 0) {
            bad = 1;     /* the next pass still starts: counting goes on */
            e = errno;
            break;
        }
        if (!c->used)
            continue;
        estimate(c, span, deltas);
        *estimated += !c->fresh;
    }
    p->pass++;
    if (program(p) < 0)
        return fail(p, d, "programming the next pass");
    if (bad) {
        errno = e;
        return fail(p, d, "reading a counter");
    }
    return late ? 1 : 0;
}

/* ---- open and close ---- */

/* The selections each instance reads, laid out once. */
static int addresses(struct gt_amd_pmc *p, struct ctr *k)
{
    struct gt_amd_addr buf[MAX_ADDRS];
    uint32_t i, total = 0;
    size_t n;

    k->first = calloc(k->n + 1, sizeof(uint32_t));
    k->addr = calloc((size_t)k->n * MAX_ADDRS, sizeof(*k->addr));
    if (!k->first || !k->addr)
        return -1;
    for (i = 0; i < k->n; i++) {
        n = gt_amd_unit_addrs(p->dev, &p->geom, banks[k->bank].unit, k->domain, i, buf,
                              MAX_ADDRS);
        k->first[i] = total;
        memcpy(k->addr + total, buf, n * sizeof(*buf));
        total += (uint32_t)n;
    }
    k->first[k->n] = total;
    return 0;
}

static int build(struct gt_amd_pmc *p, const struct gt_catalog *c)
{
    size_t i;

    for (i = 0; i < NBANKS; i++)
        p->limit[i] = banks[i].limit;
    p->ctr = calloc(c->ncounters ? c->ncounters : 1, sizeof(*p->ctr));
    if (!p->ctr)
        return -1;
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_amd_counter_def *def = gt_amd_gfx1151_find(c->counters[i].name);
        struct ctr *k = &p->ctr[p->nctr];
        int b;
        if (!def || def->kind != GT_AMD_PMC || (b = bank_of(def->hw_block)) < 0)
            continue;
        k->cat = (int)i;
        k->name = def->name;
        k->slot = c->counters[i].slot;
        k->n = c->counters[i].instances;
        k->event = (uint32_t)def->event;
        k->domain = def->domain;
        k->bank = (unsigned)b;
        k->set = set_of(def->name);
        k->used = 1;
        k->last = calloc(k->n, sizeof(uint64_t));
        p->nctr++;
        if (!k->last || addresses(p, k) < 0)
            return -1;
    }
    join_sets(p);
    plan(p);
    return 0;
}

static int open_regs2(struct gt_amd_pmc *p, enum gt_amd_pmc_fail *f, struct gt_diag *d)
{
    const struct gt_sys *sys = p->dev->sys;
    char path[96], buf[256];

    snprintf(path, sizeof(path), "%s/amdgpu_regs2", p->dev->debugfs);
    p->fd = sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC);
    if (p->fd < 0) {
        int err = errno;
        const char *why = gt_amd_regs2_why(p->dev, err, f, buf, sizeof(buf));
        gt_diag_errno(d, err, "%s/amdgpu_regs2: %s%s%s", p->dev->debugfs, strerror(err),
                      why[0] ? ": " : "", why);
        return -1;
    }
    p->v2 = 1;
    if (broadcast(p) < 0) {
        gt_diag_errno(d, errno, "%s/amdgpu_regs2: SET_STATE failed: %s", p->dev->debugfs,
                      strerror(errno));
        return -1;
    }
    return 0;
}

/* The registers are written at GC 11.5's segment bases; IP discovery says
 * where this part has them, and a write at a wrong base would land on
 * other registers. */
static int check_bases(const struct gt_amd_dev *dev, struct gt_diag *d)
{
    uint32_t base[2];
    char path[160];
    int r = gt_amd_gc_bases(dev, base, path, sizeof(path));

    if (r == 0)
        return 0;      /* a kernel without the sysfs: GC 11.5's own bases */
    if (r < 0) {
        gt_diag_set(d, "%s: unreadable, so where the GC registers are is unknown: not writing "
                       "any register", path);
        return -1;
    }
    if (base[0] == GT_GC_SEG0 && base[1] == GT_GC_SEG1)
        return 0;
    gt_diag_set(d, "%s says the GC register segments start at 0x%X and 0x%X; gputop knows the "
                   "counter registers at 0x%X and 0x%X only: not writing any register (they "
                   "would land on others)", path, base[0], base[1], GT_GC_SEG0, GT_GC_SEG1);
    return -1;
}

/* RGP, rocprof or another gputop counting (PERFMON_STATE 1) or tracing
 * (SPM_PERFMON_STATE 1) holds CP_PERFMON_CNTL; a stopped state (2) is what
 * a finished session leaves. */
static int check_idle(struct gt_amd_pmc *p, int force, struct gt_diag *d)
{
    uint32_t v = 0;

    if (rd(p, GT_REG_CP_PERFMON_CNTL, &v, sizeof(v)) < 0) {
        gt_diag_errno(d, errno, "%s/amdgpu_regs2: reading CP_PERFMON_CNTL failed: %s",
                      p->dev->debugfs, strerror(errno));
        return -1;
    }
    if (force || (GT_PERFMON_STATE(v) != GT_PERFMON_START &&
                  GT_PERFMON_SPM_STATE(v) != GT_PERFMON_START))
        return 0;
    gt_diag_set(d, "another profiler holds the counters (RGP, rocprof or another gputop): "
                   "CP_PERFMON_CNTL is 0x%x (%s); gputop leaves them alone (add 'force' to "
                   "take them)", v, GT_PERFMON_STATE(v) == GT_PERFMON_START
                   ? "PERFMON_STATE counting" : "SPM_PERFMON_STATE: an SPM trace running");
    return -1;
}

/* Whether TCP counts in all four counters: TCP_REQ in each for a moment.
 * When the first counts and another stands still, this GPU's TCP counts
 * one event a pass (one rocprofv3 observation on gfx1151) and its
 * counters take turns. No TCP traffic meanwhile: four, as Mesa and
 * aqlprofile say. */
static int tcp_check(struct gt_amd_pmc *p)
{
    struct timespec ts = { 0, (long)WARMUP_NS };
    const struct bank *bk = &banks[TCP_BANK];
    uint64_t sum[4] = { 0 }, v;
    struct ctr *c = NULL;
    uint32_t i, k, r;
    size_t j;

    for (j = 0; j < p->nctr; j++)
        if (p->ctr[j].bank == TCP_BANK && (!c || strcmp(p->ctr[j].name, "TCP_REQ") == 0))
            c = &p->ctr[j];
    if (!c)
        return 0;
    for (r = 0; r < bk->limit; r++)
        if (wr_saved(p, GT_GC_SEG1 + bk->sel[r], c->event) < 0)
            return -1;
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_RESET) < 0 ||
        wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_START) < 0)
        return -1;
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    if (latch(p, &v) < 0)
        return -1;
    for (i = 0; i < c->n; i++)
        for (k = c->first[i]; k < c->first[i + 1]; k++)
            for (r = 0; r < bk->limit; r++) {
                v = 0;
                if (set_state(p, c->addr[k].se, c->addr[k].sh, c->addr[k].inst) < 0 ||
                    rd(p, GT_GC_SEG1 + bk->data[r], &v, bk->width) < 0)
                    return -1;
                sum[r] += v;
            }
    for (r = 1; r < bk->limit; r++)
        if (sum[0] && !sum[r])
            p->limit[TCP_BANK] = 1;
    return 0;
}

int gt_amd_pmc_tcp_one_a_pass(const struct gt_amd_pmc *p)
{
    return p->limit[TCP_BANK] == 1;
}

struct gt_amd_pmc *gt_amd_pmc_open(struct gt_amd_dev *dev, const struct gt_amd_device *geom,
                                   const struct gt_catalog *c, const struct gt_amd_pmc_opts *o,
                                   enum gt_amd_pmc_fail *f, struct gt_diag *d)
{
    struct gt_amd_pmc *p = calloc(1, sizeof(*p));

    *f = GT_PMC_FAIL_OTHER;
    if (!p) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p->dev = dev;
    p->geom = *geom;
    p->fd = -1;
    p->power.gfxoff_fd = -1;
    if (!dev->pmc_regs) {
        gt_diag_set(d, "%s: gputop knows the counter registers of GC 11.5 (gfx1150-1153) "
                       "only, not of this %s", dev->drm.render, dev->name);
        goto fail;
    }
    if (check_bases(dev, d) < 0 || open_regs2(p, f, d) < 0)
        goto fail;
    if (check_idle(p, o->force, d) < 0) {
        *f = GT_PMC_FAIL_BUSY;
        goto fail;
    }
    if (build(p, c) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (gt_amd_power_hold(dev, o->keepon, &p->power, d) < 0) {
        *f = errno == EBUSY ? GT_PMC_FAIL_BUSY : GT_PMC_FAIL_OTHER;
        goto fail;
    }
    if (o->keepon == GT_KEEPON_PERFCLK) {
        if (perfclk_ungate(p) < 0) {
            gt_diag_errno(d, errno, "%s/amdgpu_regs2: setting "
                          "RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE failed: %s (try "
                          "keepon=pstate)", dev->debugfs, strerror(errno));
            goto fail;
        }
        p->perfclk = 1;
    }
    if (tcp_check(p) < 0) {
        gt_diag_errno(d, errno, "%s/amdgpu_regs2: checking the TCP counters failed: %s",
                      dev->debugfs, strerror(errno));
        goto fail;
    }
    return p;
fail:
    gt_amd_pmc_close(p);
    return NULL;
}

/* Puts back every register written, in broadcast, oldest value first
 * written last so a register written twice ends at its original. */
static void restore(struct gt_amd_pmc *p)
{
    size_t i;

    if (p->fd < 0 || broadcast(p) < 0)
        return;
    if (p->counting)
        wr(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_STOP | GT_PERFMON_SAMPLE);
    for (i = p->nsaved; i-- > 0;)
        wr(p, p->saved[i].dword, p->saved[i].value);
    p->nsaved = 0;
}

void gt_amd_pmc_close(struct gt_amd_pmc *p)
{
    size_t i;

    if (!p)
        return;
    restore(p);
    gt_amd_power_release(p->dev, &p->power);
    if (p->fd >= 0)
        p->dev->sys->close(p->dev->sys->ctx, p->fd);
    for (i = 0; i < p->nctr; i++) {
        free(p->ctr[i].last);
        free(p->ctr[i].addr);
        free(p->ctr[i].first);
    }
    free(p->ctr);
    free(p);
}

const char *gt_amd_pmc_pstate(const struct gt_amd_pmc *p)
{
    return p->power.pstate == AMDGPU_CTX_STABLE_PSTATE_PEAK ? "PEAK" : "";
}
