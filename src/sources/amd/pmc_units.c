/* Which registers an instance of a counter reads: the GRBM_GFX_INDEX
 * selections (shader engine, shader array, INSTANCE_INDEX) behind each
 * catalogue instance, from DEV_INFO's cu_bitmap so harvested parts (the
 * 32-CU Radeon 8050S) are right. */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#define MAX_WGP_PER_SA 16      /* 32 CU bits per array, two per WGP */
#define MAX_CU_PER_SA  32
#define GL1C_PER_SA    4       /* Mesa ac_perfcounter_gfx11.c {&gfx11_GL1C, 83, 4} */

static int have_bitmap(const struct gt_amd_dev *dev)
{
    for (unsigned se = 0; se < 4; se++)
        for (unsigned sa = 0; sa < 4; sa++)
            if (dev->cu_bitmap[se][sa])
                return 1;
    return 0;
}

/* The CUs of array (se, sa): DEV_INFO's bitmap, or (asleep at open, an
 * old kernel) the active CUs split evenly. */
static uint32_t sa_map(const struct gt_amd_dev *dev, const struct gt_amd_device *g,
                       uint32_t se, uint32_t sa)
{
    uint32_t nsa = g->se * g->sa_per_se, per;

    if (have_bitmap(dev))
        return se < 4 && sa < 4 ? dev->cu_bitmap[se][sa] : 0;
    per = nsa ? g->cu / nsa : 0;
    return per >= 32 ? 0xffffffffu : (1u << per) - 1u;
}

static struct gt_amd_addr addr(uint32_t se, uint32_t sh, uint32_t inst)
{
    struct gt_amd_addr a = { se, sh, inst };
    return a;
}

/* A WGP sets two CU bits (gfx_v11_0.c cu_bitmap_per_wgp = 3 << 2 * wgp);
 * SQ per WGP is selected with INSTANCE_INDEX = wgp << 2 (aqlprofile gfx11
 * grbm_se_sh_wgp_index_value). Only se_only: every WGP of that engine;
 * else the nth present WGP of the GPU. */
static size_t wgps(const struct gt_amd_dev *dev, const struct gt_amd_device *g, int se_only,
                   uint32_t n, struct gt_amd_addr *out, size_t max)
{
    uint32_t se, sa, w, k = 0;
    size_t got = 0;

    for (se = 0; se < g->se; se++)
        for (sa = 0; sa < g->sa_per_se; sa++)
            for (w = 0; w < MAX_WGP_PER_SA; w++) {
                if (!((sa_map(dev, g, se, sa) >> (2 * w)) & 3u))
                    continue;
                if (se_only ? se == n : k++ == n) {
                    if (got < max)
                        out[got++] = addr(se, sa, w << 2);
                }
            }
    return got;
}

/* The nth present CU of the GPU. TCP instances are numbered 0.. over the
 * CUs present in an array, not by CU position: Mesa (ac_perfcounter.c)
 * gives TCP max_good_cu_per_sa instances and selects instance k as
 * INSTANCE_INDEX k. That the k-th instance is the k-th present CU on a
 * part harvested with gaps is ASSUMPTION (gputop-sources(7), "Not yet verified"). */
static size_t cus(const struct gt_amd_dev *dev, const struct gt_amd_device *g, uint32_t n,
                  struct gt_amd_addr *out, size_t max)
{
    uint32_t se, sa, c, k = 0, in_sa;

    for (se = 0; se < g->se; se++)
        for (sa = 0; sa < g->sa_per_se; sa++)
            for (c = 0, in_sa = 0; c < MAX_CU_PER_SA; c++) {
                if (!((sa_map(dev, g, se, sa) >> c) & 1u))
                    continue;
                if (k++ == n) {
                    if (!max)
                        return 0;
                    out[0] = addr(se, sa, in_sa);
                    return 1;
                }
                in_sa++;
            }
    return 0;
}

size_t gt_amd_unit_addrs(const struct gt_amd_dev *dev, const struct gt_amd_device *g,
                         enum gt_amd_bank_unit unit, enum gt_amd_domain dom, uint32_t i,
                         struct gt_amd_addr *out, size_t max)
{
    const uint32_t B = GT_REGS2_BROADCAST;
    uint32_t spa = g->sa_per_se ? g->sa_per_se : 1, k;
    size_t got = 0;

    if (!max)
        return 0;
    switch (unit) {
    case GT_UNIT_WGP:
        return wgps(dev, g, dom == GT_AMD_SE, i, out, max);
    case GT_UNIT_CU:
        return cus(dev, g, i, out, max);
    case GT_UNIT_GL1C:
        for (k = 0; k < GL1C_PER_SA && got < max; k++)
            out[got++] = addr(i / spa, i % spa, k);
        return got;
    case GT_UNIT_CHANNEL:
        out[0] = addr(B, B, i);   /* GL2C: INSTANCE_INDEX is the channel */
        return 1;
    case GT_UNIT_GLOBAL:
        break;
    }
    switch (dom) {
    case GT_AMD_SE:
        out[0] = addr(i, 0, 0);
        return 1;
    case GT_AMD_SA:
        out[0] = addr(i / spa, i % spa, 0);
        return 1;
    case GT_AMD_GL2C:
        out[0] = addr(B, B, i);
        return 1;
    default:
        out[0] = addr(B, B, B);
        return 1;
    }
}
