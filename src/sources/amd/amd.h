/* Shared between the files of the amdgpu source (src/sources/amd/): the
 * opened device, its identity, and the parts each file provides. */
#ifndef GPUTOP_SOURCES_AMD_H
#define GPUTOP_SOURCES_AMD_H

#include <stddef.h>
#include <stdint.h>

#include "gputop/amd_gfx1151.h"
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
    uint32_t cu_bitmap[4][4];   /* DEV_INFO: [se][sa], bit n = CU n; a WGP is 2 bits */
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
/* The GC segment bases (dwords) from sysfs IP discovery
 * (ip_discovery/die/0/11/0/base_addr): 1 read, 0 no such file (a kernel
 * without it), -1 unreadable, with path set to the file either way. */
int gt_amd_gc_bases(const struct gt_amd_dev *dev, uint32_t base[2], char *path, size_t len);

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
/* One AMDGPU_INFO_SENSOR reading (AMDGPU_INFO_SENSOR_* type); -1 when the
 * kernel has none. */
int gt_amd_read_sensor(const struct gt_amd_dev *dev, uint32_t type, uint32_t *out);
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

/* ---- pmc_power.c ---- */

/* How GFX is kept powered and the perfmon clock ungated while counting:
 * a GFXOFF request and RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE set by
 * gputop (the default: the clocks stay free), the PEAK profile pstate
 * (which ungates it too but pins the shader clock at its maximum), or a
 * GFXOFF request only. */
enum gt_amd_keepon { GT_KEEPON_PERFCLK, GT_KEEPON_PSTATE, GT_KEEPON_GFXOFF };

struct gt_amd_hold {
    int gfxoff_fd;             /* amdgpu_gfxoff while a request is held, else -1 */
    uint32_t ctx_id;           /* the context holding the pstate, 0 none */
    uint32_t pstate;           /* AMDGPU_CTX_STABLE_PSTATE_* held, 0 none */
};

/* Holds what keepon says in h (gfxoff_fd -1 beforehand); -1 with d set
 * and errno EBUSY when another program holds the stable pstate. */
int gt_amd_power_hold(const struct gt_amd_dev *dev, enum gt_amd_keepon keepon,
                      struct gt_amd_hold *h, struct gt_diag *d);
void gt_amd_power_release(const struct gt_amd_dev *dev, struct gt_amd_hold *h);

/* ---- pmc_units.c ---- */

/* A GRBM_GFX_INDEX selection for a regs2 access (GT_REGS2_BROADCAST =
 * all). */
struct gt_amd_addr {
    uint32_t se, sh, inst;
};

/* How a counter block is banked. */
enum gt_amd_bank_unit {
    GT_UNIT_GLOBAL,      /* one (GRBM), or per SE/SA by the counter's domain */
    GT_UNIT_WGP,         /* SQ per WGP: INSTANCE_INDEX = wgp << 2 */
    GT_UNIT_CU,          /* TCP per CU */
    GT_UNIT_GL1C,        /* four GL1C per shader array */
    GT_UNIT_CHANNEL,     /* GL2C: INSTANCE_INDEX = channel */
};

/* The selections whose values add up to instance i of a counter of domain
 * dom in a block banked by unit (a per-SE SQ counter: every WGP of the
 * engine; a GL1C array: its four GL1C). At most max; returns how many. */
size_t gt_amd_unit_addrs(const struct gt_amd_dev *dev, const struct gt_amd_device *g,
                         enum gt_amd_bank_unit unit, enum gt_amd_domain dom, uint32_t i,
                         struct gt_amd_addr *out, size_t max);

/* ---- regs2_pmc.c ---- */

struct gt_amd_pmc;
struct gt_amd_device;
struct gt_catalog;

/* Why counters are out of reach, for the rows that need them. */
enum gt_amd_pmc_fail { GT_PMC_FAIL_OTHER, GT_PMC_FAIL_ROOT, GT_PMC_FAIL_DEBUGFS,
                       GT_PMC_FAIL_LOCKDOWN, GT_PMC_FAIL_BUSY };

/* Why amdgpu_regs2 failed to open with errno err, for the rows that need
 * counters (buf, or a constant); *f says which kind. "" when err says
 * nothing more than strerror. */
const char *gt_amd_regs2_why(const struct gt_amd_dev *dev, int err, enum gt_amd_pmc_fail *f,
                             char *buf, size_t len);

struct gt_amd_pmc_opts {
    enum gt_amd_keepon keepon;
    int force;                 /* take the counters from another profiler */
};

/* Opens debugfs amdgpu_regs2 for the performance counters in c (those of
 * kind GT_AMD_PMC), checks the GC bases and that no other profiler holds
 * the counters, keeps GFX powered as o says and saves every register it
 * will write. NULL with d set and *fail saying why. */
struct gt_amd_pmc *gt_amd_pmc_open(struct gt_amd_dev *dev, const struct gt_amd_device *geom,
                                   const struct gt_catalog *c, const struct gt_amd_pmc_opts *o,
                                   enum gt_amd_pmc_fail *fail, struct gt_diag *d);
/* Counts only the catalogue counters marked in used (all when NULL), and
 * marks in c those that share registers in turns as multiplexed. */
void gt_amd_pmc_select(struct gt_amd_pmc *p, const unsigned char *used, struct gt_catalog *c);
/* Counts every pass once briefly (so each counter has a reading before
 * the first interval), then programs the first pass and starts counting;
 * the first interval starts then. */
int gt_amd_pmc_start(struct gt_amd_pmc *p, struct gt_diag *d);
/* Stops and latches the counts (*end_ns: when), reads this pass's
 * counters and starts the next pass. Each counter's delta (by catalogue
 * slot) is its latest reading scaled from the time that reading counted
 * to the interval since the previous latch: this pass's counters scaled
 * up by the dead time, the others estimated at their last pass's rate.
 * *estimated gets how many were not read this pass. Returns 0; 1 with d
 * set when the pass ran too long for the 32-bit counters, which are then
 * estimated too; -1 with d set on an error. */
int gt_amd_pmc_sample(struct gt_amd_pmc *p, uint64_t *deltas, unsigned *estimated,
                      uint64_t *end_ns, struct gt_diag *d);
/* Restores every register written and lets GFX power down again. */
void gt_amd_pmc_close(struct gt_amd_pmc *p);
/* Passes per rotation, and counters counted. */
unsigned gt_amd_pmc_passes(const struct gt_amd_pmc *p);
unsigned gt_amd_pmc_ncounters(const struct gt_amd_pmc *p);
/* One line per register bank: counters, passes, limit. */
void gt_amd_pmc_describe(const struct gt_amd_pmc *p, char *buf, size_t len);
/* Three quarters of the shortest time a 32-bit counter in use may wrap
 * in; 0: any interval. */
uint64_t gt_amd_pmc_max_interval(const struct gt_amd_pmc *p);
/* The value counter name was read at in the last sample's pass, if it was
 * counted then (1), else 0. */
int gt_amd_pmc_fresh(const struct gt_amd_pmc *p, const char *name, uint64_t *sum);
/* 1 when this GPU's TCP was found to count one event a pass (its other
 * counters stood still while the first counted). */
int gt_amd_pmc_tcp_one_a_pass(const struct gt_amd_pmc *p);
/* 1 while gputop keeps PERFMON_CLOCK_STATE set itself (keepon=perfclk). */
int gt_amd_pmc_perfclk(const struct gt_amd_pmc *p);
/* The power state gputop holds: "PEAK" or "" (a GFXOFF request only). */
const char *gt_amd_pmc_pstate(const struct gt_amd_pmc *p);

/* ---- the opened source: amdgpu.c fills it, describe.c reports it ---- */

enum pmc_want { PMC_AUTO, PMC_ON, PMC_OFF };

struct amd_src {
    struct gt_amd_dev dev;
    struct gt_amd_device geom;
    int metrics_only;
    uint32_t poll_hz, polls_fixed;
    enum pmc_want pmc_want;
    struct gt_amd_pmc_opts opts;
    struct gt_amd_pmc *pmc;
    char pmc_why[GT_DIAG_MSG];         /* why no counters ("" with them) */
    int metrics_fd;            /* gpu_metrics, -1 without */
    struct gt_amd_metrics first;   /* the blob read at open: which fields exist */
    int have_metrics;
    uint64_t last_ns;          /* end of the previous interval */
    uint64_t last_call;        /* when sample() was last called: the period */
    int asleep_at_open;
    int slept;                 /* seen runtime-suspended since the counters were set up */
    char node_arg[64];         /* the node asked for ("" the first AMD GPU) */
    unsigned char *used;       /* the last selection, NULL all */
    unsigned warned_pmc;
    int idle;                  /* the last polls all read GFX idle: back off */
    int gm_idle;               /* the last gpu_metrics said GFX activity 0 */
    uint32_t gui_busy, polled; /* this interval's polls: GUI_ACTIVE set, taken */
    int centi_activity;        /* this PMFW reports GfxActivity x100 */
    uint32_t peak_mhz;         /* the PEAK pstate's shader clock, 0 unknown */
    int counting;              /* counters set up at open (fixed after open) */
    char pstate[8];            /* the pstate held then ("PEAK", ""); fixed */
};

/* ---- describe.c ---- */

/* "pstate PEAK set by gputop (GFX 2900 MHz)", "perfmon clock ungated by
 * gputop, clocks free" or "". */
void gt_amd_pstate_text(const struct amd_src *a, char *buf, size_t len);

#endif
