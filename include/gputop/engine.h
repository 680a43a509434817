/* The metric engine: a layout compiled against a source's catalogue,
 * evaluated on snapshots. */
#ifndef GPUTOP_ENGINE_H
#define GPUTOP_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/catalog.h"
#include "gputop/diag.h"
#include "gputop/layout.h"
#include "gputop/snapshot.h"

struct gt_engine;

/* A counter name the catalogue lacks, where the layout uses it. */
struct gt_unresolved {
    const char *name;      /* without '$' */
    size_t metric;
    int line, col;         /* in the layout file */
};

/* Compiles every metric of l against c. A reference resolves to the
 * catalogue counter of that name; else $interval_ns is the snapshot's
 * length in nanoseconds, and NAME_sum / NAME_avr is counter NAME summed /
 * averaged over its instances whatever the aggregate rule says. Metrics
 * naming counters that c lacks are kept as unavailable; the rest work.
 * NULL only when out of memory. The engine borrows l and c; both must outlive it. */
struct gt_engine *gt_engine_new(const struct gt_layout *l, const struct gt_catalog *c);
void gt_engine_free(struct gt_engine *e);

size_t gt_engine_nmetrics(const struct gt_engine *e);
/* 1 when counter k of the catalogue feeds some metric (directly, or as the
 * denominator of a ratio counter that does). */
int gt_engine_uses(const struct gt_engine *e, size_t k);
/* The same for every counter at once: used[ncounters of the catalogue]. */
void gt_engine_used(const struct gt_engine *e, unsigned char *used);
/* The snapshot slots the engine reads (every metric, per-instance views
 * included), sorted and joined: *out is malloc'd, *n its length. Returns 0,
 * or -1 out of memory. */
int gt_engine_spans(const struct gt_engine *e, struct gt_span **out, size_t *n);
/* NULL when the metric is available, else why not. */
const char *gt_engine_unavailable(const struct gt_engine *e, size_t metric);
/* When the source said why (its reason "needs root: sudo ..."), the length
 * of the short label before the colon a row can show; else 0. */
size_t gt_engine_unavailable_label(const struct gt_engine *e, size_t metric);
/* 1 when the metric's value reads a multiplexed counter (an estimate). */
int gt_engine_estimated(const struct gt_engine *e, size_t metric);
size_t gt_engine_nunresolved(const struct gt_engine *e);
const struct gt_unresolved *gt_engine_unresolved(const struct gt_engine *e, size_t i);

/* Evaluates every metric on s into out[nmetrics]. NaN means no data
 * (including unavailable metrics). Not thread-safe per engine. */
void gt_engine_eval(struct gt_engine *e, const struct gt_snapshot *s, double *out);

/* A metric's theoretical peak (its layout 'peak') and percent of peak
 * ('pop', else 100 * value / peak) as of the last gt_engine_eval on e;
 * NaN without a peak or without data. */
int    gt_engine_has_peak(const struct gt_engine *e, size_t metric);
double gt_engine_peak(const struct gt_engine *e, size_t metric);
double gt_engine_pop(const struct gt_engine *e, size_t metric);

/* Number of instances a metric can be broken down by (shader cores, L2
 * slices, CPU clusters): the largest instance count among the counters it
 * uses; 1 when it uses only global counters. */
uint32_t gt_engine_instances(const struct gt_engine *e, size_t metric);
/* 1 when the metric's expression asks for one value per instance
 * (".Cluster[0..N]"). */
int gt_engine_instanced(const struct gt_engine *e, size_t metric);
/* The metric evaluated for one instance. Counters of that block take the
 * instance's own value, scaled as if every instance behaved like it (times
 * the instance count under a sum rule); references written with an
 * instance range take the instance's raw value. */
double gt_engine_eval_instance(const struct gt_engine *e, const struct gt_snapshot *s,
                               size_t metric, uint32_t inst);
/* Size of the compiled form: counters read per snapshot, instructions run. */
void gt_engine_size(const struct gt_engine *e, size_t *ninputs, size_t *ninstr);

/* Seconds in the snapshot's interval (0 when unknown). */
double gt_engine_seconds(const struct gt_snapshot *s);

#endif
