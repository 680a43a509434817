/* The metric engine: binds a layout's expressions to a catalogue's
 * counters, reduces per-instance deltas by the layout's aggregation rules,
 * and runs the shared compiled program on each snapshot. */
#include "gputop/engine.h"
#include "gputop/expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_reduce.h"

/* Inputs of one kind over the same number of instances: reduced in one
 * loop whose count the compiler knows (reduce_run). */
struct in_run {
    uint8_t kind;
    uint32_t n;
    uint32_t begin, end;   /* into gt_engine.order */
};

/* How a reference reduces its counter's instances: by the layout's
 * aggregate rule, or by the document's suffix (SQ_BUSY_CYCLES_sum,
 * SQ_BUSY_CYCLES_avr) when the catalogue has only the bare name. */
enum { MODE_RULE, MODE_SUM, MODE_MEAN, NMODES };

/* The built-ins as counter indexes: $interval_ns (the snapshot's length in
 * nanoseconds, the AMD document's kernel time) and $GputopIntervalSeconds
 * (the same in seconds, for rates such as a clock). */
#define COUNTER_INTERVAL   (-2)
#define COUNTER_INTERVAL_S (-3)
#define IS_BUILTIN(k) ((k) == COUNTER_INTERVAL || (k) == COUNTER_INTERVAL_S)

/* One expression of a metric (value, peak or pop) bound to counters. */
struct bound {
    int reg;               /* result register, -1 if none or unavailable */
    int *counter;          /* per reference: catalogue index, -1 unknown,
                              COUNTER_INTERVAL */
    uint8_t *mode;         /* per reference: MODE_* */
    size_t missing;
    const char *first_missing;
};

enum { EXPR_VALUE, EXPR_PEAK, EXPR_POP, NEXPRS };

struct metric_info {
    int reg;               /* result register, -1 if unavailable */
    char *reason;          /* why unavailable */
    int from_source;       /* reason given by the source ("needs root: ...") */
    int *counter;          /* = b[EXPR_VALUE].counter */
    struct bound b[NEXPRS];
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
    int *input_of;         /* per catalogue counter and mode (k * NMODES + mode),
                              then $interval_ns: input register or -1 */
    struct metric_info *m;
    size_t nmetrics;
    struct gt_unresolved *unres;
    size_t nunres;
    double *regs;
    uint32_t *result;      /* per metric: the register to read (a NaN one if unavailable) */
    uint32_t *peak_result, *pop_result;  /* the same for peaks and pops */
    double *peak, *pop;    /* of the last gt_engine_eval */
    uint32_t *with_peak;   /* the metrics that have a peak, so evaluation */
    size_t nwith_peak;     /* touches no other metric's definition */
    uint32_t *order;       /* the counter inputs grouped by kind and count */
    struct in_run *runs;   /* ... one run per group (plan_inputs) */
    size_t nruns;
    uint64_t core_mask;    /* shader cores present; 0 unknown */
};

static const struct gt_expr *metric_expr(const struct gt_metric_def *def, int which)
{
    return which == EXPR_VALUE ? def->expr : which == EXPR_PEAK ? def->peak : def->pop;
}

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

static int mode_mean(const struct gt_engine *e, const struct gt_counter *k, int mode)
{
    if (mode == MODE_RULE)
        return gt_layout_agg_for(e->l, k->block) == GT_AGG_MEAN;
    return mode == MODE_MEAN;
}

/* Where input_of keeps the input of a counter reduced one way. */
static size_t input_at(const struct gt_engine *e, int counter, int mode)
{
    return counter == COUNTER_INTERVAL   ? e->c->ncounters * NMODES
         : counter == COUNTER_INTERVAL_S ? e->c->ncounters * NMODES + 1
                                         : (size_t)counter * NMODES + (size_t)mode;
}

static int input_for(struct gt_engine *e, int counter, int mode)
{
    const struct gt_counter *k;
    struct input *in;
    size_t at = input_at(e, counter, mode);

    if (e->input_of[at] >= 0)
        return e->input_of[at];
    in = &e->inputs[e->ninputs];
    e->input_of[at] = (int)e->ninputs;
    if (IS_BUILTIN(counter))
        return (int)e->ninputs++;   /* n = 0: filled from the snapshot's times */
    k = &e->c->counters[counter];
    in->slot = k->slot;
    in->n = k->instances;
    in->scale = k->scale;
    in->mean = (uint8_t)mode_mean(e, k, mode);
    in->ratio = k->kind == GT_COUNTER_RATIO && k->denominator >= 0;
    if (in->ratio)
        in->den_slot = e->c->counters[k->denominator].slot;
    return (int)e->ninputs++;
}

/* The catalogue counter a reference names, and how it reduces: the name
 * itself, the built-in interval, or a bare name with a _sum / _avr suffix. */
static int find_ref(const struct gt_catalog *c, const char *name, uint8_t *mode)
{
    static const struct { const char *suffix; uint8_t mode; } sfx[] = {
        { "_sum", MODE_SUM }, { "_avr", MODE_MEAN },
    };
    size_t i, n = strlen(name);
    char base[256];
    int k;

    *mode = MODE_RULE;
    if (strcmp(name, "interval_ns") == 0)
        return COUNTER_INTERVAL;
    if (strcmp(name, GT_ENGINE_INTERVAL) == 0)
        return COUNTER_INTERVAL_S;
    if ((k = gt_catalog_find(c, name)) >= 0)
        return k;
    for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        size_t sl = strlen(sfx[i].suffix);
        if (n <= sl || n - sl >= sizeof(base) || strcmp(name + n - sl, sfx[i].suffix) != 0)
            continue;
        memcpy(base, name, n - sl);
        base[n - sl] = '\0';
        if ((k = gt_catalog_find(c, base)) >= 0 && c->counters[k].kind != GT_COUNTER_CONSTANT) {
            *mode = sfx[i].mode;
            return k;
        }
    }
    return -1;
}

/* Why the source cannot read name (a _sum / _avr suffix stripped), or
 * NULL when it simply has no such counter. */
static const char *absent_reason(const struct gt_catalog *c, const char *name)
{
    size_t n = strlen(name);
    char base[256];

    if (gt_catalog_absent_reason(c, name))
        return gt_catalog_absent_reason(c, name);
    if (n <= 4 || n - 4 >= sizeof(base) ||
        (strcmp(name + n - 4, "_sum") != 0 && strcmp(name + n - 4, "_avr") != 0))
        return NULL;
    memcpy(base, name, n - 4);
    base[n - 4] = '\0';
    return gt_catalog_absent_reason(c, base);
}

/* Resolves the references of one expression of metric i; unknown names
 * are recorded for --check-layout. Returns 0, or -1 out of memory. */
static int resolve_expr(struct gt_engine *e, size_t i, int which)
{
    const struct gt_metric_def *def = &e->l->metrics[i];
    const struct gt_expr *x = metric_expr(def, which);
    struct bound *b = &e->m[i].b[which];
    int base_line = which == EXPR_VALUE ? def->line : which == EXPR_PEAK ? def->peak_line
                                                                          : def->pop_line;
    int base_col = which == EXPR_VALUE ? def->col : which == EXPR_PEAK ? def->peak_col
                                                                        : def->pop_col;
    size_t r, nrefs = x ? gt_expr_nrefs(x) : 0;

    b->reg = -1;
    b->counter = calloc(nrefs ? nrefs : 1, sizeof(int));
    b->mode = calloc(nrefs ? nrefs : 1, 1);
    if (!b->counter || !b->mode)
        return -1;
    for (r = 0; r < nrefs; r++) {
        const char *name = gt_expr_ref_name(x, r);
        int k = find_ref(e->c, name, &b->mode[r]), line, col;
        b->counter[r] = k;
        if (k != -1)
            continue;
        gt_expr_ref_pos(x, r, &line, &col);
        if (add_unresolved(e, name, i, base_line + line - 1,
                           line == 1 ? base_col + col - 1 : col) < 0)
            return -1;
        if (!b->first_missing)
            b->first_missing = name;
        b->missing++;
    }
    return 0;
}

/* Resolves every expression of metric i; returns 0, or -1 out of memory. */
static int resolve_metric(struct gt_engine *e, size_t i)
{
    const struct gt_metric_def *def = &e->l->metrics[i];
    struct metric_info *mi = &e->m[i];
    const struct bound *b = &mi->b[EXPR_VALUE];
    size_t r;
    char buf[256];
    int w;

    mi->reg = -1;
    mi->instances = 1;
    mi->inst_counter = -1;
    for (w = 0; w < NEXPRS; w++)
        if (resolve_expr(e, i, w) < 0)
            return -1;
    mi->counter = b->counter;
    for (r = 0; r < gt_expr_nrefs(def->expr); r++) {
        int k = b->counter[r];
        if (gt_expr_ref_instanced(def->expr, r))
            mi->instanced = 1;
        if (k >= 0 && e->c->counters[k].kind != GT_COUNTER_CONSTANT &&
            e->c->counters[k].instances > mi->instances) {
            mi->instances = e->c->counters[k].instances;
            mi->inst_counter = k;
        }
    }
    if (!b->missing)
        return 0;
    if (absent_reason(e->c, b->first_missing)) {
        snprintf(buf, sizeof(buf), "%s", absent_reason(e->c, b->first_missing));
        mi->from_source = 1;
    }
    else if (b->missing == 1)
        snprintf(buf, sizeof(buf), "this source has no counter $%s", b->first_missing);
    else
        snprintf(buf, sizeof(buf), "this source lacks $%s and %zu more counters",
                 b->first_missing, b->missing - 1);
    mi->reason = strdup(buf);
    return mi->reason ? 0 : -1;
}

/* Numbers the inputs of one expression (before the program exists). */
static void number_inputs(struct gt_engine *e, size_t i, int which)
{
    const struct gt_expr *x = metric_expr(&e->l->metrics[i], which);
    const struct bound *b = &e->m[i].b[which];
    size_t r;

    if (!x || b->missing || e->m[i].reason)
        return;
    for (r = 0; r < gt_expr_nrefs(x); r++)
        if (IS_BUILTIN(b->counter[r]) ||
            e->c->counters[b->counter[r]].kind != GT_COUNTER_CONSTANT)
            input_for(e, b->counter[r], b->mode[r]);
}

static int compile_expr(struct gt_engine *e, size_t i, int which)
{
    const struct gt_expr *x = metric_expr(&e->l->metrics[i], which);
    struct bound *bd = &e->m[i].b[which];
    size_t r, nrefs;
    struct gt_ref_binding *b;

    if (!x || bd->missing || e->m[i].reason)
        return 0;
    nrefs = gt_expr_nrefs(x);
    b = calloc(nrefs ? nrefs : 1, sizeof(*b));
    if (!b)
        return -1;
    for (r = 0; r < nrefs; r++) {
        int k = bd->counter[r];
        if (k >= 0 && e->c->counters[k].kind == GT_COUNTER_CONSTANT) {
            b[r].input = -1;
            b[r].constant = e->c->counters[k].value;
        } else {
            b[r].input = input_for(e, k, bd->mode[r]);
        }
    }
    bd->reg = gt_program_add(e->prog, x, b);
    free(b);
    return bd->reg < 0 ? -1 : 0;
}

static int compile_metric(struct gt_engine *e, size_t i)
{
    int w;

    for (w = 0; w < NEXPRS; w++)
        if (compile_expr(e, i, w) < 0)
            return -1;
    e->m[i].reg = e->m[i].b[EXPR_VALUE].reg;
    return 0;
}

static uint32_t result_reg(const struct gt_engine *e, int reg)
{
    return reg >= 0 ? (uint32_t)reg : (uint32_t)gt_program_nregs(e->prog);
}

static int alloc_results(struct gt_engine *e)
{
    size_t i, n = e->nmetrics ? e->nmetrics : 1;

    /* One register past the program holds NaN for unavailable metrics. */
    e->regs = calloc(gt_program_nregs(e->prog) + 1, sizeof(double));
    e->result = calloc(n, sizeof(uint32_t));
    e->peak_result = calloc(n, sizeof(uint32_t));
    e->pop_result = calloc(n, sizeof(uint32_t));
    e->peak = calloc(n, sizeof(double));
    e->pop = calloc(n, sizeof(double));
    e->with_peak = calloc(n, sizeof(uint32_t));
    if (!e->regs || !e->result || !e->peak_result || !e->pop_result || !e->peak || !e->pop ||
        !e->with_peak)
        return -1;
    gt_program_init_regs(e->prog, e->regs);
    e->regs[gt_program_nregs(e->prog)] = NAN;
    for (i = 0; i < e->nmetrics; i++) {
        e->result[i] = result_reg(e, e->m[i].reg);
        e->peak_result[i] = result_reg(e, e->m[i].b[EXPR_PEAK].reg);
        e->pop_result[i] = result_reg(e, e->m[i].b[EXPR_POP].reg);
        e->peak[i] = e->pop[i] = NAN;
        if (e->l->metrics[i].peak)
            e->with_peak[e->nwith_peak++] = (uint32_t)i;
    }
    return 0;
}

static int input_before(const struct input *x, const struct input *y)
{
    if (input_kind(x) != input_kind(y))
        return input_kind(x) < input_kind(y);
    return x->n < y->n;
}

/* Groups the counter inputs (the built-in intervals, n = 0, are filled
 * apart) by kind and instance count, so that evaluation runs a few tight
 * loops with no per-input branch. Order within a group: the catalogue's,
 * so the loads walk the snapshot forward. */
static int plan_inputs(struct gt_engine *e)
{
    size_t i, j, n = 0;

    e->order = malloc((e->ninputs ? e->ninputs : 1) * sizeof(*e->order));
    e->runs = malloc((e->ninputs ? e->ninputs : 1) * sizeof(*e->runs));
    if (!e->order || !e->runs)
        return -1;
    for (i = 0; i < e->ninputs; i++) {
        if (!e->inputs[i].n)
            continue;
        for (j = n; j > 0 && input_before(&e->inputs[i], &e->inputs[e->order[j - 1]]); j--)
            e->order[j] = e->order[j - 1];
        e->order[j] = (uint32_t)i;
        n++;
    }
    for (i = 0; i < n; i++) {
        const struct input *in = &e->inputs[e->order[i]];
        struct in_run *r = &e->runs[e->nruns ? e->nruns - 1 : 0];
        if (!e->nruns || r->kind != input_kind(in) || r->n != in->n) {
            r = &e->runs[e->nruns++];
            r->kind = (uint8_t)input_kind(in);
            r->n = in->n;
            r->begin = (uint32_t)i;
        }
        r->end = (uint32_t)i + 1;
    }
    return 0;
}

struct gt_engine *gt_engine_new(const struct gt_layout *l, const struct gt_catalog *c)
{
    struct gt_engine *e = calloc(1, sizeof(*e));
    size_t i, nin = c->ncounters * NMODES + 2;
    int w;

    if (!e)
        return NULL;
    e->l = l;
    e->c = c;
    e->nmetrics = l->nmetrics;
    e->m = calloc(l->nmetrics ? l->nmetrics : 1, sizeof(*e->m));
    e->input_of = malloc(nin * sizeof(int));
    e->inputs = calloc(nin, sizeof(*e->inputs));
    if (!e->m || !e->input_of || !e->inputs)
        goto fail;
    for (i = 0; i < nin; i++)
        e->input_of[i] = -1;
    for (i = 0; i < l->nmetrics; i++)
        if (resolve_metric(e, i) < 0)
            goto fail;
    /* Inputs are numbered before the program exists; every counter any
     * available metric uses gets one. */
    for (i = 0; i < l->nmetrics; i++)
        for (w = 0; w < NEXPRS; w++)
            number_inputs(e, i, w);
    e->prog = gt_program_new(e->ninputs);
    if (!e->prog || plan_inputs(e) < 0)
        goto fail;
    for (i = 0; i < l->nmetrics; i++)
        if (compile_metric(e, i) < 0)
            goto fail;
    if (alloc_results(e) < 0)
        goto fail;
    return e;
fail:
    gt_engine_free(e);
    return NULL;
}

void gt_engine_free(struct gt_engine *e)
{
    size_t i;
    int w;

    if (!e)
        return;
    for (i = 0; e->m && i < e->nmetrics; i++) {
        free(e->m[i].reason);
        for (w = 0; w < NEXPRS; w++) {
            free(e->m[i].b[w].counter);
            free(e->m[i].b[w].mode);
        }
    }
    free(e->m);
    free(e->inputs);
    free(e->order);
    free(e->runs);
    free(e->input_of);
    free(e->unres);
    free(e->regs);
    free(e->result);
    free(e->peak_result);
    free(e->pop_result);
    free(e->peak);
    free(e->pop);
    free(e->with_peak);
    gt_program_free(e->prog);
    free(e);
}

/* 1 when the program reads counter k under any reduction. */
static int counter_read(const struct gt_engine *e, size_t k)
{
    int m;

    for (m = 0; m < NMODES; m++)
        if (e->input_of[k * NMODES + (size_t)m] >= 0)
            return 1;
    return 0;
}

/* 1 when counter r is a ratio the program reads and so reads counter k:
 * its denominator, or a counter on its slots (its numerator). */
static int ratio_reads(const struct gt_engine *e, size_t r, size_t k)
{
    const struct gt_counter *rc = &e->c->counters[r], *kc = &e->c->counters[k];

    if (!counter_read(e, r) || rc->kind != GT_COUNTER_RATIO || kc->kind == GT_COUNTER_CONSTANT)
        return 0;
    return rc->denominator == (int)k || kc->slot == rc->slot;
}

void gt_engine_used(const struct gt_engine *e, unsigned char *used)
{
    size_t r, k, n = e->c->ncounters;

    for (k = 0; k < n; k++)
        used[k] = (unsigned char)counter_read(e, k);
    for (r = 0; r < n; r++)
        if (counter_read(e, r) && e->c->counters[r].kind == GT_COUNTER_RATIO)
            for (k = 0; k < n; k++)
                used[k] |= (unsigned char)ratio_reads(e, r, k);
}

int gt_engine_uses(const struct gt_engine *e, size_t k)
{
    size_t r;

    if (k >= e->c->ncounters)
        return 0;
    if (counter_read(e, k))
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
        if (!counter_read(e, k) || kc->kind == GT_COUNTER_CONSTANT)
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

int gt_engine_unavailable_by_source(const struct gt_engine *e, size_t metric)
{
    return gt_engine_unavailable(e, metric) && e->m[metric].from_source;
}

size_t gt_engine_unavailable_label(const struct gt_engine *e, size_t metric)
{
    const char *why = gt_engine_unavailable(e, metric);
    size_t n;

    if (!why || metric >= e->nmetrics || !e->m[metric].from_source)
        return 0;
    n = strcspn(why, ":");
    return n <= 24 ? n : 0;
}

/* 1 when any (any 1) or every (any 0) counter the metric's value reads
 * meets test; 0 for an unavailable metric. */
static int refs_meet(const struct gt_engine *e, size_t metric, int any,
                     int (*test)(const struct gt_engine *e, int k))
{
    const struct metric_info *mi;
    size_t r, n;

    if (metric >= e->nmetrics || gt_engine_unavailable(e, metric))
        return 0;
    mi = &e->m[metric];
    n = gt_expr_nrefs(e->l->metrics[metric].expr);
    for (r = 0; r < n; r++)
        if (test(e, mi->counter[r]) == any)
            return any;
    return !any;
}

/* The catalogue's flags are read now: a source may set them after the
 * engine was built (when it learns which counters are used). */
static int is_estimated(const struct gt_engine *e, int k)
{
    return k >= 0 && e->c->counters[k].estimated;
}

/* Builtins ($GputopIntervalSeconds) are negative: they change. */
static int is_constant(const struct gt_engine *e, int k)
{
    return k >= 0 && e->c->counters[k].kind == GT_COUNTER_CONSTANT;
}

int gt_engine_estimated(const struct gt_engine *e, size_t metric)
{
    return refs_meet(e, metric, 1, is_estimated);
}

int gt_engine_constant(const struct gt_engine *e, size_t metric)
{
    return refs_meet(e, metric, 0, is_constant);
}

size_t gt_engine_nunresolved(const struct gt_engine *e) { return e->nunres; }

const struct gt_unresolved *gt_engine_unresolved(const struct gt_engine *e, size_t i)
{
    return i < e->nunres ? &e->unres[i] : NULL;
}

#define RUN_LOOP(N)                                                          \
    for (k = run->begin; k < run->end; k++) {                                \
        uint32_t i = e->order[k];                                            \
        regs[i] = reduce_as(&e->inputs[i], d, (N), run->kind);               \
    }

/* One group of inputs; the usual counts get loops of their own, where the
 * sum is straight-line code. */
static void reduce_run(const struct gt_engine *e, const struct in_run *run, const uint64_t *d,
                       double *regs)
{
    uint32_t k;

    switch (run->n) {
    case 1: RUN_LOOP(1); break;
    case 2: RUN_LOOP(2); break;
    case 4: RUN_LOOP(4); break;
    case 8: RUN_LOOP(8); break;
    case 12: RUN_LOOP(12); break;
    case 16: RUN_LOOP(16); break;
    default: RUN_LOOP(run->n); break;
    }
}
#undef RUN_LOOP

/* Percent of peak: the layout's pop expression, else 100 * value / peak. */
static void eval_peaks(struct gt_engine *e, const double *out)
{
    size_t k;

    for (k = 0; k < e->nwith_peak; k++) {
        uint32_t i = e->with_peak[k];
        e->peak[i] = e->regs[e->peak_result[i]];
        e->pop[i] = e->l->metrics[i].pop ? e->regs[e->pop_result[i]]
                                         : gt_op_div(100.0 * out[i], e->peak[i]);
    }
}

void gt_engine_eval(struct gt_engine *e, const struct gt_snapshot *s, double *out)
{
    size_t i;
    int iv = e->input_of[e->c->ncounters * NMODES];
    int is = e->input_of[e->c->ncounters * NMODES + 1];

    for (i = 0; i < e->nruns; i++)
        reduce_run(e, &e->runs[i], s->deltas, e->regs);
    if (iv >= 0)
        e->regs[iv] = (double)gt_snapshot_ns(s);
    if (is >= 0)
        e->regs[is] = gt_engine_seconds(s);
    gt_program_run(e->prog, e->regs);
    for (i = 0; i < e->nmetrics; i++)
        out[i] = e->regs[e->result[i]];
    eval_peaks(e, out);
}

int gt_engine_has_peak(const struct gt_engine *e, size_t metric)
{
    return metric < e->nmetrics && e->l->metrics[metric].peak != NULL;
}

double gt_engine_peak(const struct gt_engine *e, size_t metric)
{
    return gt_engine_has_peak(e, metric) ? e->peak[metric] : NAN;
}

double gt_engine_pop(const struct gt_engine *e, size_t metric)
{
    return gt_engine_has_peak(e, metric) ? e->pop[metric] : NAN;
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
    enum gt_instance_mode mode;
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
    int counter = x->mi->counter[ref], mode = x->mi->b[EXPR_VALUE].mode[ref];
    const struct gt_counter *k;
    struct input in;
    double v;

    if (counter == COUNTER_INTERVAL)
        return (double)gt_snapshot_ns(x->s);
    if (counter == COUNTER_INTERVAL_S)
        return gt_engine_seconds(x->s);
    k = &x->e->c->counters[counter];
    if (k->kind == GT_COUNTER_CONSTANT)
        return k->value;
    if (gt_expr_ref_instanced(x->expr, ref))
        return instance_value(x->e, x->s, counter, x->inst);
    if (counter == x->mi->inst_counter ||
        (x->mi->inst_counter >= 0 && k->instances == x->mi->instances &&
         strcmp(k->block, x->e->c->counters[x->mi->inst_counter].block) == 0)) {
        v = instance_value(x->e, x->s, counter, x->inst);
        if (x->mode == GT_INSTANCE_OWN)
            return v;
        /* As if every instance behaved like this one. */
        if (k->kind == GT_COUNTER_DELTA && !mode_mean(x->e, k, mode))
            v *= k->instances;
        return v;
    }
    memset(&in, 0, sizeof(in));
    in.slot = k->slot;
    in.n = k->instances;
    in.scale = k->scale;
    in.mean = (uint8_t)mode_mean(x->e, k, mode);
    in.ratio = k->kind == GT_COUNTER_RATIO && k->denominator >= 0;
    if (in.ratio)
        in.den_slot = x->e->c->counters[k->denominator].slot;
    return reduce(&in, x->s->deltas);
}

enum gt_instance_mode gt_engine_instance_mode(const struct gt_engine *e, size_t metric)
{
    enum gt_show show = metric < e->nmetrics ? e->l->metrics[metric].show : GT_SHOW_VALUE;

    return show == GT_SHOW_COUNT || show == GT_SHOW_BUCKET ? GT_INSTANCE_OWN : GT_INSTANCE_SCALED;
}

double gt_engine_eval_instance(const struct gt_engine *e, const struct gt_snapshot *s,
                               size_t metric, uint32_t inst)
{
    return gt_engine_eval_instance_as(e, s, metric, inst, gt_engine_instance_mode(e, metric));
}

double gt_engine_eval_instance_as(const struct gt_engine *e, const struct gt_snapshot *s,
                                  size_t metric, uint32_t inst, enum gt_instance_mode mode)
{
    struct inst_ctx x;

    if (metric >= e->nmetrics || e->m[metric].reason || inst >= e->m[metric].instances)
        return NAN;
    x.e = e;
    x.s = s;
    x.mi = &e->m[metric];
    x.expr = e->l->metrics[metric].expr;
    x.inst = inst;
    x.mode = mode;
    return gt_expr_eval(x.expr, ref_value, &x);
}

void gt_engine_set_core_mask(struct gt_engine *e, uint64_t mask) { e->core_mask = mask; }

static const char *instance_block(const struct gt_engine *e, size_t metric)
{
    int k = metric < e->nmetrics ? e->m[metric].inst_counter : -1;

    return k >= 0 ? e->c->counters[k].block : "";
}

/* The position of the (inst + 1)-th set bit of mask: the catalogue holds
 * the present cores in ascending order, without gaps. */
static uint32_t nth_set_bit(uint64_t mask, uint32_t inst)
{
    uint32_t bit;

    for (bit = 0; bit < 64; bit++)
        if (((mask >> bit) & 1) && inst-- == 0)
            return bit;
    return UINT32_MAX;
}

uint32_t gt_engine_instance_number(const struct gt_engine *e, size_t metric, uint32_t inst)
{
    uint32_t bit;

    if (!e->core_mask || strcmp(instance_block(e, metric), "shadercore") != 0)
        return inst;
    bit = nth_set_bit(e->core_mask, inst);
    return bit == UINT32_MAX ? inst : bit;
}

const char *gt_engine_instance_block(const struct gt_engine *e, size_t metric)
{
    return instance_block(e, metric);
}


void gt_engine_size(const struct gt_engine *e, size_t *ninputs, size_t *ninstr)
{
    *ninputs = e->ninputs;
    *ninstr = gt_program_ninstr(e->prog);
}
