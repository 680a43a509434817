/* GPU properties from kbase (the packed key/value buffer of GET_GPUPROPS, or
 * the fixed pre-r21 struct), and naming the GPU from its id and core count. */
#include "gputop/kbase.h"
#include "gputop/kbase_uapi.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_CORE_GROUPS 16   /* kbase's BASE_MAX_COHERENT_GROUPS */
#define MAX_L2_SLICES   64   /* MEM_FEATURES[11:8] + 1 gives at most 16; leave headroom */

/* Little-endian bytes to a value, byte by byte: props values are unaligned. */
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

/* What the kernel said, before any of it is believed. */
struct raw_props {
    uint64_t gpu_id, product_id, shader_present, l2_features, freq;
    uint64_t groups[MAX_CORE_GROUPS];
    uint64_t ngroups, slices, major, minor;
    uint32_t groups_seen;                   /* bit i: COHERENCY_GROUP_i given */
    unsigned have_gpu_id : 1, have_product : 1, have_present : 1, have_slices : 1,
        have_l2_features : 1, have_ngroups : 1, have_major : 1, have_minor : 1;
};

static void keep_group(struct raw_props *r, unsigned i, uint64_t v)
{
    r->groups[i] = v;
    r->groups_seen |= 1u << i;
}

/* Records the properties gputop uses; any other id is simply not kept. */
static void keep(struct raw_props *r, unsigned id, uint64_t v)
{
    if (id >= GT_KBASE_PROP_COHERENCY_GROUP_0 &&
        id < GT_KBASE_PROP_COHERENCY_GROUP_0 + MAX_CORE_GROUPS) {
        keep_group(r, id - GT_KBASE_PROP_COHERENCY_GROUP_0, v);
        return;
    }
    switch (id) {
    case GT_KBASE_PROP_PRODUCT_ID: r->product_id = v; r->have_product = 1; break;
    case GT_KBASE_PROP_MINOR_REVISION: r->minor = v; r->have_minor = 1; break;
    case GT_KBASE_PROP_MAJOR_REVISION: r->major = v; r->have_major = 1; break;
    case GT_KBASE_PROP_GPU_FREQ_KHZ_MAX: r->freq = v; break;
    case GT_KBASE_PROP_L2_NUM_L2_SLICES: r->slices = v; r->have_slices = 1; break;
    case GT_KBASE_PROP_RAW_SHADER_PRESENT: r->shader_present = v; r->have_present = 1; break;
    case GT_KBASE_PROP_RAW_L2_FEATURES: r->l2_features = v; r->have_l2_features = 1; break;
    case GT_KBASE_PROP_RAW_GPU_ID: r->gpu_id = v; r->have_gpu_id = 1; break;
    case GT_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS: r->ngroups = v; r->have_ngroups = 1; break;
    default: break;
    }
}

/* HWCPipe's rule: the OR of the masks of the first NUM_CORE_GROUPS groups.
 * A kernel that lists no (non-empty) group still has the raw register. */
static uint64_t core_mask_of(const struct raw_props *r)
{
    uint64_t mask = 0, n = r->have_ngroups ? r->ngroups : 0, i;

    if (n > MAX_CORE_GROUPS)
        n = MAX_CORE_GROUPS;
    for (i = 0; i < n; i++)
        if (r->groups_seen & (1u << i))
            mask |= r->groups[i];
    if (!mask && r->have_present)
        mask = r->shader_present;
    return mask;
}

/* L2_FEATURES bits 31:24 hold log2 of the external bus width in bits;
 * outside 8..4096 bits it is not a bus we believe in, so the constant is
 * left unknown (0) rather than wrong. */
static uint32_t bus_width(uint64_t l2_features)
{
    unsigned e = (unsigned)((l2_features >> 24) & 0xFF);

    return e >= 3 && e <= 12 ? 1u << e : 0;
}

/* 64-bit GPU ids (arch 14 on) flag themselves with 0xF in bits 31:28 and
 * carry the architecture major in bits 63:56. */
static int id_is_64bit(uint64_t id)
{
    return ((id >> 28) & 0xF) == 0xF && (id >> 56) >= 14;
}

/* r<major>p<minor>: the kernel's properties when given, else the id's
 * version fields (15:12 and 11:4 in both 32-bit layouts; the pre-r21 path
 * reads no revision at all). 64-bit ids keep them elsewhere: left as 0. */
static void fill_revision(const struct raw_props *r, struct gt_kbase_gpu *g)
{
    int from_id = !id_is_64bit(g->gpu_id);

    g->major_rev = r->have_major ? (uint32_t)r->major
                   : from_id ? (uint32_t)(g->gpu_id >> 12) & 0xF : 0;
    g->minor_rev = r->have_minor ? (uint32_t)r->minor
                   : from_id ? (uint32_t)(g->gpu_id >> 4) & 0xFF : 0;
}

static int fill_gpu_id(const struct raw_props *r, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    if (r->have_gpu_id)
        g->gpu_id = r->gpu_id;
    else if (r->have_product)
        g->gpu_id = (r->product_id & 0xFFFF) << 16;   /* PRODUCT_ID = GPU_ID >> 16 */
    else {
        gt_diag_set(d, "GPU properties lack a GPU id (neither RAW_GPU_ID nor PRODUCT_ID)");
        return -1;
    }
    return 0;
}

static int fill_cores(const struct raw_props *r, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    g->core_mask = core_mask_of(r);
    g->shader_cores = popcount64(g->core_mask);
    if (!g->shader_cores) {
        gt_diag_set(d, "GPU properties: no shader cores present (core mask 0)");
        return -1;
    }
    return 0;
}

/* Strict: the slice count is a guide constant and the number of memsys
 * blocks in every dump, so guessing it would misplace counters. */
static int fill_slices(const struct raw_props *r, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    if (!r->have_slices) {
        gt_diag_set(d, "GPU properties lack L2 slice count");
        return -1;
    }
    if (r->slices == 0 || r->slices > MAX_L2_SLICES) {
        gt_diag_set(d, "GPU properties: L2 slice count %llu, expected 1..%d",
                    (unsigned long long)r->slices, MAX_L2_SLICES);
        return -1;
    }
    g->l2_slices = (uint32_t)r->slices;
    return 0;
}

/* Turns what the kernel said into g; the naming fields are left for
 * gt_kbase_identify. */
static int finish(const struct raw_props *r, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    memset(g, 0, sizeof(*g));
    if (fill_gpu_id(r, g, d) < 0 || fill_cores(r, g, d) < 0 || fill_slices(r, g, d) < 0)
        return -1;
    g->bus_width_bits = r->have_l2_features ? bus_width(r->l2_features) : 0;
    fill_revision(r, g);
    g->freq_khz_max = r->freq > UINT32_MAX ? UINT32_MAX : (uint32_t)r->freq;
    return 0;
}

/* One (key, value) at off; the next offset, or 0 with d set. Every length
 * is compared with what is left before a byte is read. */
static size_t read_prop(const uint8_t *p, size_t len, size_t off, struct raw_props *r,
                        struct gt_diag *d)
{
    uint32_t key;
    unsigned id;
    size_t size;

    if (len - off < 4) {
        gt_diag_set(d, "GPU properties: key at byte %zu cut short (%zu bytes left)", off,
                    len - off);
        return 0;
    }
    key = (uint32_t)get_le(p + off, 4);
    id = key >> 2;
    size = (size_t)1 << (key & 3);          /* size code 0..3: u8, u16, u32, u64 */
    if (len - off - 4 < size) {
        gt_diag_set(d, "GPU properties: property %u at byte %zu needs %zu bytes, only %zu left",
                    id, off, size, len - off - 4);
        return 0;
    }
    keep(r, id, get_le(p + off + 4, size));
    return off + 4 + size;
}

int gt_kbase_props_parse(const void *buf, size_t len, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    const uint8_t *p = buf;
    struct raw_props r;
    size_t off = 0;

    memset(&r, 0, sizeof(r));
    while (off < len) {
        off = read_prop(p, len, off, &r, d);
        if (!off)
            return -1;
    }
    return finish(&r, g, d);
}

int gt_kbase_props_parse_pre_r21(const void *buf, size_t len, struct gt_kbase_gpu *g,
                                 struct gt_diag *d)
{
    const uint8_t *p = buf;
    struct raw_props r;
    unsigned i;

    if (len < GT_UK_GPUPROPS_SIZE) {
        gt_diag_set(d, "GPU properties (pre-r21): %zu bytes, need %d", len, GT_UK_GPUPROPS_SIZE);
        return -1;
    }
    memset(&r, 0, sizeof(r));
    r.ngroups = get_le(p + GT_UK_PROPS_NUM_CORE_GROUPS, 4);
    r.have_ngroups = 1;
    /* the struct has room for 16 groups: any other count is not a count */
    if (r.ngroups < 1 || r.ngroups > MAX_CORE_GROUPS) {
        gt_diag_set(d, "GPU properties (pre-r21): %llu core groups, expected 1..%d",
                    (unsigned long long)r.ngroups, MAX_CORE_GROUPS);
        return -1;
    }
    for (i = 0; i < r.ngroups; i++)
        keep_group(&r, i, get_le(p + GT_UK_PROPS_CORE_MASK(i), 8));
    keep(&r, GT_KBASE_PROP_L2_NUM_L2_SLICES, p[GT_UK_PROPS_L2_NUM_SLICES]);
    keep(&r, GT_KBASE_PROP_RAW_L2_FEATURES, get_le(p + GT_UK_PROPS_L2_FEATURES, 4));
    keep(&r, GT_KBASE_PROP_RAW_GPU_ID, get_le(p + GT_UK_PROPS_GPU_ID, 4));
    return finish(&r, g, d);
}

int gt_kbase_core_rank(uint64_t core_mask, unsigned p)
{
    if (p >= 64 || !((core_mask >> p) & 1))
        return -1;
    return (int)popcount64(core_mask & ((1ull << p) - 1));
}

/* ---- naming ---- */

struct model {
    uint32_t key;          /* product key, see product_key() */
    uint32_t min_cores;    /* the first entry of a key whose minimum is met wins */
    const char *name, *table, *layout;
};

/* Keys and names as in kbase's own product table (GPU_ID2_PRODUCT_* and its
 * sysfs gpuinfo names) and Arm's libGPUInfo, which also gives the core
 * counts that tell Immortalis, Mali and the smaller part of one id apart. */
static const struct model models[] = {
    /* Midgard (job manager): the T8xx layout follows the T820/T830 guide,
     * whose counter names T760/T860/T880 share. */
    { 0x0750, 0, "Mali-T760", "T760", "mali-t8xx" },
    { 0x0820, 0, "Mali-T820", "T820", "mali-t8xx" },
    { 0x0830, 0, "Mali-T830", "T830", "mali-t8xx" },
    { 0x0860, 0, "Mali-T860", "T860", "mali-t8xx" },
    { 0x0880, 0, "Mali-T880", "T880", "mali-t8xx" },
    /* Bifrost (job manager) */
    { 0x7001, 0, "Mali-G76", "G76", "mali-bifrost" },     /* TNOx */
    { 0x7002, 0, "Mali-G52", "G52", "mali-bifrost" },     /* TGOx */
    /* Valhall, job manager */
    { 0x9000, 0, "Mali-G77", "G77", "mali-valhall-jm" },  /* TTRx */
    { 0x9001, 0, "Mali-G57", "G57", "mali-valhall-jm" },  /* TNAx */
    { 0x9003, 0, "Mali-G57", "G57", "mali-valhall-jm" },  /* libGPUInfo, gator TNAXb */
    { 0x9002, 0, "Mali-G78", "G78", "mali-valhall-jm" },  /* TBEx */
    { 0x9004, 0, "Mali-G68", "G68", "mali-valhall-jm" },  /* LBEx */
    { 0x9005, 0, "Mali-G78AE", "G78", "mali-valhall-jm" },/* TBAx: gator reads G78's counters */
    /* Valhall, command-stream front end */
    { 0xA002, 0, "Mali-G710", "G710", "mali-valhall-csf" },  /* TODx */
    { 0xA003, 0, "Mali-G510", "G510", "mali-valhall-csf" },  /* TGRx */
    { 0xA004, 0, "Mali-G310", "G310", "mali-valhall-csf" },  /* TVAx */
    { 0xA007, 0, "Mali-G610", "G610", "mali-valhall-csf" },  /* LODx */
    { 0xB002, 10, "Immortalis-G715", "G715", "mali-g715" },
    { 0xB002, 7, "Mali-G715", "G715", "mali-g715" },
    { 0xB002, 0, "Mali-G615", "G715", "mali-g715" },
    { 0xB003, 0, "Mali-G615", "G715", "mali-g715" },    /* LTUx */
    /* Arm 5th generation (libGPUInfo's architecture name), CSF */
    { 0xC000, 10, "Immortalis-G720", "G720", "mali-g720" },
    { 0xC000, 6, "Mali-G720", "G720", "mali-g720" },
    { 0xC000, 0, "Mali-G620", "G720", "mali-g720" },
    { 0xC001, 0, "Mali-G620", "G720", "mali-g720" },    /* LTIx */
    /* TKRx: libGPUInfo names >= 10 cores Immortalis-G925 and >= 6 Mali-G725
     * and lists no smaller part; gator reads one G725 table for the id. */
    { 0xD000, 10, "Immortalis-G925", "G725", "mali-g720" },
    { 0xD000, 0, "Mali-G725", "G725", "mali-g720" },
    { 0xD001, 0, "Mali-G625", "G625", "mali-g720" },    /* TKRx2 */
    /* Named, but gputop has no counter table for them: the raw view. */
    { 0x6956, 0, "Mali-T60x", NULL, NULL },
    { 0x0620, 0, "Mali-T620", NULL, NULL },
    { 0x0720, 0, "Mali-T720", NULL, NULL },
    { 0x6000, 0, "Mali-G71", NULL, NULL },     /* TMIx */
    { 0x6001, 0, "Mali-G72", NULL, NULL },     /* THEx */
    { 0x7000, 0, "Mali-G51", NULL, NULL },     /* TSIx */
    { 0x7003, 0, "Mali-G31", NULL, NULL },     /* TDVx */
};

/* The model: old (Midgard) ids carry a 16-bit product id in bits 31:16
 * (HWCPipe: below 0x1000, or T60x's 0x6956); newer ones are arch_major
 * (31:28) and product_major (19:16), hence gator's mask 0xF00F; 64-bit ids
 * move both up (arch 63:56, product 39:32). */
static uint32_t product_key(uint64_t id)
{
    uint32_t old = (uint32_t)id >> 16;

    if (old < 0x1000 || old == 0x6956)
        return old;
    if (id_is_64bit(id))
        return ((uint32_t)((id >> 56) & 0xFF) << 12) | (uint32_t)((id >> 32) & 0xFF);
    return old & 0xF00F;
}

static const struct model *find_model(uint32_t key, uint32_t cores)
{
    size_t i;

    for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
        if (models[i].key == key && cores >= models[i].min_cores)
            return &models[i];
    return NULL;
}

void gt_mali_name_cores(char *buf, size_t len, const char *name, unsigned cores)
{
    const char *g = strstr(name, "-G");
    int mc = g && strlen(g + 2) >= 3 && isdigit((unsigned char)g[2]) &&
             isdigit((unsigned char)g[3]) && isdigit((unsigned char)g[4]);

    snprintf(buf, len, "%s %s%u", name, mc ? "MC" : "MP", cores);
}

const char *gt_mali_table_layout(const char *table)
{
    size_t i;

    for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
        if (models[i].table && strcasecmp(models[i].table, table) == 0)
            return models[i].layout;
    return NULL;
}

/* "Mali-G78", "mali-g78", "Immortalis-G720", "G78": the part after the
 * brand, which is how the guides and users name a GPU. */
static const char *model_number(const char *name)
{
    if (strncasecmp(name, "mali-", 5) == 0)
        return name + 5;
    if (strncasecmp(name, "immortalis-", 11) == 0)
        return name + 11;
    return name;
}

int gt_mali_model_at(size_t i, struct gt_mali_model *out)
{
    size_t k;

    for (k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
        if (!models[k].table || i-- > 0)
            continue;
        out->name = models[k].name;
        out->table = models[k].table;
        out->layout = models[k].layout;
        out->key = models[k].key;
        return 0;
    }
    return -1;
}

/* By its own name first (G615 is not G715, though it reads G715's
 * table), then by the table's; among the names, the first entry whose
 * core minimum the count meets. */
int gt_mali_model_find(const char *name, uint32_t cores, struct gt_mali_model *out)
{
    const struct model *hit = NULL;
    const char *want = model_number(name);
    size_t i;

    for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        const struct model *m = &models[i];
        if (strcasecmp(model_number(m->name), want) != 0)
            continue;
        if (!hit || (cores >= m->min_cores && cores < hit->min_cores))
            hit = m;
    }
    for (i = 0; !hit && i < sizeof(models) / sizeof(models[0]); i++)
        if (models[i].table && strcasecmp(models[i].table, want) == 0)
            hit = &models[i];
    if (!hit)
        return -1;
    out->name = hit->name;
    out->table = hit->table;
    out->layout = hit->layout;
    out->key = hit->key;
    return 0;
}

int gt_kbase_identify(struct gt_kbase_gpu *g)
{
    const struct model *m;

    g->product_key = product_key(g->gpu_id);
    /* Architecture 10 (G710) on uses the command-stream front end; old keys
     * (below 0x1000) and T60x's 0x6956 give 0 and 6 here. */
    g->csf = (g->product_key >> 12) >= 10;
    /* Midgard, Bifrost and the first Valhall generations have 64 values a
     * block; G715 ("gTUx", arch 11) and later 128 (kbase.md section 0: why
     * HWCPipe stops offering the 64-value legacy reader from G715 on). */
    g->values_per_block = g->product_key >= 0xB000 ? 128 : 64;
    m = find_model(g->product_key, g->shader_cores);
    if (!m) {
        snprintf(g->name, sizeof(g->name), "Mali GPU (unknown id 0x%08llx)",
                 (unsigned long long)g->gpu_id);
        g->table = g->layout = NULL;
        return 0;
    }
    snprintf(g->name, sizeof(g->name), "%s", m->name);
    g->table = m->table;
    g->layout = m->layout;
    return m->layout != NULL;
}

const char *gt_kbase_layout_name(const struct gt_kbase_gpu *g)
{
    return g->layout ? g->layout : "raw";
}

/* The architecture a layout serves, for --probe's reason line. */
static const char *arch_of(const char *layout)
{
    static const struct { const char *layout, *arch; } archs[] = {
        { "mali-t8xx", "Midgard, job manager" },
        { "mali-bifrost", "Bifrost, job manager" },
        { "mali-valhall-jm", "Valhall, job manager" },
        { "mali-valhall-csf", "Valhall, command stream" },
        { "mali-g715", "Valhall, command stream" },
        { "mali-g720", "Arm 5th generation, command stream" },
    };
    size_t i;

    for (i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
        if (strcmp(archs[i].layout, layout) == 0)
            return archs[i].arch;
    return "";
}

void gt_kbase_layout_why(const struct gt_kbase_gpu *g, char *out, size_t len)
{
    if (g->layout)
        snprintf(out, len, "product id 0x%04x is %s: counter table %s, %s layout", g->product_key,
                 g->name, g->table, arch_of(g->layout));
    else if (g->name[0] && strncmp(g->name, "Mali GPU (unknown", 17) != 0)
        snprintf(out, len, "product id 0x%04x is %s, which has no counter table in gputop: "
                 "every counter the kernel delivers, per block, as rates", g->product_key, g->name);
    else
        snprintf(out, len, "product id 0x%04x is not one gputop knows: every counter the kernel "
                 "delivers, per block, as rates", g->product_key);
}
