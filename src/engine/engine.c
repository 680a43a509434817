/* The metric engine: binds a layout's expressions to a catalogue's
 * counters, reduces per-instance deltas by the layout's aggregation rules,
 * and runs the shared compiled program on each snapshot. */
#include "gputop/engine.h"
#include "gputop/expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A counter the program reads, reduced from its slots. */
struct input {
    uint32_t slot, n;
    uint32_t den_slot;     /* ratio counters */
    double scale;
    uint8_t mean, ratio;
};

struct metric_info {
    int reg;               /* result register, -1 if unavailable */
    char *reason;          /* why unavailable */
    int *counter;          /* per reference: catalogue index, -1 unknown */
    uint32_t instances;
    int inst_counter;      /* counter whose instances a per-core view uses */
    int instanced;
};

struct gt_engine {
    const struct gt_layout *l;
    const struct gt_catalog *c;
    struct gt_program *prog;
    struct input *inputs;
    size_t ninputs;
    int *input_of;         /* per catalogue counter: input register or -1 */
    struct metric_info *m;
    size_t nmetrics;
    struct gt_unresolved *unres;
    size_t nunres;
    double *regs;
    uint32_t *result;      /* per metric: the register to read (a NaN one if unavailable) */
};

static int add_unresolved(struct gt_engine *e, const char *name, size_t metric,
                          int line, int col)
{
    struct gt_unresolved *u = realloc(e->unres, (e->nunres + 1) * sizeof(*u));

    if (!u)
        return -1;
    e->unres = u;
    u[e->nunres].name = name;
    u[e->nunres].metric = metric;
    u[e->nunres].line = line;
    u[e->nunres].col = col;
    e->nunres++;
    return 0;
}

static int input_for(struct gt_engine *e, int counter)
{
    const struct gt_counter *k = &e->c->counters[counter];
    struct input *in;

    if (e->input_of[counter] >= 0)
        return e->input_of[counter];
    in = &e->inputs[e->ninputs];
    in->slot = k->slot;
    in->n = k->instances;
    in->scale = k->scale;
    in->mean = gt_layout_agg_for(e->l, k->block) == GT_AGG_MEAN;
    in->ratio = k->kind == GT_COUNTER_RATIO && k->denominator >= 0;
    if (in->ratio)
        in->den_slot = e->c->counters[k->denominator].slot;
    e->input_of[counter] = (int)e->ninputs;
    return (int)e->ninputs++;
}

/* Resolves every reference of metric i; returns 0, or -1 out of memory. */
static int resolve_metric(struct gt_engine *e, size_t i)
{
    const struct gt_metric_def *def = &e->l->metrics[i];
    struct metric_info *mi = &e->m[i];
    size_t r, nrefs = gt_expr_nrefs(def->expr), missing = 0;
    const char *first_missing = NULL;
    char buf[256];

    mi->reg = -1;
    mi->instances = 1;
    mi->inst_counter = -1;
    mi->counter = calloc(nrefs ? nrefs : 1, sizeof(int));
    if (!mi->counter)
        return -1;
    for (r = 0; r < nrefs; r++) {
        const char *name = gt_expr_ref_name(def->expr, r);
        int k = gt_catalog_find(e->c, name), line, col;
        mi->counter[r] = k;
        if (gt_expr_ref_instanced(def->expr, r))
            mi->instanced = 1;
        if (k >= 0) {
            const struct gt_counter *kc = &e->c->counters[k];
            if (kc->kind != GT_COUNTER_CONSTANT && kc->instances > mi->instances) {
                mi->instances = kc->instances;
                mi->inst_counter = k;
            }
            continue;
        }
        gt_expr_ref_pos(def->expr, r, &line, &col);
        if (add_unresolved(e, name, i, def->line + line - 1,
                           line == 1 ? def->col + col - 1 : col) < 0)
            return -1;
        if (!first_missing)
            first_missing = name;
        missing++;
    }
    if (!missing)
        return 0;
    if (missing == 1)
        snprintf(buf, sizeof(buf), "this source has no counter $%s", first_missing);
    else
        snprintf(buf, sizeof(buf), "this source lacks $%s and %zu more counters",
                 first_missing, missing - 1);
    mi->reason = strdup(buf);
    return mi->reason ? 0 : -1;
}

static int compile_metric(struct gt_engine *e, size_t i)
{
    const struct gt_metric_def *def = &e->l->metrics[i];
    struct metric_info *mi = &e->m[i];
    size_t r, nrefs = gt_expr_nrefs(def->expr);
    struct gt_ref_binding *b;

    if (mi->reason)
        return 0;
    b = calloc(nrefs ? nrefs : 1, sizeof(*b));
    if (!b)
        return -1;
    for (r = 0; r < nrefs; r++) {
        const struct gt_counter *k = &e->c->counters[mi->counter[r]];
        if (k->kind == GT_COUNTER_CONSTANT) {
            b[r].input = -1;
            b[r].constant = k->value;
        } else {
            b[r].input = input_for(e, mi->counter[r]);
        }
    }
    mi->reg = gt_program_add(e->prog, def->expr, b);
    free(b);
    return mi->reg < 0 ? -1 : 0;
}

struct gt_engine *gt_engine_new(const struct gt_layout *l, const struct gt_catalog *c)
{
    struct gt_engine *e = calloc(1, sizeof(*e));
    size_t i;

    if (!e)
        return NULL;
    e->l = l;
    e->c = c;
    e->nmetrics = l->nmetrics;
    e->m = calloc(l->nmetrics ? l->nmetrics : 1, sizeof(*e->m));
    e->input_of = malloc((c->ncounters ? c->ncounters : 1) * sizeof(int));
    e->inputs = calloc(c->ncounters ? c->ncounters : 1, sizeof(*e->inputs));
    if (!e->m || !e->input_of || !e->inputs)
        goto fail;
    for (i = 0; i < c->ncounters; i++)
        e->input_of[i] = -1;
    for (i = 0; i < l->nmetrics; i++)
        if (resolve_metric(e, i) < 0)
            goto fail;
    /* Inputs are numbered before the program exists; every counter any
     * available metric uses gets one. */
    for (i = 0; i < l->nmetrics; i++) {
        size_t r;
        if (e->m[i].reason)
            continue;
        for (r = 0; r < gt_expr_nrefs(l->metrics[i].expr); r++)
            if (c->counters[e->m[i].counter[r]].kind != GT_COUNTER_CONSTANT)
                input_for(e, e->m[i].counter[r]);
    }
    e->prog = gt_program_new(e->ninputs);
    if (!e->prog)
        goto fail;
    for (i = 0; i < l->nmetrics; i++)
        if (compile_metric(e, i) < 0)
            goto fail;
    /* One register past the program holds NaN for unavailable metrics. */
    e->regs = calloc(gt_program_nregs(e->prog) + 1, sizeof(double));
    e->result = calloc(l->nmetrics ? l->nmetrics : 1, sizeof(uint32_t));
    if (!e->regs || !e->result)
        goto fail;
    gt_program_init_regs(e->prog, e->regs);
    e->regs[gt_program_nregs(e->prog)] = NAN;
    for (i = 0; i < l->nmetrics; i++)
        e->result[i] = e->m[i].reg >= 0 ? (uint32_t)e->m[i].reg : (uint32_t)gt_program_nregs(e->prog);
    return e;
fail:
    gt_engine_free(e);
    return NULL;
}

void gt_engine_free(struct gt_engine *e)
{
    size_t i;

    if (!e)
        return;
    for (i = 0; e->m && i < e->nmetrics; i++) {
        free(e->m[i].reason);
        free(e->m[i].counter);
    }
    free(e->m);
    free(e->inputs);
    free(e->input_of);
    free(e->unres);
    free(e->regs);
    free(e->result);
    gt_program_free(e->prog);
    free(e);
}

/* 1 when counter r is a ratio the program reads and so reads counter k:
 * its denominator, or a counter on its slots (its numerator). */
static int ratio_reads(const struct gt_engine *e, size_t r, size_t k)
{
    const struct gt_counter *rc = &e->c->counters[r], *kc = &e->c->counters[k];

    if (e->input_of[r] < 0 || rc->kind != GT_COUNTER_RATIO || kc->kind == GT_COUNTER_CONSTANT)
        return 0;
    return rc->denominator == (int)k || kc->slot == rc->slot;
}

void gt_engine_used(const struct gt_engine *e, unsigned char *used)
{
    size_t r, k, n = e->c->ncounters;

    for (k = 0; k < n; k++)
        used[k] = e->input_of[k] >= 0;
    for (r = 0; r < n; r++)
        if (e->input_of[r] >= 0 && e->c->counters[r].kind == GT_COUNTER_RATIO)
            for (k = 0; k < n; k++)
                used[k] |= (unsigned char)ratio_reads(e, r, k);
}

int gt_engine_uses(const struct gt_engine *e, size_t k)
{
    size_t r;

    if (k >= e->c->ncounters)
        return 0;
    if (e->input_of[k] >= 0)
        return 1;
    for (r = 0; r < e->c->ncounters; r++)
        if (ratio_reads(e, r, k))
            return 1;
    return 0;
}

static void add_span(struct gt_span *sp, size_t *n, const struct gt_counter *k)
{
    sp[*n].first = k->slot;
    sp[*n].count = k->instances;
    (*n)++;
}

int gt_engine_spans(const struct gt_engine *e, struct gt_span **out, size_t *nout)
{
    const struct gt_catalog *c = e->c;
    struct gt_span *sp = malloc((2 * c->ncounters + 1) * sizeof(*sp));
    size_t k, n = 0;

    *out = NULL;
    *nout = 0;
    if (!sp)
        return -1;
    for (k = 0; k < c->ncounters; k++) {
        const struct gt_counter *kc = &c->counters[k];
        if (e->input_of[k] < 0 || kc->kind == GT_COUNTER_CONSTANT)
            continue;
        add_span(sp, &n, kc);
        if (kc->kind == GT_COUNTER_RATIO && kc->denominator >= 0)
            add_span(sp, &n, &c->counters[kc->denominator]);
    }
    *out = sp;
    *nout = gt_spans_normalize(sp, n, 4);
    return 0;
}

size_t gt_engine_nmetrics(const struct gt_engine *e) { return e->nmetrics; }

const char *gt_engine_unavailable(const struct gt_engine *e, size_t metric)
{
    return metric < e->nmetrics ? e->m[metric].reason : "no such metric";
}

int gt_engine_estimated(const struct gt_engine *e, size_t metric)
{
    const struct gt_expr *x;
    size_t i;
    int k;

    if (metric >= e->nmetrics || !(x = e->l->metrics[metric].expr))
        return 0;
    for (i = 0; i < gt_expr_nrefs(x); i++)
        if ((k = gt_catalog_find(e->c, gt_expr_ref_name(x, i))) >= 0 && e->c->counters[k].estimated)
            return 1;
    return 0;
}

size_t gt_engine_nunresolved(const struct gt_engine *e) { return e->nunres; }

const struct gt_unresolved *gt_engine_unresolved(const struct gt_engine *e, size_t i)
{
    return i < e->nunres ? &e->unres[i] : NULL;
}

/* Four running sums let the additions of a 12-core block overlap. */
static inline uint64_t sum_slots(const uint64_t *d, uint32_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    uint32_t j = 0;

    for (; j + 4 <= n; j += 4) {
        s0 += d[j];
        s1 += d[j + 1];
        s2 += d[j + 2];
        s3 += d[j + 3];
    }
    for (; j < n; j++)
        s0 += d[j];
    return s0 + s1 + s2 + s3;
}

/* The one place a counter's slots become the value expressions see: sums
 * in 64-bit integers first, then the mean and scale as doubles. */
static inline double reduce(const struct input *in, const uint64_t *d)
{
    double v = (double)sum_slots(d + in->slot, in->n);

    if (in->ratio)
        return gt_op_div(in->scale * v, (double)sum_slots(d + in->den_slot, in->n));
    if (in->mean)
        v = v / in->n;
    return v * in->scale;
}

void gt_engine_eval(struct gt_engine *e, const struct gt_snapshot *s, double *out)
{
    const struct input *in = e->inputs, *end = e->inputs + e->ninputs;
    double *r = e->regs;
    size_t i;

    for (; in < end; in++, r++)
        *r = reduce(in, s->deltas);
    gt_program_run(e->prog, e->regs);
    for (i = 0; i < e->nmetrics; i++)
        out[i] = e->regs[e->result[i]];
}

uint32_t gt_engine_instances(const struct gt_engine *e, size_t metric)
{
    return metric < e->nmetrics ? e->m[metric].instances : 1;
}

int gt_engine_instanced(const struct gt_engine *e, size_t metric)
{
    return metric < e->nmetrics && e->m[metric].instanced;
}

struct inst_ctx {
    const struct gt_engine *e;
    const struct gt_snapshot *s;
    const struct metric_info *mi;
    const struct gt_expr *expr;
    uint32_t inst;
};

/* One instance's value of a counter, reduced like a one-instance input. */
static double instance_value(const struct gt_engine *e, const struct gt_snapshot *s,
                             int counter, uint32_t inst)
{
    const struct gt_counter *k = &e->c->counters[counter];
    struct input in;

    if (inst >= k->instances)
        return NAN;
    memset(&in, 0, sizeof(in));
    in.slot = k->slot + inst;
    in.n = 1;
    in.scale = k->scale;
    in.ratio = k->kind == GT_COUNTER_RATIO && k->denominator >= 0;
    if (in.ratio)
        in.den_slot = e->c->counters[k->denominator].slot + inst;
    return reduce(&in, s->deltas);
}

static double ref_value(void *arg, size_t ref)
{
    const struct inst_ctx *x = arg;
    int counter = x->mi->counter[ref];
    const struct gt_counter *k = &x->e->c->counters[counter];
    struct input in;
    double v;

    if (k->kind == GT_COUNTER_CONSTANT)
        return k->value;
    if (gt_expr_ref_instanced(x->expr, ref))
        return instance_value(x->e, x->s, counter, x->inst);
    if (counter == x->mi->inst_counter ||
        (x->mi->inst_counter >= 0 && k->instances == x->mi->instances &&
         strcmp(k->block, x->e->c->counters[x->mi->inst_counter].block) == 0)) {
        /* As if every instance behaved like this one. */
        v = instance_value(x->e, x->s, counter, x->inst);
        if (k->kind == GT_COUNTER_DELTA && gt_layout_agg_for(x->e->l, k->block) == GT_AGG_SUM)
            v *= k->instances;
        return v;
    }
    memset(&in, 0, sizeof(in));
    in.slot = k->slot;
    in.n = k->instances;
    in.scale = k->scale;
    in.mean = gt_layout_agg_for(x->e->l, k->block) == GT_AGG_MEAN;
    in.ratio = k->kind == GT_COUNTER_RATIO && k->denominator >= 0;
    if (in.ratio)
        in.den_slot = x->e->c->counters[k->denominator].slot;
    return reduce(&in, x->s->deltas);
}

double gt_engine_eval_instance(const struct gt_engine *e, const struct gt_snapshot *s,
                               size_t metric, uint32_t inst)
{
    struct inst_ctx x;

    if (metric >= e->nmetrics || e->m[metric].reason || inst >= e->m[metric].instances)
        return NAN;
    x.e = e;
    x.s = s;
    x.mi = &e->m[metric];
    x.expr = e->l->metrics[metric].expr;
    x.inst = inst;
    return gt_expr_eval(x.expr, ref_value, &x);
}

double gt_engine_seconds(const struct gt_snapshot *s)
{
    return (double)gt_snapshot_ns(s) / 1e9;
}

void gt_engine_size(const struct gt_engine *e, size_t *ninputs, size_t *ninstr)
{
    *ninputs = e->ninputs;
    *ninstr = gt_program_ninstr(e->prog);
}
