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
 * gfx11_block_info.h (GRBM 2, SQ 8 data registers, GL1C 4, GL2C 4). TCP
 * has four registers but counts one event per pass in practice on gfx1151
 * (rdna35.md §1, ROCm/rocm-systems PR #10041; UNVERIFIED). Addresses:
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
    { "TCP", GT_UNIT_CU, 1, { 0x3b40, 0x3b42, 0x3b44, 0x3b45 },
      { 0x3340, 0x3342, 0x3344, 0x3346 }, 8 },
    { "GL1C", GT_UNIT_GL1C, 4, { 0x3ba0, 0x3ba2, 0x3ba3, 0x3ba4 },
      { 0x33a0, 0x33a2, 0x33a4, 0x33a6 }, 8 },
    { "GL2C", GT_UNIT_CHANNEL, 4, { 0x3b80, 0x3b82, 0x3b84, 0x3b85 },
      { 0x3380, 0x3382, 0x3384, 0x3386 }, 8 },
};
#define NBANKS (sizeof(banks) / sizeof(banks[0]))

/* Counters one row divides or adds up count in the same pass where the
 * limits allow, so a ratio never mixes two passes. */
static const char *const together[][5] = {
    { "GRBM_COUNT", "GRBM_GUI_ACTIVE" },
    { "GL2C_HIT", "GL2C_MISS" },
    { "GL2C_MC_WRREQ", "GL2C_EA_WRREQ_64B" },
    { "GL2C_EA_RDREQ_32B", "GL2C_EA_RDREQ_64B", "GL2C_EA_RDREQ_96B", "GL2C_EA_RDREQ_128B" },
    { "GL2C_READ_32_REQ", "GL2C_READ_64_REQ", "GL2C_READ_128_REQ",
      "GL2C_COMPRESSED_READ_96_REQ" },
    { "GL1C_REQ", "GL1C_REQ_MISS" },
    { "GL1C_GL2_REQ_READ_32B", "GL1C_GL2_REQ_READ_64B", "GL1C_GL2_REQ_READ_128B" },
    { "SQ_INSTS_ALL", "SQ_INSTS_INTERNAL" },
    { "SQC_ICACHE_HITS", "SQC_ICACHE_MISSES" },
    { "SQC_DCACHE_HITS", "SQC_DCACHE_MISSES" },
};
#define NTOGETHER (sizeof(together) / sizeof(together[0]))

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
    uint64_t pass_ns;          /* when the pass counting now started */
    struct ctr *ctr;
    size_t nctr;
    unsigned ngroups[NBANKS];
    unsigned pass;
    int counting;
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
            for (need = 0, j = i; j < p->nctr; j++)
                need += p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set;
            if (need > banks[b].limit)
                continue;
            g = first_fit(fill, need, banks[b].limit);
            for (j = i; j < p->nctr; j++)
                if (p->ctr[j].bank == b && p->ctr[j].used && p->ctr[j].set == c->set)
                    assign(&p->ctr[j], fill, g);
        }
        for (i = 0; i < p->nctr; i++) {
            struct ctr *c = &p->ctr[i];
            if (c->bank == b && c->used && c->group == UINT32_MAX)
                assign(c, fill, first_fit(fill, 1, banks[b].limit));
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
        off += (size_t)snprintf(buf + off, len - off, "%s%s %u in %u pass%s (limit %u)",
                                off ? ", " : "", banks[b].hw_block, n, p->ngroups[b],
                                p->ngroups[b] == 1 ? "" : "es", banks[b].limit);
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
    p->pass_ns = gt_now_ns();
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
    if (program(p) < 0)
        return fail(p, d, "programming the counter selects");
    return 0;
}

/* Instance i is the sum of its selections (an SE's WGPs, an array's four
 * GL1C); a 32-bit counter is read as its low half only. */
static int read_ctr(struct gt_amd_pmc *p, struct ctr *c, uint64_t *deltas)
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
        deltas[c->slot + i] = sum;
    }
    c->fresh = 1;
    return 0;
}

uint64_t gt_amd_pmc_max_interval(const struct gt_amd_pmc *p)
{
    /* A per-WGP wave-cycle counter adds up to its wave slots / 4 a clock
     * (quad-cycles of every resident wave): 2 CUs x max_waves_per_cu / 4. */
    double per_clk = p->geom.max_waves_per_cu * 2.0 / 4.0, hz = p->geom.max_sclk_mhz * 1e6;
    size_t i;

    for (i = 0; i < p->nctr; i++)
        if (p->ctr[i].used && banks[p->ctr[i].bank].width == 4 && per_clk > 0 && hz > 0)
            return (uint64_t)(4294967296.0 / (hz * per_clk) * 1e9);
    return 0;
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

/* The pass ran longer than the 32-bit counters survive (the sampler was
 * late): they may have wrapped, so they are not read this time; like a
 * counter rotated out, each repeats its last pass. The interval is kept
 * (an error would make the sampler back off, and every later pass late). */
static int wrapped(struct gt_amd_pmc *p, uint64_t now, struct gt_diag *d)
{
    uint64_t max = gt_amd_pmc_max_interval(p);

    if (!max || now - p->pass_ns <= max)
        return 0;
    gt_diag_set(d, "%s/amdgpu_regs2: this interval's counters ran %.0f ms, longer than the "
                   "%.1f ms the 32-bit SQ counters survive before they wrap; they repeat "
                   "their last interval", p->dev->debugfs, (double)(now - p->pass_ns) / 1e6,
                (double)max / 1e6);
    return 1;
}

int gt_amd_pmc_sample(struct gt_amd_pmc *p, uint64_t *deltas, unsigned *estimated,
                      struct gt_diag *d)
{
    uint64_t now = gt_now_ns();
    int late;
    size_t i;

    *estimated = 0;
    /* Stop and sample: LO/HI hold what the sample latched. */
    if (wr_saved(p, GT_REG_CP_PERFMON_CNTL, GT_PERFMON_STOP | GT_PERFMON_SAMPLE) < 0)
        return fail(p, d, "stopping the counters (CP_PERFMON_CNTL)");
    late = wrapped(p, now, d);
    for (i = 0; i < p->nctr; i++) {
        struct ctr *c = &p->ctr[i];
        c->fresh = 0;
        if (!c->used)
            continue;
        if (c->group == p->pass % p->ngroups[c->bank] && !(late && banks[c->bank].width == 4)) {
            if (read_ctr(p, c, deltas) < 0)
                return fail(p, d, "reading a counter");
            continue;
        }
        /* Not counted this pass: its last pass stands in (the sampling
         * period is fixed, so a count per interval carries over). */
        memcpy(deltas + c->slot, c->last, c->n * sizeof(uint64_t));
        (*estimated)++;
    }
    p->pass++;
    if (program(p) < 0)
        return fail(p, d, "programming the next pass");
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
    plan(p);
    return 0;
}

/* debugfs refuses root with EPERM under kernel lockdown (fs/debugfs/
 * file.c: files with write or ioctl operations, regs2 among them); a user
 * without root meets the 0700 mount point first (EACCES). */
static const char *lockdown_why(const struct gt_amd_dev *dev, char *buf, size_t len)
{
    char mode[96] = "";
    const char *at, *end;

    if (gt_sys_read_file(dev->sys, "/sys/kernel/security/lockdown", mode, sizeof(mode)) > 0 &&
        (at = strchr(mode, '[')) && (end = strchr(at, ']')))
        snprintf(buf, len, "the kernel is locked down (lockdown: %.*s, as Secure Boot sets "
                 "it), which closes debugfs register access even to root; GRBM busy bits and "
                 "gpu_metrics still work", (int)(end - at - 1), at + 1);
    else
        snprintf(buf, len, "the kernel is locked down (Secure Boot), which closes debugfs "
                 "register access even to root; GRBM busy bits and gpu_metrics still work");
    return buf;
}

static const char *debugfs_why(const struct gt_amd_dev *dev, int err, enum gt_amd_pmc_fail *f,
                               char *buf, size_t len)
{
    const struct gt_sys *sys = dev->sys;
    int fd;

    if (err == EPERM) {
        *f = GT_PMC_FAIL_LOCKDOWN;
        return lockdown_why(dev, buf, len);
    }
    if (err == EACCES) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    if (err != ENOENT)
        return "";
    fd = gt_sys_open_below(sys, "/sys/kernel/debug/dri");
    if (fd >= 0) {
        sys->close(sys->ctx, fd);
        *f = GT_PMC_FAIL_DEBUGFS;
        return "this kernel has no amdgpu_regs2 (it came in Linux 5.16)";
    }
    if (errno == EACCES || errno == EPERM) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    *f = GT_PMC_FAIL_DEBUGFS;
    return "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug) or the kernel "
           "lacks CONFIG_DEBUG_FS";
}

static int open_regs2(struct gt_amd_pmc *p, enum gt_amd_pmc_fail *f, struct gt_diag *d)
{
    const struct gt_sys *sys = p->dev->sys;
    char path[96], buf[256];

    snprintf(path, sizeof(path), "%s/amdgpu_regs2", p->dev->debugfs);
    p->fd = sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC);
    if (p->fd < 0) {
        int err = errno;
        const char *why = debugfs_why(p->dev, err, f, buf, sizeof(buf));
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
