/* GRBM_STATUS / GRBM_STATUS2 sampled many times per interval with
 * AMDGPU_INFO_READ_MMR_REG, each busy bit reported as the share of reads
 * that found it set (radeontop's method). Every read makes the kernel
 * hold GFX out of GFXOFF for its duration, so the poll rate is a cost
 * the user chooses (README, "AMD"). */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* Bit positions for GFX10 and later (GC 11 uses the same tables). */
const struct gt_grbm_bit gt_grbm_bits[GT_GRBM_NBITS] = {
    { "GUI_ACTIVE", 0, 31 }, { "CB_BUSY", 0, 30 },   { "CP_BUSY", 0, 29 },
    { "DB_BUSY", 0, 26 },    { "PA_BUSY", 0, 25 },   { "BCI_BUSY", 0, 23 },
    { "SPI_BUSY", 0, 22 },   { "GE_BUSY", 0, 21 },   { "SX_BUSY", 0, 20 },
    { "GDS_BUSY", 0, 15 },   { "TA_BUSY", 0, 14 },   { "CPG_BUSY", 1, 30 },
    { "CPC_BUSY", 1, 29 },   { "CPF_BUSY", 1, 28 },  { "TCP_BUSY", 1, 27 },
    { "RLC_BUSY", 1, 26 },   { "SDMA_BUSY", 1, 21 }, { "RMI_BUSY", 1, 17 },
    { "EA_BUSY", 1, 16 },    { "UTCL2_BUSY", 1, 15 },
};

void gt_grbm_count(struct gt_grbm_counts *c, uint32_t status, uint32_t status2)
{
    int i;

    c->polls++;
    for (i = 0; i < GT_GRBM_NBITS; i++) {
        uint32_t r = gt_grbm_bits[i].reg ? status2 : status;
        c->busy[i] += (r >> gt_grbm_bits[i].bit) & 1u;
    }
}

static void pause_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* GRBM_STATUS2 (0x2002) and GRBM_STATUS (0x2004) are two dwords apart,
 * and 0x2003 is not on the whitelist, so they take two reads. */
int gt_grbm_poll(const struct gt_amd_dev *dev, uint32_t n, uint64_t span_ns,
                 struct gt_grbm_counts *c, struct gt_diag *d)
{
    uint64_t gap = n > 1 ? span_ns / n : 0;
    uint32_t i, st, st2;

    for (i = 0; i < n; i++) {
        if (i && gap)
            pause_ns(gap);
        if (gt_amd_read_mmr(dev, GT_REG_GRBM_STATUS, 1, &st) < 0 ||
            gt_amd_read_mmr(dev, GT_REG_GRBM_STATUS2, 1, &st2) < 0) {
            gt_diag_set(d, "%s: AMDGPU_INFO_READ_MMR_REG of GRBM_STATUS failed: %s",
                        dev->drm.render, strerror(errno));
            return -1;
        }
        gt_grbm_count(c, st, st2);
    }
    return 0;
}
