/* The sysfs gpu_metrics blob: the SMU's own averages of clocks, power,
 * temperature and DRAM traffic, read without touching GFX registers.
 * Parsed by (format, content) revision at byte offsets, never through a
 * cast, so a kernel with a longer struct still parses. */
#include "amd.h"
#include "gputop/amdgpu_uapi.h"

#include <stdio.h>
#include <string.h>

/* Where each field sits in gpu_metrics_v3_0, the catalogue's key. */
static const int v3_offset[GT_GM_NFIELDS] = {
    GT_GM30_AVERAGE_GFXCLK_FREQUENCY, GT_GM30_AVERAGE_UCLK_FREQUENCY, GT_GM30_TEMPERATURE_GFX,
    GT_GM30_AVERAGE_SOCKET_POWER, GT_GM30_AVERAGE_GFX_POWER, GT_GM30_AVERAGE_GFX_ACTIVITY,
    GT_GM30_AVERAGE_DRAM_READS, GT_GM30_AVERAGE_DRAM_WRITES, GT_GM30_AVERAGE_FCLK_FREQUENCY,
};

int gt_amd_metrics_at_v3(const struct gt_amd_metrics *m, int off, uint64_t *out)
{
    int i;

    for (i = 0; i < GT_GM_NFIELDS; i++)
        if (v3_offset[i] == off && m->have[i]) {
            *out = m->v[i];
            return 1;
        }
    return 0;
}

static uint64_t get(const unsigned char *b, size_t off, size_t width)
{
    uint64_t v = 0;
    size_t i;

    /* Little-endian like every amdgpu host. */
    for (i = 0; i < width; i++)
        v |= (uint64_t)b[off + i] << (8 * i);
    return v;
}

/* Stores a u16 field unless the SMU left it unfilled (all ones). */
static void put16(struct gt_amd_metrics *m, int field, const unsigned char *b, size_t off)
{
    uint64_t v = get(b, off, 2);

    if (v == GT_GM_NOT_FILLED16)
        return;
    m->v[field] = v;
    m->have[field] = 1;
}

static void put32(struct gt_amd_metrics *m, int field, const unsigned char *b, size_t off)
{
    uint64_t v = get(b, off, 4);

    if (v == 0xffffffffu)
        return;
    m->v[field] = v;
    m->have[field] = 1;
}

static void parse_v3_0(const unsigned char *b, struct gt_amd_metrics *m)
{
    put16(m, GT_GM_GFXCLK, b, GT_GM30_AVERAGE_GFXCLK_FREQUENCY);
    put16(m, GT_GM_UCLK, b, GT_GM30_AVERAGE_UCLK_FREQUENCY);
    put16(m, GT_GM_TEMP_GFX, b, GT_GM30_TEMPERATURE_GFX);
    put32(m, GT_GM_SOCKET_POWER, b, GT_GM30_AVERAGE_SOCKET_POWER);
    put32(m, GT_GM_GFX_POWER, b, GT_GM30_AVERAGE_GFX_POWER);
    put16(m, GT_GM_GFX_ACTIVITY, b, GT_GM30_AVERAGE_GFX_ACTIVITY);
    put16(m, GT_GM_DRAM_READS, b, GT_GM30_AVERAGE_DRAM_READS);
    put16(m, GT_GM_DRAM_WRITES, b, GT_GM30_AVERAGE_DRAM_WRITES);
    put16(m, GT_GM_FCLK, b, GT_GM30_AVERAGE_FCLK_FREQUENCY);
    m->clock_ns = get(b, GT_GM30_SYSTEM_CLOCK_COUNTER, 8);
}

/* v2.1 .. v2.4 share this prefix; they have no DRAM traffic fields. */
static void parse_v2_x(const unsigned char *b, struct gt_amd_metrics *m)
{
    put16(m, GT_GM_GFXCLK, b, GT_GM21_AVERAGE_GFXCLK_FREQUENCY);
    put16(m, GT_GM_UCLK, b, GT_GM21_AVERAGE_UCLK_FREQUENCY);
    put16(m, GT_GM_TEMP_GFX, b, GT_GM21_TEMPERATURE_GFX);
    put16(m, GT_GM_SOCKET_POWER, b, GT_GM21_AVERAGE_SOCKET_POWER);
    put16(m, GT_GM_GFX_POWER, b, GT_GM21_AVERAGE_GFX_POWER);
    put16(m, GT_GM_GFX_ACTIVITY, b, GT_GM21_AVERAGE_GFX_ACTIVITY);
    put16(m, GT_GM_FCLK, b, GT_GM21_AVERAGE_FCLK_FREQUENCY);
    m->clock_ns = get(b, GT_GM21_SYSTEM_CLOCK_COUNTER, 8);
}

int gt_amd_metrics_parse(const void *blob, size_t len, struct gt_amd_metrics *m,
                         char *why, size_t whylen)
{
    const unsigned char *b = blob;
    size_t size, need;

    memset(m, 0, sizeof(*m));
    if (len < 4) {
        snprintf(why, whylen, "%zu bytes, shorter than its 4-byte header", len);
        return -1;
    }
    size = get(b, GT_GM_HDR_SIZE, 2);
    m->format = b[GT_GM_HDR_FORMAT];
    m->content = b[GT_GM_HDR_CONTENT];
    if (m->format == 3 && m->content == 0)
        need = GT_GM30_SIZE;
    else if (m->format == 2 && m->content >= 1 && m->content <= 4)
        need = GT_GM21_SIZE;
    else {
        snprintf(why, whylen, "format %u.%u, which gputop does not know (it reads 3.0 and "
                              "2.1-2.4, the APU layouts)", m->format, m->content);
        return -1;
    }
    if (size < need || len < need) {
        snprintf(why, whylen, "format %u.%u says %zu bytes and %zu arrived; the layout has %zu",
                 m->format, m->content, size, len, need);
        return -1;
    }
    if (m->format == 3)
        parse_v3_0(b, m);
    else
        parse_v2_x(b, m);
    return 0;
}
