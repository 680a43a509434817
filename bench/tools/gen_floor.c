/* Writes the engine benchmark's floor: each built-in layout's metrics (and
 * their peaks and percent of peak, which the engine computes too) as one
 * plain C function the compiler optimises, reducing each counter once as a
 * careful hand-written version would, and a table of them.
 * Usage: gen_floor OUT.c */
#include <stdio.h>
#include <string.h>

#include "bench_setup.h"
#include "gputop/expr.h"

enum { MODE_RULE, MODE_SUM, MODE_MEAN };

/* A reference as the engine resolves it: a counter, or a bare name with
 * the document's _sum / _avr suffix (the engine's find_ref). */
static int resolve(const struct gt_catalog *c, const char *name, int *mode)
{
    static const char *const sfx[] = { "_sum", "_avr" };
    size_t n = strlen(name), i;
    char base[256];
    int k;

    *mode = MODE_RULE;
    if ((k = gt_catalog_find(c, name)) >= 0)
        return k;
    for (i = 0; i < 2; i++) {
        size_t sl = strlen(sfx[i]);
        if (n <= sl || n - sl >= sizeof(base) || strcmp(name + n - sl, sfx[i]) != 0)
            continue;
        memcpy(base, name, n - sl);
        base[n - sl] = '\0';
        if ((k = gt_catalog_find(c, base)) >= 0 && c->counters[k].kind != GT_COUNTER_CONSTANT) {
            *mode = i == 0 ? MODE_SUM : MODE_MEAN;
            return k;
        }
    }
    return -1;
}

struct names {
    const struct gt_catalog *c;
    const struct gt_expr *e;
    char buf[64];
};

static const char *ref_name(void *arg, size_t ref)
{
    struct names *n = arg;
    const char *name = gt_expr_ref_name(n->e, ref);
    int mode, k;

    if (strcmp(name, GT_ENGINE_INTERVAL) == 0)
        return "secs";
    if (strcmp(name, "interval_ns") == 0)
        return "ns";
    k = resolve(n->c, name, &mode);
    if (n->c->counters[k].kind == GT_COUNTER_CONSTANT)
        snprintf(n->buf, sizeof(n->buf), "%.17g", n->c->counters[k].value);
    else
        snprintf(n->buf, sizeof(n->buf), "c%d_%d", k, mode);
    return n->buf;
}

static void sum_expr(FILE *f, uint32_t slot, uint32_t n)
{
    uint32_t j;

    fputs("(double)(", f);
    for (j = 0; j < n; j++)
        fprintf(f, "%sd[%u]", j ? " + " : "", slot + j);
    fputs(")", f);
}

static void reduce_counter(FILE *f, const struct bench_setup *b, int k, int mode)
{
    const struct gt_counter *kc = &b->catalog.counters[k];
    int mean = mode == MODE_RULE ? gt_layout_agg_for(b->layout, kc->block) == GT_AGG_MEAN
                                 : mode == MODE_MEAN;

    fprintf(f, "    const double c%d_%d = ", k, mode);
    if (kc->kind == GT_COUNTER_RATIO && kc->denominator >= 0) {
        fprintf(f, "gt_op_div(%.17g * ", kc->scale);
        sum_expr(f, kc->slot, kc->instances);
        fputs(", ", f);
        sum_expr(f, b->catalog.counters[kc->denominator].slot, kc->instances);
        fputs(");\n", f);
        return;
    }
    sum_expr(f, kc->slot, kc->instances);
    if (mean)
        fprintf(f, " / %u", kc->instances);
    fprintf(f, " * %.17g;\n", kc->scale);
}

/* Every counter the expression reads, reduced once per function. */
static void reduce_refs(FILE *f, const struct bench_setup *b, const struct gt_expr *e, char *used)
{
    size_t r;
    int k, mode;

    for (r = 0; e && r < gt_expr_nrefs(e); r++) {
        k = resolve(&b->catalog, gt_expr_ref_name(e, r), &mode);
        if (k < 0 || b->catalog.counters[k].kind == GT_COUNTER_CONSTANT || used[k * 3 + mode])
            continue;   /* the interval, a constant, or done */
        used[k * 3 + mode] = 1;
        reduce_counter(f, b, k, mode);
    }
}

static int put_expr(FILE *f, const struct bench_setup *b, const struct gt_expr *e,
                    const char *lhs, size_t i)
{
    static char text[65536];
    struct names n = { &b->catalog, e, "" };

    if (gt_expr_to_c(e, text, sizeof(text), ref_name, &n) < 0)
        return -1;
    fprintf(f, "    %s[%zu] = %s;\n", lhs, i, text);
    return 0;
}

static int write_floor(FILE *f, const struct bench_setup *b, size_t index)
{
    const struct gt_layout *l = b->layout;
    char *used = calloc(b->catalog.ncounters * 3 + 1, 1);
    size_t i;

    if (!used)
        return -1;
    fprintf(f, "static void floor_%zu(const uint64_t *d, double secs, double ns, double *out,\n"
               "                    double *peak, double *pop)\n{\n"
               "    (void)secs; (void)ns; (void)peak; (void)pop;\n", index);
    for (i = 0; i < l->nmetrics; i++)
        if (!gt_engine_unavailable(b->engine, i)) {
            reduce_refs(f, b, l->metrics[i].expr, used);
            reduce_refs(f, b, l->metrics[i].peak, used);
            reduce_refs(f, b, l->metrics[i].pop, used);
        }
    free(used);
    for (i = 0; i < l->nmetrics; i++) {
        if (gt_engine_unavailable(b->engine, i)) {
            fprintf(f, "    out[%zu] = NAN;\n", i);
            continue;
        }
        if (put_expr(f, b, l->metrics[i].expr, "out", i) < 0)
            return -1;
    }
    /* Percent of peak: the layout's pop expression, else 100 * value / peak
     * (the engine's eval_peaks). */
    for (i = 0; i < l->nmetrics; i++) {
        if (gt_engine_unavailable(b->engine, i) || !l->metrics[i].peak)
            continue;
        if (put_expr(f, b, l->metrics[i].peak, "peak", i) < 0)
            return -1;
        if (l->metrics[i].pop ? put_expr(f, b, l->metrics[i].pop, "pop", i) < 0
                              : fprintf(f, "    pop[%zu] = gt_op_div(100.0 * out[%zu], peak[%zu]);\n",
                                        i, i, i) < 0)
            return -1;
    }
    fputs("}\n\n", f);
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_setup b;
    char table[4096];
    size_t i, used = 0;
    FILE *f;

    if (argc != 2 || !(f = fopen(argv[1], "w")))
        return 1;
    fputs("/* Generated by bench/tools/gen_floor.c; do not edit. */\n"
          "#include <math.h>\n#include <stdint.h>\n#include \"bench_setup.h\"\n"
          "#include \"gputop/expr.h\"\n\n", f);
    table[0] = '\0';
    for (i = 0; i < gt_embedded_layout_count(); i++) {
        const char *name = gt_embedded_layout_name(i);
        int r = bench_setup(&b, name);
        if (r == 0)
            r = write_floor(f, &b, i);
        bench_teardown(&b);
        if (r < 0) {
            fprintf(stderr, "gen_floor: layout %s: no floor\n", name);
            return 1;
        }
        used += (size_t)snprintf(table + used, sizeof(table) - used, "    { \"%s\", floor_%zu },\n",
                                 name, i);
    }
    fprintf(f, "const struct bench_floor bench_floors[] = {\n%s};\n"
               "const size_t bench_nfloors = sizeof(bench_floors) / sizeof(bench_floors[0]);\n",
            table);
    return fclose(f) == 0 ? 0 : 1;
}
