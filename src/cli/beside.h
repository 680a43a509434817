/* Sources that run beside the GPU's (mips-cm, sim:mips-cm): what run.c
 * does for them — their layouts appended, the layout's options handed
 * over, their estimates marked, and their description in a capture. */
#ifndef GPUTOP_CLI_BESIDE_H
#define GPUTOP_CLI_BESIDE_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/layout.h"
#include "gputop/source.h"

/* Appends to l the sections of every other layout the sources name (a
 * source's layout field may list several, blank-separated: a capture
 * made beside another source). chosen: l is the user's --layout, which
 * replaces the first source's own layout (its first name) rather than
 * joining it. Returns 0, or -1 after printing why. */
int  gt_beside_append_layouts(struct gt_layout *l, struct gt_source *const *src, size_t n,
                              int chosen);
/* Hands each 'option SOURCE KEY=VALUE' line of l to the sources of that
 * name or family that take settings. Returns 0, or -1 after printing why. */
int  gt_beside_configure(const struct gt_layout *l, struct gt_source *const *src, size_t n);
/* Marks in merged the counters the sources say are estimates (after select). */
void gt_beside_copy_estimated(struct gt_catalog *merged, struct gt_source *const *src, size_t n);
/* The first source's description with the others' detail and layouts added,
 * as a capture records it. */
void gt_beside_capture_info(struct gt_source_info *info, struct gt_source *const *src, size_t n);
/* ns, or less when a source's counters would wrap (said on stderr). */
uint64_t gt_beside_interval(uint64_t ns, struct gt_source *const *src, size_t n);

#endif
