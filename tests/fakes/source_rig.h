/* What the Mali and AMD source harnesses share: a real source bound to its
 * real layout and engine (only the counters the layout reads enabled),
 * sampled one interval at a time, its counters read back by name. */
#ifndef GPUTOP_TEST_SOURCE_RIG_H
#define GPUTOP_TEST_SOURCE_RIG_H

#include <stdint.h>
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"

/* Builds *e for l on s's catalogue, selects what it reads, starts s and
 * sizes snap; asserts each step. */
void rig_bind(struct gt_source *s, const struct gt_layout *l, struct gt_engine **e,
              struct gt_snapshot *snap, struct gt_diag *d);
/* One sample into a zeroed snap: the source's result (0, 2 warning, -1). */
int rig_sample(struct gt_source *s, struct gt_snapshot *snap, struct gt_diag *d);
/* Instance inst of counter name in snap; asserts both exist. */
uint64_t rig_counter(const struct gt_source *s, const struct gt_snapshot *snap,
                     const char *name, uint32_t inst);

#endif
