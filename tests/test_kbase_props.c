/* GPU properties from kbase: both encodings parsed from buffers built byte
 * by byte, every truncation handled without reading past the end, and GPUs
 * named by id and core count. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/kbase.h"

/* ---- a little encoder: (u32 key, value) little-endian, no padding ---- */

struct buf {
    uint8_t b[1024];
    size_t n;
    size_t start[64];       /* where each property's key begins */
    unsigned np;
};

static void put_le(struct buf *p, uint64_t v, size_t size)
{
    size_t i;

    for (i = 0; i < size; i++)
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

static void prop(struct buf *p, unsigned id, unsigned code, uint64_t v)
{
    p->start[p->np++] = p->n;
    put_le(p, ((uint32_t)id << 2) | code, 4);
    put_le(p, v, (size_t)1 << code);
}

enum { U8, U16, U32, U64 };

/* A Valhall-style GPU: required properties first, optional ones after. */
static void g7xx(struct buf *p, uint64_t id, uint64_t mask, unsigned id_code)
{
    memset(p, 0, sizeof(*p));
    prop(p, 29, U32, 0x07000000);      /* RAW_L2_FEATURES: 2^7 = 128-bit bus */
    prop(p, 55, id_code, id);          /* RAW_GPU_ID */
    prop(p, 99, U16, 0xBEEF);          /* unknown: skipped by its size code */
    prop(p, 62, U32, 1);               /* one core group */
    prop(p, 64, U64, mask);            /* its mask (value at byte 34: unaligned) */
    prop(p, 4, U32, 1);                /* r1p2 */
    prop(p, 3, U32, 2);
    prop(p, 15, U8, 2);                /* L2 slices */
}

static int parse_raw(const struct buf *p, struct gt_kbase_gpu *g, struct gt_diag *d)
{
    gt_diag_clear(d);
    return gt_kbase_props_parse(p->b, p->n, g, d);
}

static struct gt_kbase_gpu parse(const struct buf *p)
{
    struct gt_kbase_gpu g;
    struct gt_diag d;

    cr_assert_eq(parse_raw(p, &g, &d), 0, "%s", d.msg);
    gt_kbase_identify(&g);
    return g;
}

/* The message of a parse that must fail, kept in the caller's d. */
static const char *parse_error(const struct buf *p, struct gt_diag *d)
{
    struct gt_kbase_gpu g;

    cr_assert_eq(parse_raw(p, &g, d), -1, "accepted");
    return d->msg;
}

/* ---- identification ---- */

Test(kbase_props, t830_from_the_key_value_buffer)
{
    struct buf p;
    struct gt_kbase_gpu g;

    memset(&p, 0, sizeof(p));
    prop(&p, 55, U32, 0x08302010);     /* old id: product 0x0830, r2p1 */
    prop(&p, 62, U32, 1);
    prop(&p, 64, U64, 0xF);
    prop(&p, 15, U8, 1);
    prop(&p, 29, U32, 0x07110206);
    cr_assert_eq(parse_raw(&p, &g, &(struct gt_diag){ 0 }), 0);
    cr_assert_eq(gt_kbase_identify(&g), 1);
    cr_assert_str_eq(g.name, "Mali-T830");
    cr_assert_str_eq(g.table, "T830");
    cr_assert_str_eq(g.layout, "mali-t8xx");
    cr_assert_eq(g.product_key, 0x0830);
    cr_assert_eq(g.shader_cores, 4);
    cr_assert_eq(g.l2_slices, 1);
    cr_assert_eq(g.bus_width_bits, 128);
    cr_assert_eq(g.values_per_block, 64);
    cr_assert_eq(g.csf, 0);
    cr_assert_eq(g.major_rev, 2, "revision from the id when the props lack it");
    cr_assert_eq(g.minor_rev, 1);
}

Test(kbase_props, t820_by_product_id_alone)
{
    struct buf p;
    struct gt_kbase_gpu g;

    memset(&p, 0, sizeof(p));
    prop(&p, 1, U16, 0x0820);          /* PRODUCT_ID, no RAW_GPU_ID */
    prop(&p, 25, U64, 0x3);
    prop(&p, 15, U8, 1);
    g = parse(&p);
    cr_assert_eq(g.gpu_id, 0x08200000);
    cr_assert_str_eq(g.name, "Mali-T820");
    cr_assert_str_eq(g.table, "T820");
    cr_assert_str_eq(g.layout, "mali-t8xx");
}

Test(kbase_props, g715_sparse_mask_and_constants)
{
    struct buf p;
    struct gt_kbase_gpu g;

    g7xx(&p, 0xB0021010, 0xEF, U32);
    g = parse(&p);
    cr_assert_eq(gt_kbase_identify(&g), 1);
    cr_assert_str_eq(g.name, "Mali-G715");
    cr_assert_str_eq(g.layout, "mali-g715");
    cr_assert_str_eq(g.table, "G715");
    cr_assert_eq(g.product_key, 0xB002);
    cr_assert_eq(g.shader_cores, 7);
    cr_assert_eq(g.core_mask, 0xEF);
    cr_assert_eq(g.l2_slices, 2);
    cr_assert_eq(g.bus_width_bits, 128);
    cr_assert_eq(g.major_rev, 1, "the props' revision, not the id's r1p1");
    cr_assert_eq(g.minor_rev, 2);
    cr_assert_eq(g.values_per_block, 128);
    cr_assert(g.csf);
}

Test(kbase_props, names_follow_the_core_count)
{
    static const struct { uint64_t id, mask; const char *name, *layout; } cases[] = {
        { 0xB0020000, 0x3FF, "Immortalis-G715", "mali-g715" },
        { 0xB0020000, 0x7F, "Mali-G715", "mali-g715" },
        { 0xB0020000, 0x3F, "Mali-G615", "mali-g715" },
        { 0xB0020000, 0x1F, "Mali-G615", "mali-g715" },
        { 0xB0030000, 0x3FF, "Mali-G615", "mali-g715" },
        { 0xC0000000, 0xFFF, "Immortalis-G720", "mali-g720" },
        { 0xC0000000, 0x3FF, "Immortalis-G720", "mali-g720" },
        { 0xC0000000, 0xFF, "Mali-G720", "mali-g720" },
        { 0xC0000000, 0x3F, "Mali-G720", "mali-g720" },
        { 0xC0000000, 0xF, "Mali-G620", "mali-g720" },
        { 0xC0010000, 0xF, "Mali-G620", "mali-g720" },
    };
    unsigned code;
    size_t i;

    for (code = U32; code <= U64; code++)          /* the id as u32 and as u64 */
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct buf p;
            struct gt_kbase_gpu g;
            g7xx(&p, cases[i].id, cases[i].mask, code);
            g = parse(&p);
            cr_assert_str_eq(g.name, cases[i].name, "id 0x%llx mask 0x%llx",
                             (unsigned long long)cases[i].id,
                             (unsigned long long)cases[i].mask);
            cr_assert_str_eq(g.layout, cases[i].layout);
            cr_assert_eq(g.values_per_block, 128);
            cr_assert(g.csf);
        }
}

/* Ids from kbase's GPU_ID2_PRODUCT_* list and gator's PRODUCT_ID_* table
 * (MaliDevice.cpp); names from libGPUInfo's product table; the layout per
 * architecture (Midgard mali-t8xx, Bifrost, Valhall job manager, Valhall
 * CSF, 5th generation mali-g720). */
Test(kbase_props, every_common_mali_gets_a_table_and_layout)
{
    static const struct {
        uint64_t id; uint64_t mask; const char *name, *table, *layout; uint32_t values; int csf;
    } cases[] = {
        { 0x07500000, 0xF, "Mali-T760", "T760", "mali-t8xx", 64, 0 },
        { 0x08600000, 0xF, "Mali-T860", "T860", "mali-t8xx", 64, 0 },
        { 0x08800000, 0xF, "Mali-T880", "T880", "mali-t8xx", 64, 0 },
        { 0x72120000, 0x3, "Mali-G52", "G52", "mali-bifrost", 64, 0 },  /* arch minor/rev masked */
        { 0x71010000, 0xFF, "Mali-G76", "G76", "mali-bifrost", 64, 0 },
        { 0x90000011, 0xFF, "Mali-G77", "G77", "mali-valhall-jm", 64, 0 },
        { 0x90010000, 0x3, "Mali-G57", "G57", "mali-valhall-jm", 64, 0 },
        { 0x90030000, 0x3, "Mali-G57", "G57", "mali-valhall-jm", 64, 0 },
        { 0x92020000, 0xFFFFF, "Mali-G78", "G78", "mali-valhall-jm", 64, 0 },
        { 0x90040000, 0x3F, "Mali-G68", "G68", "mali-valhall-jm", 64, 0 },
        { 0x90050000, 0xFF, "Mali-G78AE", "G78", "mali-valhall-jm", 64, 0 },
        { 0xA0020000, 0x3FF, "Mali-G710", "G710", "mali-valhall-csf", 64, 1 },
        { 0xA8070000, 0x3F, "Mali-G610", "G610", "mali-valhall-csf", 64, 1 },
        { 0xA0030000, 0x3, "Mali-G510", "G510", "mali-valhall-csf", 64, 1 },
        { 0xA0040000, 0x1, "Mali-G310", "G310", "mali-valhall-csf", 64, 1 },
        { 0xD0000000, 0xFFF, "Immortalis-G925", "G725", "mali-g720", 128, 1 },
        { 0xD0000000, 0x3F, "Mali-G725", "G725", "mali-g720", 128, 1 },
        { 0xD0010000, 0xF, "Mali-G625", "G625", "mali-g720", 128, 1 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf p;
        struct gt_kbase_gpu g;
        g7xx(&p, cases[i].id, cases[i].mask, U32);
        g = parse(&p);
        cr_assert_eq(gt_kbase_identify(&g), 1, "%s", cases[i].name);
        cr_assert_str_eq(g.name, cases[i].name);
        cr_assert_str_eq(g.table, cases[i].table, "%s", cases[i].name);
        cr_assert_str_eq(g.layout, cases[i].layout, "%s", cases[i].name);
        cr_assert_eq(g.values_per_block, cases[i].values, "%s", cases[i].name);
        cr_assert_eq(g.csf, cases[i].csf, "%s", cases[i].name);
    }
}

Test(kbase_props, known_gpus_without_a_table)
{
    static const struct { uint64_t id; const char *name; uint32_t values; int csf; } cases[] = {
        { 0x07201000, "Mali-T720", 64, 0 },
        { 0x69560000, "Mali-T60x", 64, 0 },
        { 0x60000000, "Mali-G71", 64, 0 },
        { 0x60010000, "Mali-G72", 64, 0 },
        { 0x70000000, "Mali-G51", 64, 0 },
        { 0x70030000, "Mali-G31", 64, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf p;
        struct gt_kbase_gpu g;
        g7xx(&p, cases[i].id, 0xF, U32);
        g = parse(&p);
        cr_assert_eq(gt_kbase_identify(&g), 0, "%s", cases[i].name);
        cr_assert_str_eq(g.name, cases[i].name);
        cr_assert_null(g.layout);
        cr_assert_null(g.table);
        cr_assert_eq(g.values_per_block, cases[i].values, "%s", cases[i].name);
        cr_assert_eq(g.csf, cases[i].csf, "%s", cases[i].name);
    }
}

Test(kbase_props, unknown_ids_are_named_with_the_raw_id)
{
    struct buf p;
    struct gt_kbase_gpu g;

    g7xx(&p, 0xE2000000, 0xF, U32);
    g = parse(&p);
    cr_assert_eq(gt_kbase_identify(&g), 0);
    cr_assert_str_eq(g.name, "Mali GPU (unknown id 0xe2000000)");
    cr_assert_null(g.table);
    cr_assert_null(g.layout);
    cr_assert(g.csf);
    cr_assert_eq(g.values_per_block, 128);
    g7xx(&p, 0x0BAD0000, 0xF, U32);                 /* old style, unknown */
    g = parse(&p);
    cr_assert_eq(gt_kbase_identify(&g), 0);
    cr_assert_str_eq(g.name, "Mali GPU (unknown id 0x0bad0000)");
    cr_assert_eq(g.csf, 0);
    cr_assert_eq(g.values_per_block, 64);
}

Test(kbase_props, a_64_bit_id_keys_on_its_upper_half)
{
    /* arch 14.1.2, product major 3, compat 0xF in bits 31:28 */
    uint64_t id = (14ull << 56) | (1ull << 48) | (2ull << 40) | (3ull << 32) | 0xF0001234ull;
    struct buf p;
    struct gt_kbase_gpu g;

    g7xx(&p, id, 0xFF, U64);
    g = parse(&p);
    cr_assert_eq(g.gpu_id, id);
    cr_assert_eq(gt_kbase_identify(&g), 0);
    cr_assert_eq(g.product_key, 0xE003);
    cr_assert_str_eq(g.name, "Mali GPU (unknown id 0xe010203f0001234)");
    cr_assert(g.csf);
    cr_assert_eq(g.values_per_block, 128);
    /* a u64-coded id whose upper half is zero is still a 32-bit id */
    g7xx(&p, 0xC0001010, 0xFF, U64);
    g = parse(&p);
    cr_assert_eq(g.product_key, 0xC000);
}

/* ---- values and size codes ---- */

Test(kbase_props, every_size_code_read_little_endian_and_unaligned)
{
    struct buf p;
    uint8_t *odd;
    struct gt_kbase_gpu g;
    struct gt_diag d;

    memset(&p, 0, sizeof(p));
    prop(&p, 15, U8, 3);                            /* slices */
    prop(&p, 3, U16, 0x0102);                       /* minor revision, u16 */
    prop(&p, 6, U32, 0x000CF850);                   /* 850000 kHz */
    prop(&p, 25, U64, 0x8000000000000011ull);       /* u64 at an odd offset */
    prop(&p, 4, U8, 7);                             /* major revision, u8 */
    prop(&p, 29, U64, 0xFFFFFFFF08000000ull);       /* L2_FEATURES sent as u64 */
    prop(&p, 55, U32, 0xB0020000);
    cr_assert_eq(p.start[3], 19, "the u64 key sits at an odd offset");
    /* and the whole buffer at an odd address */
    odd = malloc(p.n + 1);
    memcpy(odd + 1, p.b, p.n);
    gt_diag_clear(&d);
    cr_assert_eq(gt_kbase_props_parse(odd + 1, p.n, &g, &d), 0, "%s", d.msg);
    free(odd);
    cr_assert_eq(g.l2_slices, 3);
    cr_assert_eq(g.major_rev, 7);
    cr_assert_eq(g.minor_rev, 0x0102);
    cr_assert_eq(g.freq_khz_max, 850000);
    cr_assert_eq(g.core_mask, 0x8000000000000011ull, "RAW_SHADER_PRESENT without groups");
    cr_assert_eq(g.shader_cores, 3);
    cr_assert_eq(g.bus_width_bits, 256);
}

Test(kbase_props, unknown_ids_skipped_by_each_size_code)
{
    struct buf p;
    struct gt_kbase_gpu g;
    unsigned code;

    memset(&p, 0, sizeof(p));
    for (code = U8; code <= U64; code++)
        prop(&p, 200 + code, code, 0x5555555555555555ull);
    prop(&p, 85, U64, 0xFFFFFFFFFFFFFFFFull);      /* a real id gputop ignores */
    prop(&p, 80, U64, 0xFF00);                     /* id 80: past the 16 groups */
    prop(&p, 55, U32, 0x08300000);
    prop(&p, 25, U64, 0x3);
    prop(&p, 15, U8, 1);
    g = parse(&p);
    cr_assert_str_eq(g.name, "Mali-T830");
    cr_assert_eq(g.core_mask, 0x3);
}

Test(kbase_props, the_gpu_id_honours_its_size_code)
{
    struct buf p;
    struct gt_kbase_gpu g;

    memset(&p, 0, sizeof(p));
    prop(&p, 55, U16, 0x12345678);                 /* only two bytes sent */
    prop(&p, 25, U64, 0x1);
    prop(&p, 15, U8, 1);
    g = parse(&p);
    cr_assert_eq(g.gpu_id, 0x5678);
}

/* ---- core masks ---- */

Test(kbase_props, core_groups_are_ored_up_to_their_count)
{
    struct buf p;
    struct gt_kbase_gpu g;
    unsigned i;

    memset(&p, 0, sizeof(p));
    prop(&p, 55, U32, 0x08300000);
    prop(&p, 15, U8, 1);
    prop(&p, 25, U64, 0xFFFF);                     /* ignored: the groups win */
    prop(&p, 62, U32, 2);
    prop(&p, 64, U64, 0x3);
    prop(&p, 65, U64, 0x30);
    prop(&p, 66, U64, 0x300);                      /* beyond the count */
    g = parse(&p);
    cr_assert_eq(g.core_mask, 0x33);
    cr_assert_eq(g.shader_cores, 4);

    memset(&p, 0, sizeof(p));                      /* a count over 16 is capped */
    prop(&p, 55, U32, 0x08300000);
    prop(&p, 15, U8, 1);
    prop(&p, 62, U32, 40);
    for (i = 0; i < 16; i++)
        prop(&p, 64 + i, U64, 1ull << (2 * i));
    g = parse(&p);
    cr_assert_eq(g.core_mask, 0x55555555);
    cr_assert_eq(g.shader_cores, 16);

    memset(&p, 0, sizeof(p));                      /* groups without a count */
    prop(&p, 55, U32, 0x08300000);
    prop(&p, 15, U8, 1);
    prop(&p, 64, U64, 0x3);
    prop(&p, 25, U64, 0x7);
    g = parse(&p);
    cr_assert_eq(g.core_mask, 0x7, "RAW_SHADER_PRESENT when the groups are absent");
}

Test(kbase_props, core_rank)
{
    cr_assert_eq(gt_kbase_core_rank(0xEF, 0), 0);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 3), 3);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 4), -1);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 5), 4);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 7), 6);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 8), -1);
    cr_assert_eq(gt_kbase_core_rank(0xF0F0, 12), 4);
    cr_assert_eq(gt_kbase_core_rank(0xF0F0, 64), -1);
    cr_assert_eq(gt_kbase_core_rank(~0ull, 200), -1);
    cr_assert_eq(gt_kbase_core_rank(1ull << 63, 63), 0);
    cr_assert_eq(gt_kbase_core_rank(~0ull, 63), 63);
    cr_assert_eq(gt_kbase_core_rank(0, 0), -1);
}

/* ---- errors ---- */

Test(kbase_props, a_cut_value_names_its_offset_and_property)
{
    struct buf p;
    struct gt_diag d;
    unsigned i;

    memset(&p, 0, sizeof(p));
    for (i = 0; i < 15; i++)
        prop(&p, 200, U32, 0);                     /* 15 x 8 = 120 bytes */
    prop(&p, 25, U64, 0);
    p.n -= 5;                                      /* 3 of its 8 bytes left */
    cr_assert_str_eq(parse_error(&p, &d),
                     "GPU properties: property 25 at byte 120 needs 8 bytes, only 3 left");
    p.n = 122;
    cr_assert_str_eq(parse_error(&p, &d),
                     "GPU properties: key at byte 120 cut short (2 bytes left)");
}

/* A buffer is a run of whole properties; a prefix that ends on a property
 * boundary is itself a valid buffer and is accepted exactly when it holds
 * every required property (an id, a core mask, the slice count). Any other
 * prefix is refused with the offset of the property it cuts. */
Test(kbase_props, every_truncation_is_refused_or_complete)
{
    struct buf p;
    size_t n, required_end;
    unsigned k, accepted = 0;

    g7xx(&p, 0xB0021010, 0xEF, U64);
    required_end = p.n;                            /* g7xx ends with the slice count */
    prop(&p, 6, U32, 850000);                      /* then optional properties */
    prop(&p, 99, U64, 1);
    p.start[p.np] = p.n;                           /* sentinel: the end */
    for (n = 0; n < p.n; n++) {
        struct gt_kbase_gpu g;
        struct gt_diag d;
        uint8_t *cut = malloc(n ? n : 1);          /* exactly n bytes: ASan sees overreads */
        char want[160];
        int r;

        memcpy(cut, p.b, n);
        gt_diag_clear(&d);
        r = gt_kbase_props_parse(cut, n, &g, &d);
        free(cut);
        for (k = 0; k + 1 < p.np && p.start[k + 1] <= n; k++)
            ;                                      /* k: the property n falls in */
        if (n == p.start[k]) {
            cr_assert_eq(r, n >= required_end ? 0 : -1, "%zu-byte prefix: %s", n, d.msg);
            if (r == 0) {
                accepted++;
                cr_assert_eq(g.shader_cores, 7);
            } else {
                cr_assert(d.msg[0], "a message for the %zu-byte prefix", n);
            }
            continue;
        }
        cr_assert_eq(r, -1, "a %zu-byte prefix cutting a property was accepted", n);
        if (n - p.start[k] < 4)
            snprintf(want, sizeof(want), "key at byte %zu cut short", p.start[k]);
        else
            snprintf(want, sizeof(want), "at byte %zu needs", p.start[k]);
        cr_assert(strstr(d.msg, want), "%zu bytes: \"%s\" lacks \"%s\"", n, d.msg, want);
    }
    cr_assert_eq(accepted, 2, "the prefixes ending after the slices and after the freq");
}

Test(kbase_props, missing_or_zero_values_are_errors)
{
    struct buf p;
    struct gt_kbase_gpu g;
    struct gt_diag d;

    memset(&p, 0, sizeof(p));
    prop(&p, 55, U32, 0xB0020000);
    prop(&p, 25, U64, 0);
    prop(&p, 15, U8, 1);
    cr_assert(strstr(parse_error(&p, &d), "no shader cores"));

    memset(&p, 0, sizeof(p));
    prop(&p, 55, U32, 0xB0020000);
    prop(&p, 25, U64, 0xF);
    cr_assert_str_eq(parse_error(&p, &d), "GPU properties lack L2 slice count");
    prop(&p, 15, U8, 0);
    cr_assert(strstr(parse_error(&p, &d), "L2 slice count 0"), "%s", d.msg);
    p.n -= 5;
    prop(&p, 15, U64, 1ull << 40);
    cr_assert(strstr(parse_error(&p, &d), "L2 slice count 1099511627776"));
    p.n -= 12;
    prop(&p, 15, U8, 1);
    g = parse(&p);
    cr_assert_eq(g.bus_width_bits, 0, "no L2_FEATURES: bus width unknown");

    memset(&p, 0, sizeof(p));
    prop(&p, 25, U64, 0xF);
    prop(&p, 15, U8, 1);
    cr_assert(strstr(parse_error(&p, &d), "GPU id"));
    cr_assert(strstr(parse_error(&(struct buf){ .n = 0 }, &d), "GPU id"), "empty buffer");
}

Test(kbase_props, implausible_bus_widths_are_unknown)
{
    static const struct { uint32_t l2; uint32_t bits; } cases[] = {
        { 0x02000000, 0 }, { 0x03000000, 8 }, { 0x06000000, 64 },
        { 0x0C000000, 4096 }, { 0x0D000000, 0 }, { 0xFF000000, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf p;
        struct gt_kbase_gpu g;
        g7xx(&p, 0xB0020000, 0xF, U32);
        prop(&p, 29, U32, cases[i].l2);            /* the later value wins */
        g = parse(&p);
        cr_assert_eq(g.bus_width_bits, cases[i].bits, "L2_FEATURES 0x%08x",
                     (unsigned)cases[i].l2);
    }
}

/* ---- the pre-r21 fixed struct ---- */

static void pre_r21_t830(uint8_t s[536])
{
    memset(s, 0, 536);
    s[58] = 1;                                 /* L2 slices */
    s[139] = 7;                                /* L2_FEATURES bits 31:24 */
    s[240 + 0] = 0x20;                         /* GPU_ID 0x08301020: r1p2 */
    s[240 + 1] = 0x10;
    s[240 + 2] = 0x30;
    s[240 + 3] = 0x08;
    s[268] = 1;                                /* one core group */
    s[280] = 0x0F;                             /* its core mask */
}

Test(kbase_props, pre_r21_fixed_struct)
{
    uint8_t s[536];
    struct gt_kbase_gpu g;
    struct gt_diag d;

    pre_r21_t830(s);
    gt_diag_clear(&d);
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_kbase_identify(&g), 1);
    cr_assert_str_eq(g.name, "Mali-T830");
    cr_assert_str_eq(g.layout, "mali-t8xx");
    cr_assert_eq(g.gpu_id, 0x08301020);
    cr_assert_eq(g.shader_cores, 4);
    cr_assert_eq(g.l2_slices, 1);
    cr_assert_eq(g.bus_width_bits, 128);
    cr_assert_eq(g.values_per_block, 64);
    cr_assert_eq(g.major_rev, 1);
    cr_assert_eq(g.minor_rev, 2);
    cr_assert(!g.csf);
}

Test(kbase_props, pre_r21_groups_and_errors)
{
    uint8_t s[536];
    struct gt_kbase_gpu g;
    struct gt_diag d;

    pre_r21_t830(s);
    s[268] = 2;                                /* two groups, ORed */
    s[296] = 0x30;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), 0, "%s", d.msg);
    cr_assert_eq(g.core_mask, 0x3F);
    s[268] = 16;                               /* the last slot ends at byte 528 */
    s[520] = 0x80;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), 0, "%s", d.msg);
    cr_assert_eq(g.core_mask, 0xBF);

    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, 535, &g, &d), -1);
    cr_assert(strstr(d.msg, "535 bytes"), "%s", d.msg);
    s[268] = 17;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), -1);
    cr_assert(strstr(d.msg, "17 core groups"), "%s", d.msg);
    s[268] = 0;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), -1);
    pre_r21_t830(s);
    s[58] = 0;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), -1);
    cr_assert(strstr(d.msg, "L2 slice count 0"), "%s", d.msg);
    pre_r21_t830(s);
    s[280] = 0;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), -1);
    cr_assert(strstr(d.msg, "no shader cores"), "%s", d.msg);
}

/* Arm's product names: MPn for Midgard, Bifrost and the first Valhall
 * GPUs ("Mali-T830 MP4", "Mali-G52 MP2", "Mali-G78 MP14"), MCn from the
 * G310 / G510 / G610 / G710 generation on ("Mali-G715 MC7"). */
Test(kbase_props, core_count_written_as_arm_names_the_gpu)
{
    static const struct { const char *name; unsigned cores; const char *want; } c[] = {
        { "Mali-T830", 4, "Mali-T830 MP4" },   { "Mali-G52", 2, "Mali-G52 MP2" },
        { "Mali-G78", 14, "Mali-G78 MP14" },   { "Mali-G715", 7, "Mali-G715 MC7" },
        { "Immortalis-G720", 12, "Immortalis-G720 MC12" },
    };
    char buf[64];
    size_t i;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        gt_mali_name_cores(buf, sizeof(buf), c[i].name, c[i].cores);
        cr_expect_str_eq(buf, c[i].want);
    }
}
