/* The built-in layouts' generated native code against the interpreter
 * (GPUTOP_ENGINE=vm): every metric's value, peak and percent of peak must
 * be the same bits (NaN for NaN) over random snapshots with zeros, huge
 * deltas and zero-length intervals, on the catalogues the dashboard gives
 * each layout and on ones missing counters; and a layout that differs
 * from the built-in one in any expression must run on the interpreter. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench_setup.h"   /* each layout's catalogue, as the dashboard's */
#include "gputop/embedded.h"

#define SNAPSHOTS 300

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A delta of one of the sizes counters have, and the extremes. */
static uint64_t delta(uint64_t *seed)
{
    uint64_t r = rng(seed);

    switch (r % 8) {
    case 0: case 1: return 0;
    case 2: return r >> 54;                       /* small */
    case 3: return r >> 32;                       /* 32-bit */
    case 4: return r >> 20;
    case 5: return UINT64_MAX - (r >> 60);        /* huge: sums wrap */
    case 6: return (1ull << 63) + (r >> 40);
    default: return r >> 8;
    }
}

/* Snapshot i: all zeros, all huge, or random; intervals of zero length,
 * backwards, one nanosecond or 100 ms. */
static void fill(struct gt_snapshot *s, uint32_t nslots, unsigned i, uint64_t *seed)
{
    uint32_t k;

    for (k = 0; k < nslots; k++)
        s->deltas[k] = i == 0 ? 0 : i == 1 ? UINT64_MAX : delta(seed);
    s->t_start_ns = 1000000000ull * i;
    switch (rng(seed) % 6) {
    case 0: s->t_end_ns = s->t_start_ns; break;
    case 1: s->t_end_ns = s->t_start_ns ? s->t_start_ns - 1 : 0; break;
    case 2: s->t_end_ns = s->t_start_ns + 1; break;
    default: s->t_end_ns = s->t_start_ns + 100000000ull; break;
    }
    s->nsamples = 1;
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static void check_figure(const char *layout, const struct gt_layout *l, size_t m,
                         const char *what, double native, double vm, unsigned snap)
{
    cr_assert(same(native, vm), "%s, metric '%s', %s, snapshot %u: native %.17g, vm %.17g",
              layout, l->metrics[m].title, what, snap, native, vm);
}

/* Evaluates layout l on catalogue c both ways and compares everything. */
static void compare(const char *layout, const struct gt_layout *l, const struct gt_catalog *c)
{
    struct gt_engine *native = gt_engine_new(l, c), *vm;
    double *a = calloc(l->nmetrics + 1, sizeof(double));
    double *b = calloc(l->nmetrics + 1, sizeof(double));
    uint64_t seed = 0x2545f4914f6cdd1dull;
    struct gt_snapshot s;
    unsigned i;
    size_t m;

    cr_assert(setenv("GPUTOP_ENGINE", "vm", 1) == 0);
    vm = gt_engine_new(l, c);
    unsetenv("GPUTOP_ENGINE");
    cr_assert(native && vm && a && b);
    cr_assert(gt_engine_native(native), "%s: the built-in layout runs no native code", layout);
    cr_assert(!gt_engine_native(vm), "%s: GPUTOP_ENGINE=vm left the native code on", layout);
    cr_assert_eq(gt_snapshot_init(&s, c->nslots), 0);
    for (i = 0; i < SNAPSHOTS; i++) {
        fill(&s, c->nslots, i, &seed);
        gt_engine_eval(native, &s, a);
        gt_engine_eval(vm, &s, b);
        for (m = 0; m < l->nmetrics; m++) {
            check_figure(layout, l, m, "value", a[m], b[m], i);
            check_figure(layout, l, m, "peak", gt_engine_peak(native, m), gt_engine_peak(vm, m), i);
            check_figure(layout, l, m, "pop", gt_engine_pop(native, m), gt_engine_pop(vm, m), i);
        }
    }
    for (m = 0; m < l->nmetrics; m++)
        cr_assert_str_eq(gt_engine_unavailable(native, m) ? gt_engine_unavailable(native, m) : "",
                         gt_engine_unavailable(vm, m) ? gt_engine_unavailable(vm, m) : "");
    gt_snapshot_free(&s);
    gt_engine_free(native);
    gt_engine_free(vm);
    free(a);
    free(b);
}

Test(engine_native, every_builtin_layout_matches_the_interpreter)
{
    size_t i;

    cr_assert_gt(gt_embedded_layout_count(), 0);
    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct bench_setup b;
        const char *name = gt_embedded_layout_name(i);
        cr_assert_eq(bench_setup(&b, name), 0, "%s: no catalogue", name);
        compare(name, b.layout, &b.catalog);
        bench_teardown(&b);
    }
}

/* src less every third counter (and the ratios over a dropped one): the
 * metrics reading them are unavailable, the rest must still agree. */
static void thin(struct gt_catalog *dst, const struct gt_catalog *src)
{
    int *to = malloc((src->ncounters + 1) * sizeof(int));
    size_t k;

    cr_assert_not_null(to);
    for (k = 0; k < src->ncounters; k++) {
        const struct gt_counter *x = &src->counters[k];
        to[k] = -1;
        if (x->kind == GT_COUNTER_CONSTANT)
            to[k] = gt_catalog_add_constant(dst, x->name, x->value);
        else if (x->kind == GT_COUNTER_DELTA && k % 3 != 1)
            to[k] = gt_catalog_add(dst, x->name, x->block, x->kind, x->instances, x->scale);
        else if (x->kind == GT_COUNTER_RATIO && x->denominator >= 0 &&
                 to[x->denominator] >= 0) {
            int num = (int)k - 1;   /* ratios follow their numerator (catalog.c) */
            while (num >= 0 && src->counters[num].slot != x->slot)
                num--;
            if (num >= 0 && to[num] >= 0)
                to[k] = gt_catalog_add_ratio(dst, x->name, to[num], to[x->denominator],
                                             x->scale);
        }
    }
    free(to);
}

Test(engine_native, missing_counters_read_nan_as_in_the_interpreter)
{
    size_t i, m, unavailable = 0;

    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct bench_setup b;
        struct gt_catalog c;
        const char *name = gt_embedded_layout_name(i);
        cr_assert_eq(bench_setup(&b, name), 0, "%s: no catalogue", name);
        gt_catalog_init(&c);
        thin(&c, &b.catalog);
        compare(name, b.layout, &c);
        {
            struct gt_engine *e = gt_engine_new(b.layout, &c);
            for (m = 0; m < b.layout->nmetrics; m++)
                unavailable += gt_engine_unavailable(e, m) != NULL;
            gt_engine_free(e);
        }
        gt_catalog_free(&c);
        bench_teardown(&b);
    }
    cr_assert_gt(unavailable, 10, "the thinned catalogues left every metric available");
}

/* The built-in text of layout i with its first "expr" line changed by
 * edit: appends " + 0" (same value, another computation's text). */
static struct gt_layout *edited(size_t i, int edit)
{
    size_t len;
    char *text = gt_embedded_layout_copy(i, &len), *out, *at, *eol;
    struct gt_layout *l;
    struct gt_diag d;

    cr_assert_not_null(text);
    out = malloc(len + 8);
    cr_assert_not_null(out);
    at = strstr(text, "expr ");
    cr_assert_not_null(at);
    eol = strchr(at, '\n');
    cr_assert_not_null(eol);
    memcpy(out, text, (size_t)(eol - text));
    sprintf(out + (eol - text), "%s%s", edit ? " + 0" : "", eol);
    l = gt_layout_parse("edited.layout", out, strlen(out), &d);
    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    free(text);
    free(out);
    return l;
}

Test(engine_native, a_layout_edited_in_any_expression_runs_on_the_interpreter)
{
    size_t i;

    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct bench_setup b;
        struct gt_layout *same_text = edited(i, 0), *other = edited(i, 1);
        struct gt_engine *e1, *e2;
        cr_assert_eq(bench_setup(&b, gt_embedded_layout_name(i)), 0);
        e1 = gt_engine_new(same_text, &b.catalog);
        e2 = gt_engine_new(other, &b.catalog);
        cr_assert(e1 && e2);
        cr_assert(gt_engine_native(e1), "%s read back unchanged: no native code",
                  gt_embedded_layout_name(i));
        cr_assert(!gt_engine_native(e2), "%s with an edited expression kept the native code",
                  gt_embedded_layout_name(i));
        gt_engine_free(e1);
        gt_engine_free(e2);
        gt_layout_free(same_text);
        gt_layout_free(other);
        bench_teardown(&b);
    }
}
