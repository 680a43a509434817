/* GRBM_STATUS / GRBM_STATUS2 sampled many times per interval with
 * AMDGPU_INFO_READ_MMR_REG, each busy bit reported as the share of reads
 * that found it set (radeontop's method). Every read makes the kernel
 * hold GFX out of GFXOFF for its duration, so the poll rate is a cost
 * the user chooses (gputop-sources(7), "The observer effect"). */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* Which bit means which unit is the catalogue's business
 * (src/sources/amd/catalog_gfx1151.c); here every bit is counted. */
void gt_grbm_count(struct gt_grbm_counts *c, uint32_t status, uint32_t status2)
{
    int b;

    c->polls++;
    for (b = 0; b < 32; b++) {
        c->busy[0][b] += (status >> b) & 1u;
        c->busy[1][b] += (status2 >> b) & 1u;
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
            /* NODEV tells the source the device is gone */
            gt_diag_errno(d, errno, "%s: AMDGPU_INFO_READ_MMR_REG of GRBM_STATUS failed: %s",
                          dev->drm.render, strerror(errno));
            return -1;
        }
        gt_grbm_count(c, st, st2);
    }
    return 0;
}
