/* The fake amdgpu kernel's GC 11.5 registers and performance counters,
 * modelled from AMD's own headers and tools rather than from gputop: the
 * upstream file each fact comes from is named beside it, and what no
 * upstream file states is marked ASSUMPTION (gputop-sources(7), "Not yet
 * verified"). Facts gathered in ../shared/reference/amd/counter-programming.md. */
#include "fakes/fake_amdgpu_int.h"

#include <string.h>

#define BCAST 0xffffffffu

/* Offsets in GC segment 1 (absolute dword = base[1] + offset). */
#define CP_PERFMON_CNTL      0x3808u   /* gc_11_5_0_offset.h regCP_PERFMON_CNTL */
#define SQ_PERFCOUNTER_CTRL  0x39e0u   /* gc_11_5_0_offset.h */
#define SQ_PERFCOUNTER_CTRL2 0x39e2u   /* gc_11_5_0_offset.h */
#define SQG_PERFCOUNTER_CTRL 0x39d8u   /* gc_11_5_0_offset.h */
#define SQG_PERFCOUNTER_CTRL2 0x39dau  /* gc_11_5_0_offset.h */
#define GRBM_GFX_INDEX       0x2200u   /* gc_11_5_0_offset.h; the kernel owns it */
/* RLC_CGTT_MGCG_OVERRIDE, PERFMON_CLOCK_STATE bit 10: gc_11_5_0 (UMR
 * register database, counter-programming.md §5); gfx_v11_0.c
 * gfx_v11_0_update_perf_clk sets the bit to keep the perfmon clock on. */
#define RLC_CGTT_MGCG_OVERRIDE 0x4c48u
#define PERFMON_CLOCK_STATE  (1u << 10)

/* CP_PERFMON_CNTL fields (gc_11_0_0_sh_mask.h): PERFMON_STATE [3:0],
 * SPM_PERFMON_STATE [7:4], PERFMON_ENABLE_MODE [9:8],
 * PERFMON_SAMPLE_ENABLE [10]. States (soc21_enum.h CP_PERFMON_STATE):
 * 0 DISABLE_AND_RESET, 1 START_COUNTING, 2 STOP_COUNTING. Modes
 * (soc21_enum.h CP_PERFMON_ENABLE_MODE): 0 ALWAYS_COUNT, 1 RESERVED_1,
 * 2 COUNT_CONTEXT_TRUE, 3 COUNT_CONTEXT_FALSE. */
#define STATE(v)   ((v) & 0xfu)
#define SPM(v)     (((v) >> 4) & 0xfu)
#define MODE(v)    (((v) >> 8) & 0x3u)
#define SAMPLE(v)  (((v) >> 10) & 1u)

/* SQ/SQG_PERFCOUNTER_CTRL: PS_EN 0, GS_EN 2, HS_EN 4, CS_EN 6;
 * SQ_PERFCOUNTER_CTRL2: FORCE_EN 0, VMID_EN [16:1] (gc_11_5_0_sh_mask.h). */
#define CTRL_CS_EN   (1u << 6)
#define CTRL2_FORCE  1u
/* The watched workload is compute on VMID 8. Whether FORCE_EN with the
 * VMID's bit is what lets SQ count a queue without COMPUTE_PERFCOUNT_ENABLE
 * is ASSUMPTION; aqlprofile (gfx11 primitives sq_control2_enable_value)
 * and radeonsi/RADV write FORCE_EN | VMID_EN 0xffff before counting. */
#define WORKLOAD_VMID 8u

enum unit_kind { U_GPU, U_SE, U_WGP, U_CU, U_GL1C, U_CHANNEL };

/* A block: its unit, selects and LO data registers (HI = LO + 1 unless
 * 32-bit), which select feeds which data register, the PERF_SEL field
 * width and the events the block knows. */
struct bank {
    const char *name;
    enum unit_kind unit;
    unsigned n;
    uint32_t sel[FA_NCTR], lo[FA_NCTR];
    uint32_t selmask;
    int bits32;
    struct { unsigned lo, hi; } valid[3];
};

static const struct bank banks[FA_NBANK] = {
    /* GRBM: Mesa ac_perfcounter_gfx11.c gfx11_GRBM (2 counters, global,
     * max selector 49); R_034100 and up (addresses /4 - 0xA000). */
    { "GRBM", U_GPU, 2, { 0x3840, 0x3841 }, { 0x3040, 0x3043 }, 0x3f, 0,
      { { 0, 49 } } },
    /* SQG: gc_11_5_0_offset.h SQG_PERFCOUNTER0..7_SELECT / _LO / _HI; per
     * shader engine (Mesa gfx11_SQ, AC_PC_PER_SHADER_ENGINE). Its events
     * are SQG_PERF_SEL (soc21_enum.h): 0..0x21. */
    { "SQG", U_SE, 8, { 0x39d0, 0x39d1, 0x39d2, 0x39d3, 0x39d4, 0x39d5, 0x39d6, 0x39d7 },
      { 0x31e4, 0x31e6, 0x31e8, 0x31ea, 0x31ec, 0x31ee, 0x31f0, 0x31f2 }, 0x1ff, 0,
      { { 0, 0x21 } } },
    /* SQ per WGP: gc_11_5_0_offset.h SQ_PERFCOUNTER0..15_SELECT and
     * SQ_PERFCOUNTER0..7_LO, no HI (32-bit); select 2k feeds LO k
     * (aqlprofile gfx11 pairs them so; PAL gfx9PerfCtrInfo.h); odd selects
     * are stored and ignored (ASSUMPTION). Events SQ_PERF_SEL (soc21_enum.h
     * and rocprofiler-compute's gfx1151 counter_defs.yaml). */
    { "SQ", U_WGP, 8, { 0x39c0, 0x39c2, 0x39c4, 0x39c6, 0x39c8, 0x39ca, 0x39cc, 0x39ce },
      { 0x31c0, 0x31c2, 0x31c4, 0x31c6, 0x31c8, 0x31ca, 0x31cc, 0x31ce }, 0x1ff, 1,
      { { 0, 195 }, { 0x100, 0x143 }, { 0x1c0, 0x1ec } } },
    /* TCP: gc_11_5_0_offset.h; per CU of each array (Mesa gfx11_TCP
     * AC_PC_BLOCK_INSTANCE_GROUPS); gfx1151 list 0..78 (rocprofiler-compute). */
    { "TCP", U_CU, 4, { 0x3b40, 0x3b42, 0x3b44, 0x3b45 }, { 0x3340, 0x3342, 0x3344, 0x3346 },
      0x3ff, 0, { { 0, 78 } } },
    /* GL1C: Mesa ac_perfcounter_gfx11.c R_036E80.. / R_034E80..; four per
     * shader array ({&gfx11_GL1C, 83, 4}; aqlprofile gfx11 block table
     * Gl1c instance_count 4). */
    { "GL1C", U_GL1C, 4, { 0x3ba0, 0x3ba2, 0x3ba3, 0x3ba4 }, { 0x33a0, 0x33a2, 0x33a4, 0x33a6 },
      0x3ff, 0, { { 0, 83 } } },
    /* GL2C: Mesa R_036E00.. / R_034E00..; one per channel, INSTANCE_INDEX
     * = channel (AC_PC_GLOBAL_BLOCK, instances num_tcc_blocks); gfx1151
     * list 0..270 (rocprofiler-compute). */
    { "GL2C", U_CHANNEL, 4, { 0x3b80, 0x3b82, 0x3b84, 0x3b85 },
      { 0x3380, 0x3382, 0x3384, 0x3386 }, 0x3ff, 0, { { 0, 270 } } },
};
#define SQG_BANK 1
#define SQ_BANK 2

int fa_bank_by_name(const char *name)
{
    int b;

    if (strcmp(name, "SQ_WGP") == 0)   /* Mesa's name for the same block */
        name = "SQ";
    for (b = 0; b < FA_NBANK; b++)
        if (strcmp(banks[b].name, name) == 0)
            return b;
    return -1;
}

/* ---- the register file ---- */

static int known(const struct fake_amdgpu *fa, uint32_t dword)
{
    uint32_t off = dword - fa->base[1];
    unsigned b, k;

    if (off == CP_PERFMON_CNTL || off == SQ_PERFCOUNTER_CTRL || off == SQ_PERFCOUNTER_CTRL2 ||
        off == SQG_PERFCOUNTER_CTRL || off == SQG_PERFCOUNTER_CTRL2 ||
        off == RLC_CGTT_MGCG_OVERRIDE)
        return 1;
    for (b = 0; b < FA_NBANK; b++)
        for (k = 0; k < banks[b].n; k++)
            if (off == banks[b].sel[k] || (b == SQ_BANK && off == banks[b].sel[k] + 1))
                return 1;
    return 0;
}

/* Power-on values: the control registers 0 (counting off; ASSUMPTION
 * except GRBM_GFX_INDEX), unless another profiler is counting; other
 * registers a value nobody would write, so a missing restore shows. */
static uint32_t power_on(const struct fake_amdgpu *fa, uint32_t dword)
{
    uint32_t off = dword - fa->base[1];

    if (off == CP_PERFMON_CNTL)
        return fa->cfg.other_profiler == 1 ? 1u : fa->cfg.other_profiler == 2 ? 0x10u : 0;
    if (off == SQ_PERFCOUNTER_CTRL || off == SQ_PERFCOUNTER_CTRL2 ||
        off == SQG_PERFCOUNTER_CTRL || off == SQG_PERFCOUNTER_CTRL2 ||
        off == RLC_CGTT_MGCG_OVERRIDE)
        return 0;
    return 0x5a000000u | (dword & 0xffff);
}

static int reg_index(struct fake_amdgpu *fa, uint32_t dword)
{
    unsigned i;

    for (i = 0; i < fa->nregs; i++)
        if (fa->reg[i].dword == dword)
            return (int)i;
    if (fa->nregs == FA_NREGS)
        return -1;
    fa->reg[fa->nregs].dword = dword;
    fa->reg[fa->nregs].initial = fa->reg[fa->nregs].value = power_on(fa, dword);
    fa->reg[fa->nregs].written = 0;
    return (int)fa->nregs++;
}

static uint32_t reg(struct fake_amdgpu *fa, uint32_t off)
{
    int r = reg_index(fa, fa->base[1] + off);

    return r < 0 ? 0 : fa->reg[r].value;
}

uint32_t fa_reg_seg1(struct fake_amdgpu *fa, uint32_t off)
{
    return reg(fa, off);
}

void fa_driver_write_seg1(struct fake_amdgpu *fa, uint32_t off, uint32_t v)
{
    int r = reg_index(fa, fa->base[1] + off);

    fa_count_to_now(fa);       /* what counted so far counted under the old value */
    if (r >= 0)
        fa->reg[r].value = v;
}

void fa_regs_power_on(struct fake_amdgpu *fa)
{
    unsigned i;

    for (i = 0; i < fa->nregs; i++)
        fa->reg[i].value = fa->reg[i].initial;
    memset(fa->ctr, 0, sizeof(fa->ctr));
    memset(fa->latched, 0, sizeof(fa->latched));
    memset(fa->rem, 0, sizeof(fa->rem));
    fa->count_ns = fa_now(fa);
}

/* ---- units ---- */

static unsigned flat(unsigned se, unsigned sa, unsigned idx)
{
    return ((se & 3u) * 2u + (sa & 1u)) * 16u + (idx & 15u);
}

static unsigned nse(const struct fake_amdgpu *fa)
{
    (void)fa;
    return 2;   /* DEV_INFO num_shader_engines of the fake (fake_amdgpu.c) */
}

/* Whether unit (se, sa, idx) of bank b exists on this GPU. A WGP is two
 * CU bits of cu_bitmap (gfx_v11_0.c: cu_bitmap_per_wgp = 3 << 2 * wgp);
 * harvested WGPs and CUs have none and answer nothing. */
static int exists(const struct fake_amdgpu *fa, int b, unsigned se, unsigned sa, unsigned idx)
{
    uint32_t map;

    if (se >= nse(fa) || sa >= 2)
        return 0;
    map = fa->cu_bitmap[se][sa];
    switch (banks[b].unit) {
    case U_GPU:     return se == 0 && sa == 0 && idx == 0;
    case U_SE:      return sa == 0 && idx == 0;
    case U_WGP:     return idx < 5 && ((map >> (2 * idx)) & 3u) != 0;
    case U_CU:      return idx < 10 && ((map >> idx) & 1u) != 0;
    case U_GL1C:    return idx < 4;
    case U_CHANNEL: return se == 0 && sa == 0 && idx < 4;   /* num_tcc_blocks */
    }
    return 0;
}

/* The position of the k-th CU present in array (se, sa); 16 (none) past
 * the last. */
static uint32_t nth_cu(const struct fake_amdgpu *fa, uint32_t se, uint32_t sa, uint32_t k)
{
    uint32_t c;

    for (c = 0; se < 4 && sa < 4 && c < 16; c++)
        if (((fa->cu_bitmap[se][sa] >> c) & 1u) && k-- == 0)
            return c;
    return 16;
}

/* The unit GRBM_GFX_INDEX addresses for bank b; -1 when none. A broadcast
 * field reads as index 0 (ASSUMPTION: the first addressed instance). SQ
 * per WGP takes INSTANCE_INDEX = wgp << 2 (aqlprofile gfx11 primitives
 * grbm_se_sh_wgp_index_value); an index with its low two bits set names no
 * WGP (ASSUMPTION). SQG ignores SA and INSTANCE, GL2C SE and SA. */
static int addressed(const struct fake_amdgpu *fa, int b, uint32_t se, uint32_t sh,
                     uint32_t inst)
{
    uint32_t s = se == BCAST ? 0 : se, a = sh == BCAST ? 0 : sh, i = inst == BCAST ? 0 : inst;

    switch (banks[b].unit) {
    case U_GPU:
        s = a = i = 0;
        break;
    case U_SE:
        a = i = 0;
        break;
    case U_WGP:
        if (i & 3u)
            return -1;
        i >>= 2;
        break;
    case U_CU:
        /* TCP instances are numbered 0.. over the CUs present in the
         * array, not by CU position: Mesa ac_perfcounter.c gives TCP
         * max_good_cu_per_sa instances and selects instance k as
         * INSTANCE_INDEX k, whatever the harvest (ASSUMPTION: that the
         * k-th is the k-th present CU; gputop-sources(7), "Not yet verified"). */
        i = nth_cu(fa, s, a, i);
        break;
    case U_CHANNEL:
        s = a = 0;
        break;
    default:
        break;
    }
    if (i >= 16 || !exists(fa, b, s, a, i))
        return -1;
    return (int)flat(s, a, i);
}

/* ---- counting ---- */

static uint64_t rate(const struct fake_amdgpu *fa, int b, unsigned event, unsigned se,
                     unsigned sa, unsigned idx)
{
    unsigned i, unit = FA_UNIT(se, sa, idx);

    for (i = 0; i < fa->nrates; i++)
        if ((int)fa->rate[i].bank == b && fa->rate[i].event == event && fa->rate[i].unit == unit)
            return fa->rate[i].per_ms;
    return 0;
}

/* The load of the current latch period, in % (fa_set_load). */
static uint64_t load_pct(const struct fake_amdgpu *fa, int b, unsigned event)
{
    unsigned i;

    for (i = 0; i < fa->nloads; i++)
        if ((int)fa->load[i].bank == b && fa->load[i].event == event)
            return fa->load[i].pct[fa->epoch % fa->load[i].n];
    return 100;
}

static int valid_event(int b, unsigned ev)
{
    unsigned r;

    for (r = 0; r < 3; r++)
        if (banks[b].valid[r].hi && ev >= banks[b].valid[r].lo && ev <= banks[b].valid[r].hi)
            return 1;
    return ev == 0;
}

/* The perfmon clock: GC 11.5.x sets AMD_CG_SUPPORT_GFX_PERF_CLK (soc21.c
 * soc21_common_early_init), so gfx_v11_0_update_perf_clk gates it with
 * clock gating; a profile pstate ungates it (amdgpu_ctx.c ->
 * amdgpu_dpm_force_performance_level -> soc21_update_umd_stable_pstate ->
 * update_perfmon_mgcg(false)), as does PERFMON_CLOCK_STATE. That gated
 * counters stand still is ASSUMPTION (RADV's radv_emit_inhibit_clockgating
 * says it is "not needed" on GFX11): perfclk_ungated models that reading. */
static int perfclk_on(struct fake_amdgpu *fa)
{
    return fa->cfg.perfclk_ungated || fa->st.pstate > 0 ||
           (reg(fa, RLC_CGTT_MGCG_OVERRIDE) & PERFMON_CLOCK_STATE);
}

/* Whether bank b counts the workload now (counter-programming.md §5): SQ
 * needs CS_EN in SQ_PERFCOUNTER_CTRL and FORCE_EN with the workload's VMID
 * in CTRL2; SQG needs CS_EN in SQG_PERFCOUNTER_CTRL (radv_perfcounter.c
 * writes it on GFX11). */
static int bank_enabled(struct fake_amdgpu *fa, int b)
{
    uint32_t ctrl2;

    if (b == SQ_BANK) {
        ctrl2 = reg(fa, SQ_PERFCOUNTER_CTRL2);
        return (reg(fa, SQ_PERFCOUNTER_CTRL) & CTRL_CS_EN) && (ctrl2 & CTRL2_FORCE) &&
               (ctrl2 >> 1 & (1u << WORKLOAD_VMID));
    }
    if (b == SQG_BANK)
        return (reg(fa, SQG_PERFCOUNTER_CTRL) & CTRL_CS_EN) != 0;
    return 1;
}

/* PERF_MODE [31:28] (and CNTR_MODE [23:20] for the 10-bit blocks) other
 * than 0 (PERFMON_COUNTER_MODE_ACCUM) are not modelled: such a counter
 * counts nothing here. */
static int accumulates(int b, uint32_t sel)
{
    if (sel >> 28)
        return 0;
    return banks[b].selmask == 0x1ff || ((sel >> 20) & 0xfu) == 0;
}

/* dt ns more of counting for bank b: each unit adds its rate (per ms)
 * times the load (%), the part below one count carried over. */
static void count_bank(struct fake_amdgpu *fa, int b, uint64_t dt)
{
    unsigned k, se, sa, idx;

    if (!bank_enabled(fa, b))
        return;
    for (k = 0; k < banks[b].n; k++) {
        uint32_t sel = reg(fa, banks[b].sel[k]);
        unsigned ev = sel & banks[b].selmask;
        uint64_t pct;
        if (!accumulates(b, sel) || !valid_event(b, ev))
            continue;
        if (banks[b].unit == U_CU && k > 0 && fa->cfg.tcp_one_per_pass)
            continue;
        pct = load_pct(fa, b, ev);
        for (se = 0; se < nse(fa); se++)
            for (sa = 0; sa < 2; sa++)
                for (idx = 0; idx < 16; idx++) {
                    unsigned u = flat(se, sa, idx);
                    uint64_t *c = &fa->ctr[b][k][u], *rem = &fa->rem[b][k][u], part;
                    if (!exists(fa, b, se, sa, idx))
                        continue;
                    part = rate(fa, b, ev, se, sa, idx) * pct * dt + *rem;
                    *c += part / 100000000u;
                    *rem = part % 100000000u;
                    if (banks[b].bits32)
                        *c &= 0xffffffffu;   /* LO only: wraps at 2^32 */
                }
    }
}

/* Counting runs in wall time while CP_PERFMON_CNTL says so, whatever the
 * passes (a pass is gputop's idea, not the hardware's): every change of
 * state first brings the counters up to now under the old state. */
void fa_count_to_now(struct fake_amdgpu *fa)
{
    unsigned long long now = fa_now(fa);
    uint32_t cntl = reg(fa, CP_PERFMON_CNTL);
    uint64_t dt = now > fa->count_ns ? now - fa->count_ns : 0;
    int b;

    fa->count_ns = now;
    if (STATE(cntl) != 1 || !dt)
        return;
    /* PERFMON_ENABLE_MODE 1 is RESERVED_1: no upstream tool writes it
     * (Mesa si_pc_emit_start, radv_pc_start, aqlprofile
     * cp_perfmon_cntl_start_value use 0); what the hardware does with it
     * is unknown, so nothing counts. */
    if (MODE(cntl) != 0 || !perfclk_on(fa))
        return;
    fa->st.counted_ns += dt;
    for (b = 0; b < FA_NBANK; b++)
        count_bank(fa, b, dt);
}

static void write_perfmon(struct fake_amdgpu *fa, uint32_t old, uint32_t v)
{
    if (STATE(v) == 1 && MODE(v) == 1)
        fa_protocol_error(fa, "CP_PERFMON_CNTL: PERFMON_ENABLE_MODE 1 is RESERVED_1 "
                              "(soc21_enum.h); upstream starts with mode 0");
    (void)old;
    if (STATE(v) == 0) {
        memset(fa->ctr, 0, sizeof(fa->ctr));
        memset(fa->latched, 0, sizeof(fa->latched));   /* ASSUMPTION: reset clears both */
        memset(fa->rem, 0, sizeof(fa->rem));
    }
    /* PERFMON_SAMPLE_ENABLE copies the counts to what LO/HI read (Mesa
     * si_pc_emit_stop, radv_pc_stop_and_sample, PAL WriteStopAndSample;
     * what LO/HI show without it is ASSUMPTION: the last sample). */
    if (SAMPLE(v)) {
        memcpy(fa->latched, fa->ctr, sizeof(fa->ctr));
        fa->st.samples_latched++;
        fa->epoch++;           /* the load changes from here */
    }
    if (STATE(v) == 1 && STATE(old) != 1)
        fa->st.passes++;
}

/* ---- reads and writes through regs2 ---- */

/* A data register: its bank and counter, and 0 LO / 1 HI; -1 if none. */
static int data_reg(const struct fake_amdgpu *fa, uint32_t dword, int *b, unsigned *k)
{
    uint32_t off = dword - fa->base[1];

    for (*b = 0; *b < FA_NBANK; (*b)++)
        for (*k = 0; *k < banks[*b].n; (*k)++) {
            if (off == banks[*b].lo[*k])
                return 0;
            if (off == banks[*b].lo[*k] + 1 && !banks[*b].bits32)
                return 1;
        }
    return -1;
}

uint32_t fa_reg_read(struct fake_amdgpu *fa, uint32_t se, uint32_t sh, uint32_t inst,
                     uint32_t dword)
{
    unsigned k;
    int b, hi = data_reg(fa, dword, &b, &k), u, r;
    uint64_t v;

    if (hi >= 0) {
        u = addressed(fa, b, se, sh, inst);
        v = u < 0 ? 0 : fa->latched[b][k][u];
        return (uint32_t)(hi ? v >> 32 : v);
    }
    if (!known(fa, dword))
        return 0;   /* some other register: harmless to read, not modelled */
    r = reg_index(fa, dword);
    return r < 0 ? 0 : fa->reg[r].value;
}

void fa_reg_write(struct fake_amdgpu *fa, uint32_t se, uint32_t sh, uint32_t inst,
                  uint32_t dword, uint32_t v)
{
    uint32_t old;
    int r;

    if (dword == fa->base[1] + GRBM_GFX_INDEX) {
        fa_protocol_error(fa, "GRBM_GFX_INDEX written through regs2: the kernel owns it "
                              "(amdgpu_debugfs.c selects it for each access)");
        return;
    }
    if (!known(fa, dword)) {
        fa_protocol_error(fa, "register 0x%x written: no GC 11.5 counter register is there "
                              "(GC bases 0x%x/0x%x)", dword, fa->base[0], fa->base[1]);
        return;
    }
    if (se != BCAST || sh != BCAST || inst != BCAST)
        fa_protocol_error(fa, "register 0x%x written to one instance; gputop writes broadcast",
                          dword);
    r = reg_index(fa, dword);
    if (r < 0)
        return;
    old = fa->reg[r].value;
    /* What counted so far counted under the old value. */
    fa_count_to_now(fa);
    if (dword == fa->base[1] + CP_PERFMON_CNTL)
        write_perfmon(fa, old, v);
    fa->reg[r].value = v;
    fa->reg[r].written = 1;
}
