/* The amdgpu source's part of gputop --probe. */
#ifndef GPUTOP_AMDGPU_H
#define GPUTOP_AMDGPU_H

#include <stdio.h>
#include "gputop/source.h"

/* What an opened amdgpu source found: device, shape, clocks, where
 * activity, power and counters come from (or why not). */
void gt_amd_describe_source(const struct gt_source *s, FILE *out);

/* The amdgpu source's probe op: every GPU discovery lists (or the one
 * ARGS name), each opened as a source and a sample taken. */
enum gt_probe_result gt_amd_probe(const struct gt_probe *p, const char *args);

#endif
