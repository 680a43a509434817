/* What the simulated source takes by name: its families, the GPUs it can
 * stand in for and its scenes, for its messages, --help and --list-sources. */
#ifndef GPUTOP_SIM_H
#define GPUTOP_SIM_H

#include <stddef.h>
#include <stdio.h>

/* Comma-separated lists into buf (cut at len): the family names
 * ("mali-t8xx, ..., mips-cm"), the Mali GPUs with a counter table
 * ("T760, ..., G925") and each family's scenes. */
void gt_sim_family_list(char *buf, size_t len);
void gt_sim_gpu_list(char *buf, size_t len);
void gt_sim_scene_list(char *buf, size_t len);

/* The three lists as "families: ...", "GPUs: ...", "scenes: ..." lines,
 * each wrapped to 80 columns after indent spaces. */
void gt_sim_print_names(FILE *out, int indent);

/* Each model's own scenes, as its scene= takes them. */
const char *gt_sim_amd_scenes(void);
const char *gt_sim_cm_scenes(void);

#endif
