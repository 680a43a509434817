/* GPU properties from kbase (the packed key/value buffer, or the fixed
 * pre-r21 struct), and naming the GPU from its id and core count. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"

#include <stdio.h>
#include <string.h>

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;

    while (n--)
        v = (v << 8) | p[n];
    return v;
}

static unsigned popcount64(uint64_t m)
{
    return (unsigned)__builtin_popcountll(m);
}

struct raw_props {
    uint64_t gpu_id, product_id, shader_present, l2_features, groups[16];
    uint32_t ngroups, slices, major, minor, freq;
    unsigned have_gpu_id : 1, have_product : 1, have_present : 1, have_slices : 1,
        have_l2_features : 1, have_ngroups : 1;
};

static void keep(struct raw_props *r, unsigned id, uint64_t v)
{
    if (id >= GT_KBASE_PROP_COHERENCY_GROUP_0 && id < GT_KBASE_PROP_COHERENCY_GROUP_0 + 16) {
        r->groups[id - GT_KBASE_PROP_COHERENCY_GROUP_0] = v;
        return;
    }
    switch (id) {
    case GT_KBASE_PROP_PRODUCT_ID: r->product_id = v; r->have_product = 1; break;
    case GT_KBASE_PROP_MINOR_REVISION: r->minor = (uint32_t)v; break;
    case GT_KBASE_PROP_MAJOR_REVISION: r->major = (uint32_t)v; break;
    case GT_KBASE_PROP_GPU_FREQ_KHZ_MAX: r->freq = (uint32_t)v; break;
    case GT_KBASE_PROP_L2_NUM_L2_SLICES: r->slices = (uint32_t)v; r->have_slices = 1; break;
    case GT_KBASE_PROP_RAW_SHADER_PRESENT: r->shader_present = v; r->have_present = 1; break;
    case GT_KBASE_PROP_RAW_L2_FEATURES: r->l2_features = v; r->have_l2_features = 1; break;
    case GT_KBASE_PROP_RAW_GPU_ID: r->gpu_id = v; r->have_gpu_id = 1; break;
    case GT_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS:
        r->ngroups = (uint32_t)v;
        r->have_ngroups = 1;
        break;
    default: break;
    }
}

/* L2_FEATURES bits 31:24 hold log2 of the bus width in bits; anything
 * outside 8..4096 bits is not a bus we believe in. */
static uint32_t bus_width(uint64_t l2_features)
{
    unsigned e = (unsigned)((l2_features >> 24) & 0xFF);

    return e >= 3 && e <= 12 ? 1u << e : 0;
}

static int finish(const struct raw_props *r, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    uint32_t i;

    memset(g, 0, sizeof(*g));
    if (!r->have_gpu_id && !r->have_product) {
        gt_diag_set(d, "GPU properties: no GPU id");
        return -1;
    }
    g->gpu_id = r->have_gpu_id ? r->gpu_id : r->product_id << 16;
    if (r->have_ngroups && r->ngroups >= 1 && r->ngroups <= 16)
        for (i = 0; i < r->ngroups; i++)
            g->core_mask |= r->groups[i];
    if (!g->core_mask && r->have_present)
        g->core_mask = r->shader_present;
    g->shader_cores = popcount64(g->core_mask);
    if (!g->shader_cores) {
        gt_diag_set(d, "GPU properties: no shader cores present (core mask 0)");
        return -1;
    }
    if (!r->have_slices || r->slices == 0 || r->slices > 64) {
        gt_diag_set(d, "GPU properties: L2 slice count %s",
                    r->have_slices ? "out of range" : "missing");
        return -1;
    }
    g->l2_slices = r->slices;
    g->bus_width_bits = r->have_l2_features ? bus_width(r->l2_features) : 0;
    g->major_rev = r->major;
    g->minor_rev = r->minor;
    /* Without the revision properties, the id's version fields say it. */
    if (!r->major && !r->minor) {
        g->major_rev = (uint32_t)(g->gpu_id >> 12) & 0xF;
        g->minor_rev = (uint32_t)(g->gpu_id >> 4) & 0xFF;
    }
    g->freq_khz_max = r->freq;
    return 0;
}

int gt_kbase_props_parse(const void *buf, size_t len, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    const uint8_t *p = buf;
    struct raw_props r;
    size_t off = 0;

    memset(&r, 0, sizeof(r));
    while (off < len) {
        uint32_t key;
        unsigned id, size;

        if (len - off < 4) {
            gt_diag_set(d, "GPU properties: key at byte %zu cut short (%zu bytes left)", off,
                        len - off);
            return -1;
        }
        key = (uint32_t)get_le(p + off, 4);
        id = key >> 2;
        size = 1u << (key & 3);
        if (len - off - 4 < size) {
            gt_diag_set(d, "GPU properties: property %u at byte %zu needs %u bytes, only %zu left",
                        id, off, size, len - off - 4);
            return -1;
        }
        keep(&r, id, get_le(p + off + 4, size));
        off += 4 + size;
    }
    return finish(&r, g, d);
}

int gt_kbase_props_parse_pre_r21(const void *buf, size_t len, struct gt_kbase_gpu *g,
                                 struct gt_diag *d)
{
    const uint8_t *p = buf;
    struct raw_props r;
    uint32_t i;

    if (len < GT_UK_GPUPROPS_SIZE) {
        gt_diag_set(d, "GPU properties (pre-r21): %zu bytes, need %d", len, GT_UK_GPUPROPS_SIZE);
        return -1;
    }
    memset(&r, 0, sizeof(r));
    r.slices = p[GT_UK_PROPS_L2_NUM_SLICES];
    r.have_slices = 1;
    r.l2_features = get_le(p + GT_UK_PROPS_L2_FEATURES, 4);
    r.have_l2_features = 1;
    r.gpu_id = get_le(p + GT_UK_PROPS_GPU_ID, 4);
    r.have_gpu_id = 1;
    r.ngroups = (uint32_t)get_le(p + GT_UK_PROPS_NUM_CORE_GROUPS, 4);
    r.have_ngroups = 1;
    if (r.ngroups < 1 || r.ngroups > 16) {
        gt_diag_set(d, "GPU properties (pre-r21): %u core groups, expected 1..16", r.ngroups);
        return -1;
    }
    for (i = 0; i < r.ngroups; i++)
        r.groups[i] = get_le(p + GT_UK_PROPS_CORE_MASK(i), 8);
    return finish(&r, g, d);
}

int gt_kbase_core_rank(uint64_t core_mask, unsigned p)
{
    if (p >= 64 || !((core_mask >> p) & 1))
        return -1;
    return (int)popcount64(core_mask & ((1ull << p) - 1));
}

struct model {
    uint32_t key;
    const char *big, *mid, *small;   /* by core count: >= 10, >= mid_min, else */
    uint32_t mid_min;
    const char *table, *layout;
};

/* Mali and Immortalis parts share an id; the core count tells them apart. */
static const struct model models[] = {
    { 0x0820, "Mali-T820", "Mali-T820", "Mali-T820", 0, "T820", "mali-t8xx" },
    { 0x0830, "Mali-T830", "Mali-T830", "Mali-T830", 0, "T830", "mali-t8xx" },
    { 0xB002, "Immortalis-G715", "Mali-G715", "Mali-G615", 7, "G715", "mali-g715" },
    { 0xB003, "Mali-G615", "Mali-G615", "Mali-G615", 0, "G715", "mali-g715" },
    { 0xC000, "Immortalis-G720", "Mali-G720", "Mali-G620", 6, "G720", "mali-g720" },
    { 0xC001, "Mali-G620", "Mali-G620", "Mali-G620", 0, "G720", "mali-g720" },
    { 0x0720, "Mali-T720", NULL, NULL, 0, NULL, NULL },
    { 0x0750, "Mali-T760", NULL, NULL, 0, NULL, NULL },
    { 0x0860, "Mali-T860", NULL, NULL, 0, NULL, NULL },
    { 0x0880, "Mali-T880", NULL, NULL, 0, NULL, NULL },
    { 0x6956, "Mali-T60x", NULL, NULL, 0, NULL, NULL },
    { 0x6000, "Mali-G71", NULL, NULL, 0, NULL, NULL },
    { 0x6001, "Mali-G72", NULL, NULL, 0, NULL, NULL },
    { 0x7000, "Mali-G51", NULL, NULL, 0, NULL, NULL },
    { 0x7001, "Mali-G76", NULL, NULL, 0, NULL, NULL },
    { 0x7002, "Mali-G52", NULL, NULL, 0, NULL, NULL },
    { 0x7003, "Mali-G31", NULL, NULL, 0, NULL, NULL },
    { 0x9000, "Mali-G77", NULL, NULL, 0, NULL, NULL },
    { 0x9002, "Mali-G78", NULL, NULL, 0, NULL, NULL },
    { 0xA002, "Mali-G710", NULL, NULL, 0, NULL, NULL },
};

static uint32_t product_key(uint64_t id)
{
    uint32_t lo = (uint32_t)id, old = lo >> 16;

    if (old < 0x1000 || old == 0x6956)
        return old;
    /* 64-bit ids (arch 14 and later) flag themselves with 0xF in 31:28 */
    if ((lo >> 28) == 0xF && (id >> 32))
        return (uint32_t)(((id >> 56) & 0xFF) << 12) | (uint32_t)((id >> 32) & 0xF);
    return old & 0xF00F;
}

int gt_kbase_identify(struct gt_kbase_gpu *g)
{
    size_t i;

    g->product_key = product_key(g->gpu_id);
    g->table = g->layout = NULL;
    g->csf = (g->product_key >> 12) >= 10 && g->product_key >= 0x1000;
    /* Midgard and Bifrost blocks hold 64 counters; Valhall's from G715 on 128 */
    g->values_per_block = g->product_key >= 0xB000 ? 128 : 64;
    for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        const struct model *m = &models[i];
        const char *name;

        if (m->key != g->product_key)
            continue;
        name = !m->mid ? m->big : g->shader_cores >= 10 ? m->big
               : g->shader_cores >= m->mid_min ? m->mid : m->small;
        snprintf(g->name, sizeof(g->name), "%s", name);
        g->table = m->table;
        g->layout = m->layout;
        return g->layout != NULL;
    }
    snprintf(g->name, sizeof(g->name), "Mali GPU (unknown id 0x%08llx)",
             (unsigned long long)g->gpu_id);
    return 0;
}
