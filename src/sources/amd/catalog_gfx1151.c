/* The gfx1151 counter catalogue (include/gputop/amd_gfx1151.h): event
 * numbers, bits and offsets from ../shared/reference/amd (rdna35.md §3 with
 * the corrections of kernel-interfaces.md §3, §2 and §7). */
#include "gputop/amd_gfx1151.h"

#include <string.h>

/* PMC rows. Event numbers are rocprofiler-sdk's config.yaml values for
 * gfx1150-1152 (rdna35.md §3), which differ from soc21_enum.h in the TCP
 * high region (TCP_REQ_MISS is 17 there, 18 in the enum).
 * Register bank: every SQ event, SQ_WAVES and SQ_BUSY_CYCLES included,
 * is an SQ_PERF_SEL number programmed in the per-WGP SQ_PERFCOUNTERn
 * registers, as aqlprofile does on gfx11 (the SQG registers decode another
 * list, SQG_PERF_SEL: soc21_enum.h). Every SQ counter is one record per
 * WGP, as aqlprofile reads SQ_BUSY_CYCLES once per WGP on gfx11
 * (pmc_builder.h): the document's SQ_BUSY_CYCLES_avr is then the mean over
 * the WGPs read, as rocprofiler-sdk's _avr is the sum over the records
 * over their number (evaluate_ast.cpp). SQC counters belong to the SQ IP
 * block (rdna35.md §1).
 * Instances (Mesa ac_perfcounter_gfx11.c, aqlprofile gfx11_block_table.h):
 * GL1C four per shader array, summed by the source into the array's row;
 * TCP one per CU; GL2C one per channel (num_tcc_blocks). */
#define PMC(n, b, hw, dom, ev, u) { n, b, hw, GT_AMD_PMC, dom, ev, 0, u }
#define BUSY(n, reg, bit) { n, "GRBM_STATUS", reg, GT_AMD_BUSY, GT_AMD_GPU, bit, 0, "polls" }
#define METRIC(n, off, w, u) { n, "gpu_metrics", "gpu_metrics", GT_AMD_METRIC, GT_AMD_GPU, off, w, u }

const struct gt_amd_counter_def gt_amd_gfx1151_counters[] = {
    /* GRBM: global, 2 counters. */
    PMC("GRBM_COUNT",            "GRBM", "GRBM",   GT_AMD_GPU, 0, "cycles"),
    PMC("GRBM_GUI_ACTIVE",       "GRBM", "GRBM",   GT_AMD_GPU, 2, "cycles"),
    /* SQ per WGP (SQ_PERFCOUNTER0..15, low halves only). */
    PMC("SQ_BUSY_CYCLES",        "SQ",   "SQ_WGP", GT_AMD_WGP, 3, "cycles"),
    PMC("SQ_WAVES",              "SQ",   "SQ_WGP", GT_AMD_WGP, 4, "waves"),
    PMC("SQ_WAVE_CYCLES",        "SQ",   "SQ_WGP", GT_AMD_WGP, 24, "wave-cycles"),
    PMC("SQ_WAIT_INST_ANY",      "SQ",   "SQ_WGP", GT_AMD_WGP, 26, "wave-cycles"),
    PMC("SQ_WAIT_ANY",           "SQ",   "SQ_WGP", GT_AMD_WGP, 35, "wave-cycles"),
    PMC("SQ_INSTS_ALL",          "SQ",   "SQ_WGP", GT_AMD_WGP, 48, "instructions"),
    PMC("SQ_INSTS_VALU",         "SQ",   "SQ_WGP", GT_AMD_WGP, 62, "instructions"),
    PMC("SQ_INSTS_INTERNAL",     "SQ",   "SQ_WGP", GT_AMD_WGP, 69, "instructions"),
    PMC("SQC_LDS_BANK_CONFLICT", "SQC",  "SQ_WGP", GT_AMD_WGP, 256, "cycles"),
    PMC("SQC_ICACHE_HITS",       "SQC",  "SQ_WGP", GT_AMD_WGP, 270, "requests"),
    PMC("SQC_ICACHE_MISSES",     "SQC",  "SQ_WGP", GT_AMD_WGP, 271, "requests"),
    PMC("SQC_TC_INST_REQ",       "SQC",  "SQ_WGP", GT_AMD_WGP, 283, "requests"),
    PMC("SQC_TC_DATA_READ_REQ",  "SQC",  "SQ_WGP", GT_AMD_WGP, 284, "requests"),
    PMC("SQC_DCACHE_HITS",       "SQC",  "SQ_WGP", GT_AMD_WGP, 294, "requests"),
    PMC("SQC_DCACHE_MISSES",     "SQC",  "SQ_WGP", GT_AMD_WGP, 295, "requests"),
    /* TCP (vector L0) per CU, 4 counters (1 per pass in practice). */
    PMC("TCP_REQ",               "TCP",  "TCP",    GT_AMD_CU, 9, "requests"),
    PMC("TCP_REQ_MISS",          "TCP",  "TCP",    GT_AMD_CU, 17, "requests"),
    /* GL1C per shader array (the sum of its four GL1C), 4 counters. */
    PMC("GL1C_GL2_REQ_READ_128B", "GL1C", "GL1C",  GT_AMD_SA, 5, "requests"),
    PMC("GL1C_GL2_REQ_READ_32B", "GL1C", "GL1C",   GT_AMD_SA, 6, "requests"),
    PMC("GL1C_GL2_REQ_READ_64B", "GL1C", "GL1C",   GT_AMD_SA, 7, "requests"),
    PMC("GL1C_REQ",              "GL1C", "GL1C",   GT_AMD_SA, 14, "requests"),
    PMC("GL1C_REQ_MISS",         "GL1C", "GL1C",   GT_AMD_SA, 18, "requests"),
    /* GL2C per channel, 4 counters. */
    PMC("GL2C_HIT",              "GL2C", "GL2C",   GT_AMD_GL2C, 42, "requests"),
    PMC("GL2C_MISS",             "GL2C", "GL2C",   GT_AMD_GL2C, 43, "requests"),
    PMC("GL2C_READ_32_REQ",      "GL2C", "GL2C",   GT_AMD_GL2C, 73, "requests"),
    PMC("GL2C_READ_64_REQ",      "GL2C", "GL2C",   GT_AMD_GL2C, 74, "requests"),
    PMC("GL2C_READ_128_REQ",     "GL2C", "GL2C",   GT_AMD_GL2C, 75, "requests"),
    PMC("GL2C_COMPRESSED_READ_96_REQ", "GL2C", "GL2C", GT_AMD_GL2C, 81, "requests"),
    PMC("GL2C_MC_WRREQ",         "GL2C", "GL2C",   GT_AMD_GL2C, 83, "requests"),
    PMC("GL2C_EA_WRREQ_64B",     "GL2C", "GL2C",   GT_AMD_GL2C, 85, "requests"),
    PMC("GL2C_EA_RDREQ_32B",     "GL2C", "GL2C",   GT_AMD_GL2C, 99, "requests"),
    PMC("GL2C_EA_RDREQ_64B",     "GL2C", "GL2C",   GT_AMD_GL2C, 100, "requests"),
    PMC("GL2C_EA_RDREQ_96B",     "GL2C", "GL2C",   GT_AMD_GL2C, 101, "requests"),
    PMC("GL2C_EA_RDREQ_128B",    "GL2C", "GL2C",   GT_AMD_GL2C, 102, "requests"),

    /* Activity: AMDGPU_INFO_READ_MMR_REG of GRBM_STATUS (dword 0x2004)
     * and GRBM_STATUS2 (0x2002), many polls per sample; each row counts
     * the polls that saw its bit set (bit tables of amdgpu_top, GFX10+). */
    { "GRBM_POLLS", "GRBM_STATUS", "", GT_AMD_POLLS, GT_AMD_GPU, -1, 0, "polls" },
    BUSY("GRBM_STATUS_GUI_ACTIVE", "GRBM_STATUS", 31),
    BUSY("GRBM_STATUS_CB_BUSY",    "GRBM_STATUS", 30),
    BUSY("GRBM_STATUS_CP_BUSY",    "GRBM_STATUS", 29),
    BUSY("GRBM_STATUS_DB_BUSY",    "GRBM_STATUS", 26),
    BUSY("GRBM_STATUS_PA_BUSY",    "GRBM_STATUS", 25),
    BUSY("GRBM_STATUS_BCI_BUSY",   "GRBM_STATUS", 23),
    BUSY("GRBM_STATUS_SPI_BUSY",   "GRBM_STATUS", 22),
    BUSY("GRBM_STATUS_GE_BUSY",    "GRBM_STATUS", 21),
    BUSY("GRBM_STATUS_SX_BUSY",    "GRBM_STATUS", 20),
    BUSY("GRBM_STATUS_GDS_BUSY",   "GRBM_STATUS", 15),
    BUSY("GRBM_STATUS_TA_BUSY",    "GRBM_STATUS", 14),
    BUSY("GRBM_STATUS2_CPG_BUSY",  "GRBM_STATUS2", 30),
    BUSY("GRBM_STATUS2_CPC_BUSY",  "GRBM_STATUS2", 29),
    BUSY("GRBM_STATUS2_CPF_BUSY",  "GRBM_STATUS2", 28),
    BUSY("GRBM_STATUS2_TCP_BUSY",  "GRBM_STATUS2", 27),
    BUSY("GRBM_STATUS2_RLC_BUSY",  "GRBM_STATUS2", 26),
    BUSY("GRBM_STATUS2_SDMA_BUSY", "GRBM_STATUS2", 21),
    BUSY("GRBM_STATUS2_RMI_BUSY",  "GRBM_STATUS2", 17),
    BUSY("GRBM_STATUS2_EA_BUSY",   "GRBM_STATUS2", 16),
    BUSY("GRBM_STATUS2_UTCL2_BUSY", "GRBM_STATUS2", 15),

    /* Power & clocks: sysfs gpu_metrics, format 3.0 on SMU 14.0.x APUs
     * (kernel-interfaces.md §2). Each read adds the field's value, so the
     * interval's mean is the row divided by GPU_METRICS_READS, and merged
     * intervals stay right. A source reading an older format maps its own
     * offsets onto these rows. */
    { "GPU_METRICS_READS", "gpu_metrics", "", GT_AMD_METRICS_READS, GT_AMD_GPU, -1, 0, "reads" },
    METRIC("GPU_METRICS_TEMP_GFX",      4, 2, "centi-degC"),
    METRIC("GPU_METRICS_GFX_ACTIVITY", 42, 2, "%"),
    METRIC("GPU_METRICS_DRAM_READS",   94, 2, "MB/s"),
    METRIC("GPU_METRICS_DRAM_WRITES",  96, 2, "MB/s"),
    METRIC("GPU_METRICS_SOCKET_POWER", 112, 4, "mW"),
    METRIC("GPU_METRICS_GFX_POWER",    124, 4, "mW"),
    METRIC("GPU_METRICS_GFXCLK",       174, 2, "MHz"),
    METRIC("GPU_METRICS_FCLK",         182, 2, "MHz"),
    METRIC("GPU_METRICS_UCLK",         186, 2, "MHz"),

    /* Device constants, named as the document's $variables. */
    { "max_sclk",         "constant", "", GT_AMD_CONSTANT, GT_AMD_GPU, -1, 0, "MHz" },
    { "cu_per_gpu",       "constant", "", GT_AMD_CONSTANT, GT_AMD_GPU, -1, 0, "CUs" },
    { "max_waves_per_cu", "constant", "", GT_AMD_CONSTANT, GT_AMD_GPU, -1, 0, "waves" },
};

const size_t gt_amd_gfx1151_ncounters =
    sizeof(gt_amd_gfx1151_counters) / sizeof(gt_amd_gfx1151_counters[0]);

const struct gt_amd_counter_def *gt_amd_gfx1151_find(const char *name)
{
    size_t i;

    for (i = 0; name && i < gt_amd_gfx1151_ncounters; i++)
        if (strcmp(gt_amd_gfx1151_counters[i].name, name) == 0)
            return &gt_amd_gfx1151_counters[i];
    return NULL;
}

/* 2 SEs x 2 SAs x 10 CUs and 4 GL2C channels (rocprof-compute's
 * soc_gfx1151 l2_banks) are not read from hardware here: a real source
 * takes them from DEV_INFO. max_waves_per_cu = 16 waves per SIMD x 2
 * SIMDs (KFD topology max_waves_per_simd x simd_per_cu on gfx11). */
struct gt_amd_device gt_amd_gfx1151_default(void)
{
    struct gt_amd_device d = { 2, 2, 40, 4, 2900.0, 32 };
    return d;
}

uint32_t gt_amd_instances(const struct gt_amd_device *d, enum gt_amd_domain dom)
{
    switch (dom) {
    case GT_AMD_SE:   return d->se;
    case GT_AMD_SA:   return d->se * d->sa_per_se;
    case GT_AMD_WGP:  return d->cu / 2;
    case GT_AMD_CU:   return d->cu;
    case GT_AMD_GL2C: return d->gl2c;
    case GT_AMD_GPU:  break;
    }
    return 1;
}

static double constant_value(const struct gt_amd_device *d, const char *name)
{
    if (strcmp(name, "max_sclk") == 0)
        return d->max_sclk_mhz;
    if (strcmp(name, "cu_per_gpu") == 0)
        return d->cu;
    return d->max_waves_per_cu;
}

int gt_amd_catalog_add(struct gt_catalog *c, const struct gt_amd_device *d, unsigned kinds)
{
    size_t i;

    for (i = 0; i < gt_amd_gfx1151_ncounters; i++) {
        const struct gt_amd_counter_def *def = &gt_amd_gfx1151_counters[i];
        uint32_t n;
        int k;

        if (!(kinds & (1u << def->kind)) || gt_catalog_find(c, def->name) >= 0)
            continue;
        if (def->kind == GT_AMD_CONSTANT) {
            if (gt_catalog_add_constant(c, def->name, constant_value(d, def->name)) < 0)
                return -1;
            continue;
        }
        n = gt_amd_instances(d, def->domain);
        if (n == 0)
            continue;
        k = gt_catalog_add(c, def->name, def->block, GT_COUNTER_DELTA, n, 1.0);
        if (k < 0)
            return -1;
        c->counters[k].hw_index = def->event;
    }
    return 0;
}
