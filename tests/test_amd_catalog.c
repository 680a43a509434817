/* The gfx1151 counter catalogue: event numbers, bits and offsets are the
 * reference's (typed in here from rdna35.md §3 and kernel-interfaces.md
 * §2-3, not read back from the table), and catalogues built from it have
 * one instance per SE, SA, WGP, CU or GL2C channel. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/amd_gfx1151.h"

static void expect(const char *name, const char *block, enum gt_amd_kind kind, int event)
{
    const struct gt_amd_counter_def *d = gt_amd_gfx1151_find(name);

    cr_assert_not_null(d, "%s missing", name);
    cr_expect_str_eq(d->block, block, "%s block", name);
    cr_expect_eq(d->kind, kind, "%s kind", name);
    cr_expect_eq(d->event, event, "%s event", name);
}

Test(amd_catalog, events_are_the_config_yaml_numbers)
{
    expect("GRBM_GUI_ACTIVE", "GRBM", GT_AMD_PMC, 2);
    expect("SQ_BUSY_CYCLES", "SQ", GT_AMD_PMC, 3);
    expect("SQ_WAVE_CYCLES", "SQ", GT_AMD_PMC, 0x18);
    expect("SQ_WAIT_INST_ANY", "SQ", GT_AMD_PMC, 0x1a);
    expect("SQ_WAIT_ANY", "SQ", GT_AMD_PMC, 0x23);
    expect("SQ_INSTS_ALL", "SQ", GT_AMD_PMC, 0x30);
    expect("SQ_INSTS_VALU", "SQ", GT_AMD_PMC, 0x3e);
    expect("SQ_INSTS_INTERNAL", "SQ", GT_AMD_PMC, 0x45);
    expect("SQC_LDS_BANK_CONFLICT", "SQC", GT_AMD_PMC, 0x100);
    expect("SQC_ICACHE_HITS", "SQC", GT_AMD_PMC, 0x10e);
    expect("SQC_ICACHE_MISSES", "SQC", GT_AMD_PMC, 0x10f);
    expect("SQC_TC_INST_REQ", "SQC", GT_AMD_PMC, 0x11b);
    expect("SQC_TC_DATA_READ_REQ", "SQC", GT_AMD_PMC, 0x11c);
    expect("SQC_DCACHE_HITS", "SQC", GT_AMD_PMC, 0x126);
    expect("SQC_DCACHE_MISSES", "SQC", GT_AMD_PMC, 0x127);
    expect("TCP_REQ", "TCP", GT_AMD_PMC, 9);
    expect("TCP_REQ_MISS", "TCP", GT_AMD_PMC, 17);   /* not the enum's 18 */
    expect("GL1C_GL2_REQ_READ_128B", "GL1C", GT_AMD_PMC, 5);
    expect("GL1C_GL2_REQ_READ_32B", "GL1C", GT_AMD_PMC, 6);
    expect("GL1C_GL2_REQ_READ_64B", "GL1C", GT_AMD_PMC, 7);
    expect("GL1C_REQ", "GL1C", GT_AMD_PMC, 14);
    expect("GL1C_REQ_MISS", "GL1C", GT_AMD_PMC, 18);
    expect("GL2C_HIT", "GL2C", GT_AMD_PMC, 42);
    expect("GL2C_MISS", "GL2C", GT_AMD_PMC, 43);
    expect("GL2C_READ_32_REQ", "GL2C", GT_AMD_PMC, 73);
    expect("GL2C_READ_64_REQ", "GL2C", GT_AMD_PMC, 74);
    expect("GL2C_READ_128_REQ", "GL2C", GT_AMD_PMC, 75);
    expect("GL2C_COMPRESSED_READ_96_REQ", "GL2C", GT_AMD_PMC, 81);
    expect("GL2C_MC_WRREQ", "GL2C", GT_AMD_PMC, 83);
    expect("GL2C_EA_WRREQ_64B", "GL2C", GT_AMD_PMC, 85);
    expect("GL2C_EA_RDREQ_32B", "GL2C", GT_AMD_PMC, 99);
    expect("GL2C_EA_RDREQ_64B", "GL2C", GT_AMD_PMC, 100);
    expect("GL2C_EA_RDREQ_96B", "GL2C", GT_AMD_PMC, 101);
    expect("GL2C_EA_RDREQ_128B", "GL2C", GT_AMD_PMC, 102);
}

Test(amd_catalog, activity_bits_and_metrics_offsets)
{
    expect("GRBM_STATUS_GUI_ACTIVE", "GRBM_STATUS", GT_AMD_BUSY, 31);
    expect("GRBM_STATUS_SPI_BUSY", "GRBM_STATUS", GT_AMD_BUSY, 22);
    expect("GRBM_STATUS_TA_BUSY", "GRBM_STATUS", GT_AMD_BUSY, 14);
    expect("GRBM_STATUS2_TCP_BUSY", "GRBM_STATUS", GT_AMD_BUSY, 27);
    expect("GRBM_STATUS2_EA_BUSY", "GRBM_STATUS", GT_AMD_BUSY, 16);
    cr_expect_str_eq(gt_amd_gfx1151_find("GRBM_STATUS2_EA_BUSY")->hw_block, "GRBM_STATUS2");
    expect("GPU_METRICS_TEMP_GFX", "gpu_metrics", GT_AMD_METRIC, 4);
    expect("GPU_METRICS_DRAM_READS", "gpu_metrics", GT_AMD_METRIC, 94);
    expect("GPU_METRICS_DRAM_WRITES", "gpu_metrics", GT_AMD_METRIC, 96);
    expect("GPU_METRICS_SOCKET_POWER", "gpu_metrics", GT_AMD_METRIC, 112);
    cr_expect_eq(gt_amd_gfx1151_find("GPU_METRICS_SOCKET_POWER")->width, 4);
    expect("GPU_METRICS_GFXCLK", "gpu_metrics", GT_AMD_METRIC, 174);
    expect("GPU_METRICS_UCLK", "gpu_metrics", GT_AMD_METRIC, 186);
    cr_expect_null(gt_amd_gfx1151_find("SQ_NO_SUCH"));
}

Test(amd_catalog, instances_and_constants_follow_the_device)
{
    struct gt_amd_device d = { 2, 2, 40, 16, 2900.0, 32 };
    struct gt_catalog c;
    int k;

    gt_catalog_init(&c);
    cr_assert_eq(gt_amd_catalog_add(&c, &d, GT_AMD_KINDS_ALL), 0);
    /* One SQ record a WGP (aqlprofile pmc_builder.h reads it per WGP). */
    cr_expect_eq(c.counters[gt_catalog_find(&c, "SQ_BUSY_CYCLES")].instances, 20);
    cr_expect_eq(c.counters[gt_catalog_find(&c, "SQ_INSTS_VALU")].instances, 20);
    cr_expect_eq(c.counters[gt_catalog_find(&c, "TCP_REQ")].instances, 40);
    cr_expect_eq(c.counters[gt_catalog_find(&c, "GL1C_REQ")].instances, 4);
    cr_expect_eq(c.counters[gt_catalog_find(&c, "GL2C_HIT")].instances, 16);
    cr_expect_eq(c.counters[gt_catalog_find(&c, "GRBM_GUI_ACTIVE")].instances, 1);
    k = gt_catalog_find(&c, "max_sclk");
    cr_assert_geq(k, 0);
    cr_expect_eq(c.counters[k].kind, GT_COUNTER_CONSTANT);
    cr_expect_float_eq(c.counters[k].value, 2900.0, 1e-9);
    cr_expect_float_eq(c.counters[gt_catalog_find(&c, "cu_per_gpu")].value, 40.0, 1e-9);
    cr_expect_float_eq(c.counters[gt_catalog_find(&c, "max_waves_per_cu")].value, 32.0, 1e-9);
    gt_catalog_free(&c);
}

Test(amd_catalog, kinds_select_rows)
{
    struct gt_amd_device d = gt_amd_gfx1151_default();
    struct gt_catalog c;

    gt_catalog_init(&c);
    cr_assert_eq(gt_amd_catalog_add(&c, &d, (1u << GT_AMD_POLLS) | (1u << GT_AMD_BUSY)), 0);
    cr_expect_geq(gt_catalog_find(&c, "GRBM_POLLS"), 0);
    cr_expect_geq(gt_catalog_find(&c, "GRBM_STATUS2_TCP_BUSY"), 0);
    cr_expect_lt(gt_catalog_find(&c, "SQ_INSTS_VALU"), 0);
    cr_expect_lt(gt_catalog_find(&c, "max_sclk"), 0);
    gt_catalog_free(&c);
}
