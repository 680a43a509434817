/* A fake amdgpu kernel behind the system-call seam: DRM discovery, the
 * render node (DRM_IOCTL_VERSION, AMDGPU_INFO DEV_INFO / HW_IP_INFO /
 * SENSOR / READ_MMR_REG with the soc21 whitelist, AMDGPU_CTX stable
 * pstate), sysfs runtime_status, gpu_metrics and the IP-discovery GC
 * bases, debugfs amdgpu_regs2 (SET_STATE / SET_STATE_V2, pread/pwrite of
 * MMIO dwords with GRBM banking) and amdgpu_gfxoff, kernel lockdown, and a
 * GC 11.5 performance-counter model as AMD's own headers and tools describe
 * it (fake_amdgpu_regs.c: SQ vs SQG event lists, SQ_PERFCOUNTER_CTRL/CTRL2,
 * WGP banking, TCP instances over the CUs present, four GL1C per array,
 * CP_PERFMON_CNTL modes and the sample latch, perfmon clock gating).
 * Counters advance with time, as hardware's do whatever the passes are:
 * per-unit rates a ms, a load that may change at each sample latch, on
 * CLOCK_MONOTONIC or a manual clock the source reads through the seam's
 * now_ns, so dead time, pass mixing and 32-bit wraps show in tests.
 * Arguments are decoded at raw byte offsets of the kernel's structs, not
 * through gputop's own, so the two check each other. */
#ifndef GPUTOP_TEST_FAKE_AMDGPU_H
#define GPUTOP_TEST_FAKE_AMDGPU_H

#include <stdint.h>
#include "gputop/sys.h"

enum fa_gpu {
    FA_GFX1151,      /* Strix Halo: PCI 0x1586, family 150, GC 11.5.1, 2 SE x 2 SA,
                        40 CUs, 4 GL2C channels, 2900 MHz, wave32 */
    FA_NAVI10,       /* RDNA 1: PCI 0x731f, family 143, GC 10.1.10, 2 x 2, 40 CUs */
};

enum fa_metrics { FA_METRICS_NONE, FA_METRICS_V3_0, FA_METRICS_V2_1, FA_METRICS_V9_9 };

struct fa_config {
    enum fa_gpu gpu;
    int no_gpu;               /* discovery lists only a non-AMD GPU */
    const char *power;        /* runtime_status text; NULL: no power/ dir */
    enum fa_metrics metrics;
    int root;                 /* debugfs files open (else EACCES on the dri dir) */
    int no_debugfs;           /* /sys/kernel/debug/dri does not exist */
    int pstate_busy;          /* SET_STABLE_PSTATE fails with EBUSY */
    int no_regs2_v2;          /* SET_STATE_V2 fails with EINVAL (kernel < 6.5) */
    int driver_radeon;        /* DRM_IOCTL_VERSION names "radeon" */
    /* DEV_INFO fields overridden: a u32 at byte offset off (0: unused),
     * as a broken or hostile kernel might answer. */
    struct { unsigned off; uint32_t value; } dev_info_patch[4];
    /* DEV_INFO cu_bitmap[se][sa] (bit n = CU n of the array; a WGP is two
     * bits); all zero: every array has its 10 CUs (0x3ff), or with
     * harvested the WGP masks 1f, 07, 0f, 03 (28 CUs, 14 WGPs). */
    uint32_t cu_bitmap[4][4];
    int harvested;
    /* GC segment bases (dwords) the IP-discovery sysfs reports and the
     * registers sit at; 0: 0x1260 and 0xA000. no_ip_discovery: no such
     * sysfs directory (kernels before it). */
    uint32_t gc_base[2];
    int no_ip_discovery;
    /* The perfmon clock is not gated (GC 11.5 sets AMD_CG_SUPPORT_GFX_PERF_CLK
     * in soc21.c, so by default it is, unless a profile pstate is held). */
    int perfclk_ungated;
    /* Another profiler holds the counters: 1 CP_PERFMON_CNTL counting
     * (RGP, rocprof), 2 an SPM trace running. */
    int other_profiler;
    /* Kernel lockdown (Secure Boot): debugfs refuses root with EPERM. */
    int lockdown;
    /* Time: CLOCK_MONOTONIC (0), or a clock only fa_advance and the cost
     * of each regs2 access (call_ns) move, which the source reads through
     * the seam's now_ns (1). Counters advance with it either way. */
    int manual_clock;
    unsigned long long call_ns;
    /* TCP counts one event a pass, in its first counter only (what one
     * rocprofv3 run on gfx1151 suggested; Mesa and aqlprofile give TCP
     * four counters). */
    int tcp_one_per_pass;
};

/* A unit of a counter block: shader engine, shader array, and the index in
 * it (the WGP for SQ, the CU's bit in cu_bitmap for TCP, 0..3 for GL1C, the
 * channel for GL2C with se = sa = 0). */
#define FA_UNIT(se, sa, idx) (((unsigned)(se) << 16) | ((unsigned)(sa) << 8) | (unsigned)(idx))

struct fake_amdgpu;

struct fake_amdgpu *fa_new(const struct fa_config *cfg);
void fa_free(struct fake_amdgpu *fa);
const struct gt_sys *fa_sys(struct fake_amdgpu *fa);

/* GRBM_STATUS / GRBM_STATUS2 values returned, cycling through n pairs. */
void fa_set_grbm(struct fake_amdgpu *fa, const uint32_t *status, const uint32_t *status2,
                 unsigned n);
/* What unit (FA_UNIT) of block counts per millisecond of counting time
 * for the block's own event number: "SQ" (per WGP, SQ_PERF_SEL), "SQG"
 * (per SE, SQG_PERF_SEL), "TCP", "GL1C", "GL2C", "GRBM". Counters advance
 * with the fake's clock while CP_PERFMON_CNTL is counting, as hardware
 * does whatever the passes are. */
void fa_set_rate(struct fake_amdgpu *fa, const char *block, unsigned event, unsigned unit,
                 uint64_t per_ms);
/* A load that changes at each sample latch: after the k-th latch every
 * unit's rate of block's event is pct[k % n] % of what fa_set_rate set
 * (100 before any is set). n <= 16. */
void fa_set_load(struct fake_amdgpu *fa, const char *block, unsigned event, const unsigned *pct,
                 unsigned n);
/* The fake's clock (ns), and moving a manual one on. */
unsigned long long fa_now(struct fake_amdgpu *fa);
void fa_advance(struct fake_amdgpu *fa, unsigned long long ns);
/* What the register at GC segment-1 offset off holds now (0x39e0 is
 * SQ_PERFCOUNTER_CTRL, ...). */
uint32_t fa_reg_seg1(struct fake_amdgpu *fa, uint32_t off);
/* The kernel itself writes the register at GC segment-1 offset off (its
 * clock-gating updates own RLC_CGTT_MGCG_OVERRIDE, 0x4c48): not a write of
 * gputop's. */
void fa_driver_write_seg1(struct fake_amdgpu *fa, uint32_t off, uint32_t v);
/* Anything but "active" is asleep; falling asleep loses the GC registers
 * (counter selects, CP_PERFMON_CNTL, counts), as D3 does. */
void fa_set_power(struct fake_amdgpu *fa, const char *runtime_status);
/* A gpu_metrics field (v3.0 byte offset) in the blob, as a u16 or u32. */
void fa_set_metric(struct fake_amdgpu *fa, unsigned v3_offset, unsigned width, uint32_t value);
/* The GPU is unbound (hot unplug, driver reload): its nodes, sysfs and
 * debugfs files are gone, files opened before answer ENODEV for good, and
 * the GPU is reset. fa_replug binds it again (new files work). */
void fa_unplug(struct fake_amdgpu *fa);
void fa_replug(struct fake_amdgpu *fa);
/* Sensor value by AMDGPU_INFO_SENSOR type; 0 makes it -ENOENT. */
void fa_set_sensor(struct fake_amdgpu *fa, unsigned type, uint32_t value);

struct fa_stats {
    int open_fds;
    int woken;                /* render node or regs2 touched while suspended */
    int mmr_reads;            /* READ_MMR_REG calls */
    int regs_written;         /* distinct registers written through regs2 */
    int regs_not_restored;    /* of those, not back at their power-on value */
    int gfxoff_refs;          /* outstanding "keep GFX on" requests */
    int pstate;               /* stable pstate held (flags), 0 none */
    int passes;               /* counter passes started */
    int gfxoff_entries;       /* times GFX powered down (GFXOFF) while running */
    int samples_latched;      /* CP_PERFMON_CNTL writes with PERFMON_SAMPLE_ENABLE */
    unsigned long long counted_ns;   /* time counters have run, all passes */
    int protocol_errors;      /* calls a real kernel would have rejected */
    char last_error[256];
};
const struct fa_stats *fa_stats(struct fake_amdgpu *fa);

#endif
