/* The amdgpu source's part of gputop --probe. */
#ifndef GPUTOP_AMDGPU_H
#define GPUTOP_AMDGPU_H

#include <stdio.h>
#include "gputop/source.h"

/* What an opened amdgpu source found: device, shape, clocks, where
 * activity, power and counters come from (or why not). */
void gt_amd_describe_source(const struct gt_source *s, FILE *out);

/* gputop --probe for AMD GPUs: every one discovery lists (or the node in
 * spec "amdgpu:/dev/dri/renderD128"), each opened as a source, a sample
 * taken. Returns 0 when one worked, 1 otherwise, -1 when there is none. */
int gt_amd_probe(const char *spec, const struct gt_sys *sys, FILE *out);

#endif
