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

/* A name every expression may use besides the catalogue's: the length of
 * the snapshot's interval in seconds, so layouts can write rates
 * ($MaliGPUClockCycles / $GputopIntervalSeconds). No data when the
 * interval is unknown (0 s). */
#define GT_ENGINE_INTERVAL "GputopIntervalSeconds"

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
/* 1 when the metric is unavailable because its source said a counter it
 * knows cannot be read in this run (gt_catalog_add_absent: no permission,
 * not in a capture), 0 when no such counter exists here at all. */
int gt_engine_unavailable_by_source(const struct gt_engine *e, size_t metric);
size_t gt_engine_unavailable_label(const struct gt_engine *e, size_t metric);
/* 1 when a counter the metric reads is an estimate (its source rotates
 * counters over fewer hardware counters and scales the counts): views
 * mark such values with '~'. Read when shown: sources decide at select. */
int gt_engine_estimated(const struct gt_engine *e, size_t metric);
/* 1 when the metric reads only the device's constants (shader core count,
 * bus width): its value never changes, so it gets no bar or sparkline. */
int gt_engine_constant(const struct gt_engine *e, size_t metric);
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
/* How one instance's value of a metric is read:
 * - OWN: counters of the instance's block take the instance's own value,
 *   so a count is that core's (slice's, cluster's) own count. Under a sum
 *   rule the instances' rows add up to the metric's total; under a mean
 *   rule the total is the per-instance mean, so the rows average to it.
 * - SCALED: as if every instance behaved like this one (times the instance
 *   count under a sum rule), so ratios and percentages whose expressions
 *   divide by GPU-wide figures read per instance.
 * References written with an instance range take the instance's raw value
 * in both. */
enum gt_instance_mode { GT_INSTANCE_OWN, GT_INSTANCE_SCALED };
/* OWN for count kinds (show count, bucket), SCALED for the rest. */
enum gt_instance_mode gt_engine_instance_mode(const struct gt_engine *e, size_t metric);
/* The metric evaluated for one instance, in the metric's own mode. */
double gt_engine_eval_instance(const struct gt_engine *e, const struct gt_snapshot *s,
                               size_t metric, uint32_t inst);
double gt_engine_eval_instance_as(const struct gt_engine *e, const struct gt_snapshot *s,
                                  size_t metric, uint32_t inst, enum gt_instance_mode mode);
/* The shader cores present, bit N for core N (the kbase core mask), so
 * that instance names carry the physical core numbers; 0 (the default)
 * when unknown: cores are then numbered 0..n-1. */
void gt_engine_set_core_mask(struct gt_engine *e, uint64_t mask);
/* The number instance inst of a metric goes by: a shader core's physical
 * number (mask 0x177: instances 0..6 are cores 0, 1, 2, 4, 5, 6, 8), else
 * inst itself. */
uint32_t gt_engine_instance_number(const struct gt_engine *e, size_t metric, uint32_t inst);
/* The catalogue block a metric's instances come from ("shadercore"), "" none:
 * what they are called is the catalogue's (gt_catalog_block_noun). */
const char *gt_engine_instance_block(const struct gt_engine *e, size_t metric);
/* Size of the compiled form: counters read per snapshot, instructions run. */
void gt_engine_size(const struct gt_engine *e, size_t *ninputs, size_t *ninstr);

/* Seconds in the snapshot's interval (0 when unknown); inline, as every
 * evaluation that reads $GputopIntervalSeconds computes it. */
static inline double gt_engine_seconds(const struct gt_snapshot *s)
{
    return (double)gt_snapshot_ns(s) / 1e9;
}

#endif
