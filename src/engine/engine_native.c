/* Runs a built-in layout's generated code (native.h): each reference the
 * code reads has its own register, filled per snapshot by reductions
 * grouped by kind and instance count (so each group is one loop whose
 * kind and count the compiler knows) that write straight to it; constants
 * and NaNs are written once. Same arithmetic as the program's inputs
 * (reduce_parts), so the results are the program's bit for bit. */
#include "engine_native.h"
#include "gputop/engine.h"

#include <math.h>
#include <stdlib.h>

/* One reduction: 24 bytes, read in order. */
struct nin {
    uint32_t slot, den_slot, dst;
    double scale;
};

/* A plan's kinds: the program's (IN_SUM, IN_MEAN, IN_RATIO) and a sum
 * with scale 1, whose multiplication by 1.0 changes nothing and goes. */
enum { NK_SUM1 = IN_RATIO + 1 };

struct nrun {
    int kind;
    uint32_t n, begin, end;   /* into in */
};

struct gt_nplan {
    const struct gt_native_layout *code;
    double *r;                /* per reference its value, then its
                                 exact reciprocal or 0 (native.h) */
    struct nin *in;
    struct nrun *runs;
    size_t nin, nruns;
    uint32_t *ns, *secs;      /* references to $interval_ns, to seconds */
    size_t nns, nsecs;
};

void gt_nplan_free(struct gt_nplan *p)
{
    if (!p)
        return;
    free(p->r);
    free(p->in);
    free(p->runs);
    free(p->ns);
    free(p->secs);
    free(p);
}

static int plan_kind(const struct input *in)
{
    int kind = input_kind(in);

    return kind == IN_SUM && in->scale == 1.0 ? NK_SUM1 : kind;
}

/* Order of reductions: by kind, then count, then slot (loads walk the
 * snapshot forward). */
static int nin_before(const struct gt_nref *refs, uint32_t x, uint32_t y)
{
    const struct input *a = &refs[x].in, *b = &refs[y].in;

    if (plan_kind(a) != plan_kind(b))
        return plan_kind(a) < plan_kind(b);
    if (a->n != b->n)
        return a->n < b->n;
    return a->slot < b->slot;
}

/* Sorts the input references (insertion: a few hundred at most, once). */
static void sort_inputs(const struct gt_nref *refs, uint32_t *order, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        uint32_t k = order[i];
        for (j = i; j > 0 && nin_before(refs, k, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
}

static void add_run(struct gt_nplan *p, const struct input *in, uint32_t at)
{
    struct nrun *r = p->nruns ? &p->runs[p->nruns - 1] : NULL;

    if (!r || r->kind != plan_kind(in) || r->n != in->n) {
        r = &p->runs[p->nruns++];
        r->kind = plan_kind(in);
        r->n = in->n;
        r->begin = at;
    }
    r->end = at + 1;
}

static void plan_inputs(struct gt_nplan *p, const struct gt_nref *refs, uint32_t *order)
{
    size_t i;

    sort_inputs(refs, order, p->nin);
    for (i = 0; i < p->nin; i++) {
        const struct input *in = &refs[order[i]].in;
        p->in[i].slot = in->slot;
        p->in[i].den_slot = in->den_slot;
        p->in[i].dst = order[i];
        p->in[i].scale = in->scale;
        add_run(p, in, (uint32_t)i);
    }
}

static int alloc_plan(struct gt_nplan *p, size_t n)
{
    size_t m = n ? n : 1;

    p->r = calloc(2 * m, sizeof(*p->r));
    p->in = calloc(m, sizeof(*p->in));
    p->runs = calloc(m, sizeof(*p->runs));
    p->ns = calloc(m, sizeof(*p->ns));
    p->secs = calloc(m, sizeof(*p->secs));
    return p->r && p->in && p->runs && p->ns && p->secs ? 0 : -1;
}

/* 1 / v when that is exact (v a power of two whose reciprocal is a
 * double too), else 0: then x * (1 / v) is x / v rounded the same. */
static double exact_reciprocal(double v)
{
    double inv;
    int e;

    if (!isfinite(v) || fabs(frexp(v, &e)) != 0.5)
        return 0.0;
    inv = 1.0 / v;
    return isfinite(inv) && inv != 0.0 && fabs(frexp(inv, &e)) == 0.5 ? inv : 0.0;
}

struct gt_nplan *gt_nplan_new(const struct gt_native_layout *code, const struct gt_nref *refs)
{
    struct gt_nplan *p = calloc(1, sizeof(*p));
    uint32_t *order = malloc((code->nrefs ? code->nrefs : 1) * sizeof(*order));
    size_t k;

    if (!p || !order || alloc_plan(p, code->nrefs) < 0) {
        free(order);
        gt_nplan_free(p);
        return NULL;
    }
    p->code = code;
    for (k = 0; k < code->nrefs; k++) {
        switch (refs[k].what) {
        case NREF_INPUT: order[p->nin++] = (uint32_t)k; break;
        case NREF_NS: p->ns[p->nns++] = (uint32_t)k; break;
        case NREF_SECONDS: p->secs[p->nsecs++] = (uint32_t)k; break;
        default:
            p->r[k] = refs[k].value;
            p->r[code->nrefs + k] = exact_reciprocal(refs[k].value);
            break;
        }
    }
    plan_inputs(p, refs, order);
    free(order);
    return p;
}

#define NRUN(N, KIND)                                                              \
    for (k = run->begin; k < run->end; k++)                                        \
        r[in[k].dst] = reduce_parts(d, in[k].slot, in[k].den_slot, in[k].scale, (N), (KIND))

/* A sum with scale 1: what reduce_parts gives, less its "* 1.0". */
#define NRUN1(N)                                                                   \
    for (k = run->begin; k < run->end; k++)                                        \
        r[in[k].dst] = (double)sum_slots(d + in[k].slot, (N))

/* Each kind and usual count gets a loop of its own, where the sum is
 * straight-line code and nothing is tested per reduction. */
#define NRUNS(RUN)                                                                 \
    switch (run->n) {                                                              \
    case 1: RUN(1); break;                                                         \
    case 2: RUN(2); break;                                                         \
    case 4: RUN(4); break;                                                         \
    case 8: RUN(8); break;                                                         \
    case 12: RUN(12); break;                                                       \
    case 16: RUN(16); break;                                                       \
    default: RUN(run->n); break;                                                   \
    }

#define NRUN_SUM(N) NRUN(N, IN_SUM)
#define NRUN_MEAN(N) NRUN(N, IN_MEAN)

static void reduce_run(const struct nrun *run, const struct nin *in, const uint64_t *d,
                       double *r)
{
    uint32_t k;

    switch (run->kind) {
    case NK_SUM1: NRUNS(NRUN1); break;
    case IN_SUM: NRUNS(NRUN_SUM); break;
    case IN_MEAN: NRUNS(NRUN_MEAN); break;
    default: NRUN(run->n, IN_RATIO); break;
    }
}
#undef NRUN_SUM
#undef NRUN_MEAN
#undef NRUNS
#undef NRUN1
#undef NRUN

void gt_nplan_eval(const struct gt_nplan *p, const struct gt_snapshot *s, double *out,
                   double *peak, double *pop)
{
    size_t i;

    for (i = 0; i < p->nruns; i++)
        reduce_run(&p->runs[i], p->in, s->deltas, p->r);
    for (i = 0; i < p->nns; i++)
        p->r[p->ns[i]] = (double)gt_snapshot_ns(s);
    for (i = 0; i < p->nsecs; i++)
        p->r[p->secs[i]] = gt_engine_seconds(s);
    p->code->eval(p->r, out, peak, pop);
}
