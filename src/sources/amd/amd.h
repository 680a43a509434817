/* Shared between the files of the amdgpu source (src/sources/amd/): the
 * opened device, its identity, and the parts each file provides. */
#ifndef GPUTOP_SOURCES_AMD_H
#define GPUTOP_SOURCES_AMD_H

#include <stddef.h>
#include <stdint.h>

#include "gputop/diag.h"
#include "gputop/sys.h"

#define GT_AMD_PCI_VENDOR 0x1002u
#define GT_AMD_MAX_DEVICES 16

/* What discovery and DEV_INFO tell of one GPU. */
struct gt_amd_dev {
    const struct gt_sys *sys;
    struct gt_drm_device drm;   /* nodes and PCI ids from discovery */
    char sysfs[96];             /* "/sys/class/drm/renderD128/device" */
    char debugfs[64];           /* "/sys/kernel/debug/dri/0" */
    int fd;                     /* render node, -1 while closed */
    int info_read;              /* DEV_INFO answered (the GPU was awake once) */
    char driver[32];
    int drv_major, drv_minor, drv_patch;
    uint32_t family;            /* AMDGPU_FAMILY_* */
    uint32_t gc_version;        /* IP discovery 0xMMmmrr; 0 unknown */
    uint32_t num_se, num_sa_per_se, cu_active, cu_per_sa, num_tcc, wave_size;
    uint32_t max_sclk_mhz, max_mclk_mhz;
    const char *gfx;            /* "gfx1151", "" unknown */
    const char *name;           /* marketing or code name */
    int rdna3;                  /* RDNA 3 / 3.5: recognised */
    int pmc_regs;               /* GC 11.5: gputop knows its counter registers */
};

/* ---- discovery.c ---- */

/* Every AMD GPU the seam lists; returns how many (0..max), or -1 with d
 * set when discovery itself fails. */
int gt_amd_discover(const struct gt_sys *sys, struct gt_drm_device *out, int max,
                    struct gt_diag *d);
/* Finds the device of path (a render or primary node), or the first AMD
 * GPU when path is "". Fills dev (closed) or returns -1 with d set. */
int gt_amd_find(const struct gt_sys *sys, const char *path, struct gt_amd_dev *dev,
                struct gt_diag *d);
/* Fills gfx, name, rdna3 and pmc_regs from the PCI id, family and GC version. */
void gt_amd_identify(struct gt_amd_dev *dev);

/* ---- amdgpu_info.c ---- */

enum gt_amd_power { GT_AMD_AWAKE, GT_AMD_ASLEEP, GT_AMD_POWER_UNKNOWN };

/* The runtime-PM state from sysfs, read without waking the GPU; why
 * gets the status word ("suspended", ...). */
enum gt_amd_power gt_amd_power_state(const struct gt_amd_dev *dev, char *why, size_t len);
/* Opens the render node, checks the driver is amdgpu and reads DEV_INFO
 * and the GC version. */
int gt_amd_open(struct gt_amd_dev *dev, struct gt_diag *d);
void gt_amd_close(struct gt_amd_dev *dev);
/* 1 when the render node's file answers ENODEV (its device unbound). */
int gt_amd_dead(const struct gt_amd_dev *dev);

enum { GT_AMD_SCLK, GT_AMD_MCLK, GT_AMD_TEMP, GT_AMD_LOAD, GT_AMD_POWER, GT_AMD_NSENSORS };
/* AMDGPU_INFO_SENSOR: sclk MHz, mclk MHz, temperature milli-degC, load %,
 * average power W. ok[i] is 0 where the kernel has no such sensor. */
int gt_amd_read_sensors(const struct gt_amd_dev *dev, uint32_t v[GT_AMD_NSENSORS],
                        int ok[GT_AMD_NSENSORS]);
/* One AMDGPU_INFO_READ_MMR_REG of count consecutive dwords. */
int gt_amd_read_mmr(const struct gt_amd_dev *dev, uint32_t dword, uint32_t count,
                    uint32_t *out);

/* ---- gpu_metrics.c ---- */

enum {
    GT_GM_GFXCLK,        /* MHz */
    GT_GM_UCLK,          /* MHz (memory clock) */
    GT_GM_TEMP_GFX,      /* centi-degC */
    GT_GM_SOCKET_POWER,  /* mW */
    GT_GM_GFX_POWER,     /* mW */
    GT_GM_GFX_ACTIVITY,  /* % */
    GT_GM_DRAM_READS,    /* MB/s */
    GT_GM_DRAM_WRITES,   /* MB/s */
    GT_GM_FCLK,          /* MHz */
    GT_GM_NFIELDS
};

struct gt_amd_metrics {
    unsigned format, content;
    uint64_t clock_ns;                /* system_clock_counter, 0 if absent */
    uint64_t v[GT_GM_NFIELDS];
    unsigned char have[GT_GM_NFIELDS];
};

/* Parses a gpu_metrics blob by (format, content) revision: 3.0 and 2.1..2.4.
 * Returns 0, or -1 with why set (short, unknown revision, size mismatch). */
int gt_amd_metrics_parse(const void *blob, size_t len, struct gt_amd_metrics *m,
                         char *why, size_t whylen);
/* The value of the field at byte offset off of gpu_metrics_v3_0 (the
 * catalogue names fields so), whichever format was parsed; 0 when this
 * blob has no such field or the SMU did not fill it. */
int gt_amd_metrics_at_v3(const struct gt_amd_metrics *m, int off, uint64_t *out);

/* ---- grbm_poll.c ---- */

struct gt_grbm_counts {
    uint64_t polls;
    uint64_t busy[2][32];     /* [0 GRBM_STATUS, 1 GRBM_STATUS2][bit] */
};

/* Counts busy bits over n reads of GRBM_STATUS and GRBM_STATUS2 spread
 * over span_ns (0: back to back). Returns 0, or -1 with d set on the
 * first failed read. */
int gt_grbm_poll(const struct gt_amd_dev *dev, uint32_t n, uint64_t span_ns,
                 struct gt_grbm_counts *c, struct gt_diag *d);
/* Adds one pair of register values to c. */
void gt_grbm_count(struct gt_grbm_counts *c, uint32_t status, uint32_t status2);

/* ---- regs2_pmc.c ---- */

struct gt_amd_pmc;
struct gt_amd_device;
struct gt_catalog;

enum gt_amd_keepon { GT_KEEPON_GFXOFF, GT_KEEPON_PSTATE };

/* Why counters are out of reach, for the rows that need them. */
enum gt_amd_pmc_fail { GT_PMC_FAIL_OTHER, GT_PMC_FAIL_ROOT, GT_PMC_FAIL_DEBUGFS };

/* Opens debugfs amdgpu_regs2 for the performance counters in c (those of
 * kind GT_AMD_PMC), keeps GFX powered as keepon says and saves every
 * register it will write. NULL with d set and *fail saying why. */
struct gt_amd_pmc *gt_amd_pmc_open(struct gt_amd_dev *dev, const struct gt_amd_device *geom,
                                   const struct gt_catalog *c, enum gt_amd_keepon keepon,
                                   enum gt_amd_pmc_fail *fail, struct gt_diag *d);
/* Counts only the catalogue counters marked in used (all when NULL), and
 * marks in c those that share registers in turns as multiplexed. */
void gt_amd_pmc_select(struct gt_amd_pmc *p, const unsigned char *used, struct gt_catalog *c);
/* Programs the first pass and starts counting. */
int gt_amd_pmc_start(struct gt_amd_pmc *p, struct gt_diag *d);
/* Stops, reads this pass's counters into deltas (by catalogue slot),
 * fills the others with their last pass's values, starts the next pass.
 * *estimated gets how many counters were carried over. */
int gt_amd_pmc_sample(struct gt_amd_pmc *p, uint64_t *deltas, unsigned *estimated,
                      struct gt_diag *d);
/* Restores every register written and lets GFX power down again. */
void gt_amd_pmc_close(struct gt_amd_pmc *p);
/* Passes per rotation, and counters counted. */
unsigned gt_amd_pmc_passes(const struct gt_amd_pmc *p);
unsigned gt_amd_pmc_ncounters(const struct gt_amd_pmc *p);
/* One line per register bank: counters, passes, limit. */
void gt_amd_pmc_describe(const struct gt_amd_pmc *p, char *buf, size_t len);

#endif
