/* The AMD RDNA 3.5 (gfx1151, "Strix Halo") counter catalogue: every counter
 * the System Speed-of-Light rows use, the GRBM busy bits of the Activity
 * section and the gpu_metrics fields of Power & clocks. One plain table is
 * shared by the amdgpu source, the simulator and the CSV import, so the
 * three agree on names, blocks, instance counts and event numbers. */
#ifndef GPUTOP_AMD_GFX1151_H
#define GPUTOP_AMD_GFX1151_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/catalog.h"

/* How a row is measured. */
enum gt_amd_kind {
    GT_AMD_PMC,        /* performance counter: delta of an accumulating
                          <hw_block>_PERFCOUNTERn (root, debugfs regs2) */
    GT_AMD_POLLS,      /* number of GRBM_STATUS/STATUS2 reads this interval */
    GT_AMD_BUSY,       /* polls in which bit `event` of `hw_block` was set */
    GT_AMD_METRICS_READS, /* number of gpu_metrics reads this interval */
    GT_AMD_METRIC,     /* sum over this interval's gpu_metrics reads of the
                          field at v3.0 byte offset `event` (u16 or u32) */
    GT_AMD_CONSTANT,   /* a device constant ($max_sclk, ...) */
};

/* What one instance of a row is: the unit GRBM_GFX_INDEX selects. */
enum gt_amd_domain {
    GT_AMD_GPU,        /* one per GPU (GRBM, status polls, gpu_metrics) */
    GT_AMD_SE,         /* per shader engine (SQG registers) */
    GT_AMD_SA,         /* per shader array (GL1C) */
    GT_AMD_WGP,        /* per work-group processor = 2 CUs (SQ per-WGP registers) */
    GT_AMD_CU,         /* per compute unit (TCP, the vector L0) */
    GT_AMD_GL2C,       /* per GL2C channel (num_tcc_blocks) */
};

struct gt_amd_counter_def {
    const char *name;     /* the document's name, used as $NAME in layouts */
    const char *block;    /* the document's block prefix (SQ, SQC, TCP, GL1C,
                             GL2C, GRBM); the layouts' aggregate rules use it */
    const char *hw_block; /* register bank the source programs: SQG, SQ_WGP,
                             TCP, GL1C, GL2C, GRBM; GRBM_STATUS, GRBM_STATUS2;
                             gpu_metrics; "" for polls/reads/constants */
    enum gt_amd_kind kind;
    enum gt_amd_domain domain;
    int event;            /* PMC: PERF_SEL value (rocprofiler-sdk config.yaml
                             numbers, not the off-by-one soc21 enum); BUSY: bit;
                             METRIC: byte offset in gpu_metrics_v3_0; else -1 */
    int width;            /* METRIC: field size in bytes (2 or 4); else 0 */
    const char *unit;     /* of one count: "quad-cycles", "MHz", ... */
};

/* The table, in a fixed order (sources may rely on indices). */
extern const struct gt_amd_counter_def gt_amd_gfx1151_counters[];
extern const size_t gt_amd_gfx1151_ncounters;
const struct gt_amd_counter_def *gt_amd_gfx1151_find(const char *name);

/* Instance counts and constants of one device. A source fills what it can
 * read (DEV_INFO: num_shader_engines, num_shader_arrays_per_engine,
 * cu_active_number, num_tcc_blocks, max_engine_clock) and leaves the rest
 * from gt_amd_gfx1151_default(). */
struct gt_amd_device {
    uint32_t se;              /* shader engines */
    uint32_t sa_per_se;       /* shader arrays per engine */
    uint32_t cu;              /* active CUs ($cu_per_gpu; 1 WGP = 2 CUs) */
    uint32_t gl2c;            /* GL2C channels (num_tcc_blocks) */
    double max_sclk_mhz;      /* $max_sclk */
    uint32_t max_waves_per_cu; /* $max_waves_per_cu */
};

/* Radeon 8060S (40 CUs, 2900 MHz): the numbers the simulator and the CSV
 * import use when nothing better is known. */
struct gt_amd_device gt_amd_gfx1151_default(void);
uint32_t gt_amd_instances(const struct gt_amd_device *d, enum gt_amd_domain dom);

/* Which kinds to add: bit (1u << kind). */
#define GT_AMD_KINDS_ALL 0x3fu

/* Adds the rows whose kind is in kinds to c: each as a delta counter with
 * its domain's instance count and the row's block, hw_index = event; the
 * constants $max_sclk, $cu_per_gpu, $max_waves_per_cu from d. Returns 0 or
 * -1 (no memory). */
int gt_amd_catalog_add(struct gt_catalog *c, const struct gt_amd_device *d, unsigned kinds);

#endif
