/* GPU properties from kbase: both encodings parsed, every truncation
 * refused without reading past the end, and GPUs named by id and cores. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/kbase.h"

struct buf {
    uint8_t b[512];
    size_t n;
};

static void prop(struct buf *p, unsigned id, unsigned code, uint64_t v)
{
    size_t i, size = 1u << code;
    uint32_t key = (id << 2) | code;

    for (i = 0; i < 4; i++)
        p->b[p->n++] = (uint8_t)(key >> (8 * i));
    for (i = 0; i < size; i++)
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

static void g7xx(struct buf *p, uint64_t id, uint64_t mask, unsigned id_code)
{
    memset(p, 0, sizeof(*p));
    prop(p, 29, 2, 0x07000000);      /* 128-bit bus */
    prop(p, 55, id_code, id);
    prop(p, 99, 1, 0xBEEF);          /* unknown: skipped by its size code */
    prop(p, 62, 2, 1);
    prop(p, 64, 3, mask);
    prop(p, 4, 2, 1);
    prop(p, 3, 2, 2);
    prop(p, 15, 0, 2);               /* last, so that every shorter prefix lacks it */
}

static struct gt_kbase_gpu parse(const struct buf *p)
{
    struct gt_kbase_gpu g;
    struct gt_diag d;

    gt_diag_clear(&d);
    cr_assert_eq(gt_kbase_props_parse(p->b, p->n, &g, &d), 0, "%s", d.msg);
    gt_kbase_identify(&g);
    return g;
}

Test(kbase_props, g715_sparse_mask_and_constants)
{
    struct buf p;
    struct gt_kbase_gpu g;

    g7xx(&p, 0xB0021010, 0xEF, 2);
    g = parse(&p);
    cr_assert_str_eq(g.name, "Mali-G715");
    cr_assert_str_eq(g.layout, "mali-g715");
    cr_assert_str_eq(g.table, "G715");
    cr_assert_eq(g.shader_cores, 7);
    cr_assert_eq(g.core_mask, 0xEF);
    cr_assert_eq(g.l2_slices, 2);
    cr_assert_eq(g.bus_width_bits, 128);
    cr_assert_eq(g.major_rev, 1);
    cr_assert_eq(g.minor_rev, 2);
    cr_assert_eq(g.values_per_block, 128);
    cr_assert(g.csf);
}

Test(kbase_props, names_follow_the_core_count)
{
    static const struct { uint64_t id, mask; const char *name; } cases[] = {
        { 0xB0020000, 0x3FF, "Immortalis-G715" },
        { 0xB0020000, 0x7F, "Mali-G715" },
        { 0xB0020000, 0x1F, "Mali-G615" },
        { 0xB0030000, 0x3F, "Mali-G615" },
        { 0xC0000000, 0xFFF, "Immortalis-G720" },
        { 0xC0000000, 0xFF, "Mali-G720" },
        { 0xC0000000, 0xF, "Mali-G620" },
        { 0xC0010000, 0xF, "Mali-G620" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf p;
        struct gt_kbase_gpu g;
        g7xx(&p, cases[i].id, cases[i].mask, 3);      /* a u64 GPU id */
        g = parse(&p);
        cr_assert_str_eq(g.name, cases[i].name, "id 0x%llx mask 0x%llx",
                         (unsigned long long)cases[i].id, (unsigned long long)cases[i].mask);
        cr_assert_not_null(g.layout);
    }
}

Test(kbase_props, other_gpus_are_named_without_a_layout)
{
    struct buf p;
    struct gt_kbase_gpu g;

    g7xx(&p, 0x90000011, 0xF, 2);
    g = parse(&p);
    cr_assert_str_eq(g.name, "Mali-G77");
    cr_assert_null(g.layout);
    cr_assert_eq(gt_kbase_identify(&g), 0);
    g7xx(&p, 0xE2000000, 0xF, 2);
    g = parse(&p);
    cr_assert(strstr(g.name, "0xe2000000"), "%s", g.name);
    cr_assert_null(g.table);
}

Test(kbase_props, every_truncation_is_refused)
{
    struct buf p;
    struct gt_kbase_gpu g;
    struct gt_diag d;
    size_t n;

    g7xx(&p, 0xB0021010, 0xEF, 3);
    for (n = 0; n < p.n; n++) {
        /* a copy of exactly n bytes on the heap, so ASan sees any overread */
        uint8_t *cut = malloc(n ? n : 1);
        int r;
        memcpy(cut, p.b, n);
        gt_diag_clear(&d);
        r = gt_kbase_props_parse(cut, n, &g, &d);
        free(cut);
        /* cuts inside a property, and whole ones before the slice count */
        cr_assert_eq(r, -1, "a %zu-byte prefix was accepted", n);
        cr_assert(d.msg[0], "with a message");
    }
}

Test(kbase_props, missing_or_zero_values_are_errors)
{
    struct buf p;
    struct gt_kbase_gpu g;
    struct gt_diag d;

    memset(&p, 0, sizeof(p));
    prop(&p, 55, 2, 0xB0020000);
    prop(&p, 25, 3, 0);
    prop(&p, 15, 0, 1);
    cr_assert_eq(gt_kbase_props_parse(p.b, p.n, &g, &d), -1);
    cr_assert(strstr(d.msg, "shader cores"), "%s", d.msg);
    memset(&p, 0, sizeof(p));
    prop(&p, 55, 2, 0xB0020000);
    prop(&p, 25, 3, 0xF);
    cr_assert_eq(gt_kbase_props_parse(p.b, p.n, &g, &d), -1);
    cr_assert(strstr(d.msg, "L2 slice"), "%s", d.msg);
    prop(&p, 15, 0, 1);
    cr_assert_eq(gt_kbase_props_parse(p.b, p.n, &g, &d), 0, "%s", d.msg);
    cr_assert_eq(g.core_mask, 0xF, "RAW_SHADER_PRESENT when no coherency groups");
    cr_assert_eq(g.bus_width_bits, 0, "no L2_FEATURES: bus width unknown");
}

Test(kbase_props, pre_r21_fixed_struct)
{
    uint8_t s[536];
    struct gt_kbase_gpu g;
    struct gt_diag d;

    memset(s, 0, sizeof(s));
    s[58] = 1;                                 /* L2 slices */
    s[139] = 7;                                /* L2_FEATURES bits 31:24 */
    s[240 + 2] = 0x30;                         /* GPU_ID 0x08300000 */
    s[240 + 3] = 0x08;
    s[268] = 1;                                /* one core group */
    s[280] = 0x0F;                             /* its core mask */
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_kbase_identify(&g), 1);
    cr_assert_str_eq(g.name, "Mali-T830");
    cr_assert_eq(g.shader_cores, 4);
    cr_assert_eq(g.bus_width_bits, 128);
    cr_assert_eq(g.values_per_block, 64);
    cr_assert(!g.csf);
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, 535, &g, &d), -1);
    s[268] = 17;
    cr_assert_eq(gt_kbase_props_parse_pre_r21(s, sizeof(s), &g, &d), -1);
}

Test(kbase_props, core_rank)
{
    cr_assert_eq(gt_kbase_core_rank(0xEF, 0), 0);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 3), 3);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 4), -1);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 5), 4);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 7), 6);
    cr_assert_eq(gt_kbase_core_rank(0xEF, 64), -1);
    cr_assert_eq(gt_kbase_core_rank(1ull << 63, 63), 0);
}
