/* The amdgpu kernel interface facts libdrm 2.4.114's headers lack: the
 * debugfs amdgpu_regs2 ioctl (a kernel-internal header, amdgpu_umr.h),
 * newer family and sensor ids, the gpu_metrics binary layouts, and the
 * GC 11.5 register addresses. Sizes and offsets are asserted below so a
 * wrong copy fails to compile (../shared/reference/amd/kernel-interfaces.md). */
#ifndef GPUTOP_AMDGPU_UAPI_H
#define GPUTOP_AMDGPU_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <drm.h>
#include <amdgpu_drm.h>

/* ---- amdgpu_regs2 (debugfs, root): GRBM/SRBM banked MMIO ---- */

struct gt_regs2_iocdata {
    uint32_t use_srbm, use_grbm, pg_lock;
    struct { uint32_t se, sh, instance; } grbm;
    struct { uint32_t me, pipe, queue, vmid; } srbm;
};

struct gt_regs2_iocdata_v2 {
    uint32_t use_srbm, use_grbm, pg_lock;
    struct { uint32_t se, sh, instance; } grbm;
    struct { uint32_t me, pipe, queue, vmid; } srbm;
    uint32_t xcc_id;
};

_Static_assert(sizeof(struct gt_regs2_iocdata) == 40, "regs2 iocdata is 40 bytes");
_Static_assert(offsetof(struct gt_regs2_iocdata, grbm) == 12, "grbm at 12");
_Static_assert(offsetof(struct gt_regs2_iocdata, srbm) == 24, "srbm at 24");
_Static_assert(sizeof(struct gt_regs2_iocdata_v2) == 44, "regs2 iocdata v2 is 44 bytes");
_Static_assert(offsetof(struct gt_regs2_iocdata_v2, xcc_id) == 40, "xcc_id at 40");

#define GT_REGS2_IOC_SET_STATE    _IOWR(0x20, 0, struct gt_regs2_iocdata)
#define GT_REGS2_IOC_SET_STATE_V2 _IOWR(0x20, 1, struct gt_regs2_iocdata_v2)
/* Every GRBM field at this value selects broadcast (0x3FF is -EINVAL). */
#define GT_REGS2_BROADCAST 0xFFFFFFFFu

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(GT_REGS2_IOC_SET_STATE == 0xC0282000u, "regs2 SET_STATE number");
_Static_assert(GT_REGS2_IOC_SET_STATE_V2 == 0xC02C2001u, "regs2 SET_STATE_V2 number");
#endif

/* ---- ids newer than libdrm 2.4.114 ---- */

#define GT_AMDGPU_FAMILY_GC_11_0_0 145   /* Navi 3x (RDNA 3 dGPU) */
#define GT_AMDGPU_FAMILY_GC_11_0_1 148   /* Phoenix, Hawk Point (RDNA 3 APU) */
#define GT_AMDGPU_FAMILY_GC_10_3_6 149
#define GT_AMDGPU_FAMILY_GC_11_5_0 150   /* every GC 11.5.x: Strix Point/Halo, Krackan */
#define GT_AMDGPU_FAMILY_GC_10_3_7 151
#define GT_AMDGPU_FAMILY_GC_12_0_0 152

/* Sensors after 2.4.114 (amdgpu_drm.h): the PEAK profile's clocks, MHz. */
#define GT_AMDGPU_INFO_SENSOR_PEAK_PSTATE_GFX_SCLK 0xa
#define GT_AMDGPU_INFO_SENSOR_PEAK_PSTATE_GFX_MCLK 0xb

#define GT_AMDGPU_VRAM_TYPE_LPDDR4 11
#define GT_AMDGPU_VRAM_TYPE_LPDDR5 12

/* AMDGPU_INFO_HW_IP_INFO: the u32 2.4.114 calls _pad holds the IP
 * discovery version (major 23:16, minor 15:8, revision 7:0). */
#define GT_HW_IP_DISCOVERY_VERSION_OFFSET 28
_Static_assert(offsetof(struct drm_amdgpu_info_hw_ip, _pad) == GT_HW_IP_DISCOVERY_VERSION_OFFSET,
               "ip_discovery_version is libdrm's _pad");
_Static_assert(sizeof(struct drm_amdgpu_info_hw_ip) == 32, "hw_ip info is 32 bytes");

/* The DEV_INFO fields gputop reads, at the offsets both the 2.4.114 (368 B)
 * and the current (448 B) struct share. */
_Static_assert(sizeof(struct drm_amdgpu_info_device) == 368, "libdrm 2.4.114 DEV_INFO size");
_Static_assert(offsetof(struct drm_amdgpu_info_device, family) == 16, "family");
_Static_assert(offsetof(struct drm_amdgpu_info_device, num_shader_engines) == 20, "SEs");
_Static_assert(offsetof(struct drm_amdgpu_info_device, max_engine_clock) == 32, "max sclk");
_Static_assert(offsetof(struct drm_amdgpu_info_device, cu_active_number) == 48, "CUs");
_Static_assert(offsetof(struct drm_amdgpu_info_device, wave_front_size) == 240, "wave size");
_Static_assert(offsetof(struct drm_amdgpu_info_device, num_cu_per_sh) == 248, "CU per SA");
_Static_assert(offsetof(struct drm_amdgpu_info_device, num_tcc_blocks) == 252, "GL2C channels");
_Static_assert(sizeof(struct drm_amdgpu_info) == 32, "drm_amdgpu_info request");

/* ---- gpu_metrics (sysfs, binary) ---- */

/* Every layout starts with {u16 structure_size; u8 format; u8 content}. */
enum {
    GT_GM_HDR_SIZE = 0, GT_GM_HDR_FORMAT = 2, GT_GM_HDR_CONTENT = 3,
};

/* gpu_metrics_v3_0 (SMU 14.0.x APUs, Strix Halo): 264 bytes. */
enum {
    GT_GM30_SIZE = 264,
    GT_GM30_TEMPERATURE_GFX = 4,          /* u16 centi-degC */
    GT_GM30_TEMPERATURE_SOC = 6,
    GT_GM30_AVERAGE_GFX_ACTIVITY = 42,    /* u16 % */
    GT_GM30_AVERAGE_DRAM_READS = 94,      /* u16 MB/s */
    GT_GM30_AVERAGE_DRAM_WRITES = 96,     /* u16 MB/s */
    GT_GM30_SYSTEM_CLOCK_COUNTER = 104,   /* u64 ns */
    GT_GM30_AVERAGE_SOCKET_POWER = 112,   /* u32 mW */
    GT_GM30_AVERAGE_GFX_POWER = 124,      /* u32 mW */
    GT_GM30_AVERAGE_GFXCLK_FREQUENCY = 174, /* u16 MHz */
    GT_GM30_AVERAGE_FCLK_FREQUENCY = 182,
    GT_GM30_AVERAGE_UCLK_FREQUENCY = 186,
    GT_GM30_CURRENT_GFX_MAXFREQ = 224,
};

/* gpu_metrics_v2_1 .. v2_4 (Renoir .. Hawk Point APUs): common prefix. */
enum {
    GT_GM21_SIZE = 120,
    GT_GM21_TEMPERATURE_GFX = 4,          /* u16 centi-degC */
    GT_GM21_AVERAGE_GFX_ACTIVITY = 28,
    GT_GM21_SYSTEM_CLOCK_COUNTER = 32,    /* u64 ns */
    GT_GM21_AVERAGE_SOCKET_POWER = 40,    /* u16 mW */
    GT_GM21_AVERAGE_GFX_POWER = 46,
    GT_GM21_AVERAGE_GFXCLK_FREQUENCY = 64,
    GT_GM21_AVERAGE_UCLK_FREQUENCY = 68,
    GT_GM21_AVERAGE_FCLK_FREQUENCY = 70,
    GT_GM21_CURRENT_GFXCLK = 76,
};

/* A u16 field the SMU did not fill reads as all ones. */
#define GT_GM_NOT_FILLED16 0xFFFFu

/* ---- GC 11.5 registers (absolute MMIO dword addresses) ---- */

/* GC segment bases in dwords (IP discovery gives the real ones; these are
 * the values every GC 10/11 part so far has used). */
#define GT_GC_SEG0 0x1260u
#define GT_GC_SEG1 0xA000u

#define GT_REG_GRBM_STATUS2   (GT_GC_SEG0 + 0x0da2u)   /* 0x2002 */
#define GT_REG_GRBM_STATUS    (GT_GC_SEG0 + 0x0da4u)   /* 0x2004 */
#define GT_REG_GRBM_GFX_INDEX (GT_GC_SEG1 + 0x2200u)   /* 0xC200 */
_Static_assert(GT_REG_GRBM_STATUS == 0x2004u, "GRBM_STATUS is dword 0x2004 (byte 0x8010)");
_Static_assert(GT_REG_GRBM_STATUS2 == 0x2002u, "GRBM_STATUS2 is dword 0x2002");

/* GRBM_GFX_INDEX fields. */
#define GT_GFX_INDEX_INSTANCE(i) ((uint32_t)(i) & 0x7fu)
#define GT_GFX_INDEX_SA(i)       (((uint32_t)(i) & 0xffu) << 8)
#define GT_GFX_INDEX_SE(i)       (((uint32_t)(i) & 0xffu) << 16)
#define GT_GFX_INDEX_SA_BCAST    (1u << 29)
#define GT_GFX_INDEX_INST_BCAST  (1u << 30)
#define GT_GFX_INDEX_SE_BCAST    (1u << 31)

/* Perf-counter control (gc_11_5_0_offset.h; fields gc_11_5_0_sh_mask.h). */
#define GT_REG_SQ_PERFCOUNTER_CTRL    (GT_GC_SEG1 + 0x39e0u)
#define GT_REG_SQ_PERFCOUNTER_CTRL2   (GT_GC_SEG1 + 0x39e2u)
#define GT_REG_COMPUTE_PERFCOUNT_ENABLE (GT_GC_SEG0 + 0x1babu)
/* SQ_PERFCOUNTER_CTRL: PS_EN 0, GS_EN 2, HS_EN 4, CS_EN 6, as aqlprofile's
 * gfx11 sq_control_enable_value writes them. CTRL2: FORCE_EN bit 0,
 * VMID_EN [16:1], all VMIDs (sq_control2_enable_value). */
#define GT_SQ_CTRL_ALL_STAGES ((1u << 0) | (1u << 2) | (1u << 4) | (1u << 6))
#define GT_SQ_CTRL2_FORCE_ALL_VMIDS (1u | (0xffffu << 1))
/* CP_PERFMON_CNTL: PERFMON_STATE [3:0] (soc21_enum.h CP_PERFMON_STATE: 0
 * DISABLE_AND_RESET, 1 START_COUNTING, 2 STOP_COUNTING), SPM_PERFMON_STATE
 * [7:4], PERFMON_ENABLE_MODE [9:8] (0 ALWAYS_COUNT; 1 is RESERVED_1),
 * PERFMON_SAMPLE_ENABLE [10] (gc_11_0_0_sh_mask.h). Start in mode 0 and
 * stop with the sample bit so LO/HI hold the counts, as Mesa
 * (si_pc_emit_stop), RADV (radv_pc_stop_and_sample) and aqlprofile
 * (cp_perfmon_cntl_stop_value) do. */
#define GT_REG_CP_PERFMON_CNTL (GT_GC_SEG1 + 0x3808u)
#define GT_PERFMON_RESET  0u
#define GT_PERFMON_START  1u
#define GT_PERFMON_STOP   2u
#define GT_PERFMON_SAMPLE (1u << 10)
#define GT_PERFMON_STATE(v)     ((v) & 0xfu)
#define GT_PERFMON_SPM_STATE(v) (((v) >> 4) & 0xfu)

/* RLC_CGTT_MGCG_OVERRIDE (gc_11_5_0, UMR register database; 0xEC48):
 * PERFMON_CLOCK_STATE [10] set keeps the perfmon clock running through
 * clock gating. GC 11.5 has no RLC_PERFMON_CLK_CNTL; the kernel ungates
 * the perfmon clock by setting this bit (gfx_v11_0.c
 * gfx_v11_0_update_perf_clk(false), which a stable pstate calls). */
#define GT_REG_RLC_CGTT_MGCG_OVERRIDE (GT_GC_SEG1 + 0x4c48u)
#define GT_PERFMON_CLOCK_STATE (1u << 10)

#endif
