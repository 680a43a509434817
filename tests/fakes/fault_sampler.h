/* The end-to-end half of the fault tests: a source on a fault_sys seam
 * runs under the real sampler thread; the device vanishes, the sampler's
 * state (what the header shows as RETRYING, batch output as no data) must
 * say so with the source's message, and once the device is back counting
 * must resume in published snapshots. */
#ifndef GPUTOP_TEST_FAULT_SAMPLER_H
#define GPUTOP_TEST_FAULT_SAMPLER_H

#include "fakes/fault_sys.h"
#include "gputop/source.h"

/* src (opened and started on fs->sys) sampled every 10 ms; counter is a
 * catalogue index that counts while the device is there. While gone,
 * calls fail with err, and the sampler's last error must carry code want.
 * Asserts (Criterion) each step, polling with generous time-outs; leaves
 * src open. */
void fault_sampler_vanish_and_return(struct gt_source *src, struct fault_sys *fs, int err,
                                     int counter, enum gt_err want);

/* src (opened and started) under the sampler until a sample fails; st
 * gets the sampler's stats then. Asserts that one does in time. */
struct gt_sampler_stats;
void fault_sampler_first_error(struct gt_source *src, struct gt_sampler_stats *st);

#endif
