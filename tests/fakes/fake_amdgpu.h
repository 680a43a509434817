/* A fake amdgpu kernel behind the system-call seam: DRM discovery, the
 * render node (DRM_IOCTL_VERSION, AMDGPU_INFO DEV_INFO / HW_IP_INFO /
 * SENSOR / READ_MMR_REG with the soc21 whitelist, AMDGPU_CTX stable
 * pstate), sysfs runtime_status and gpu_metrics, debugfs amdgpu_regs2
 * (SET_STATE / SET_STATE_V2, pread/pwrite of MMIO dwords with GRBM
 * banking, performance counters that count while started) and
 * amdgpu_gfxoff. Arguments are decoded at raw byte offsets of the kernel's
 * structs, not through gputop's own, so the two check each other. */
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
};

struct fake_amdgpu;

struct fake_amdgpu *fa_new(const struct fa_config *cfg);
void fa_free(struct fake_amdgpu *fa);
const struct gt_sys *fa_sys(struct fake_amdgpu *fa);

/* GRBM_STATUS / GRBM_STATUS2 values returned, cycling through n pairs. */
void fa_set_grbm(struct fake_amdgpu *fa, const uint32_t *status, const uint32_t *status2,
                 unsigned n);
/* What instance inst of hw_block ("SQG", "SQ_WGP", "TCP", "GL1C", "GL2C",
 * "GRBM") counts per pass for PERF_SEL event: a pass is the time between
 * starting the counters and stopping them. */
void fa_set_rate(struct fake_amdgpu *fa, const char *hw_block, unsigned event, unsigned inst,
                 uint64_t per_pass);
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
    int protocol_errors;      /* calls a real kernel would have rejected */
    char last_error[256];
};
const struct fa_stats *fa_stats(struct fake_amdgpu *fa);

#endif
