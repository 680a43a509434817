/* The MIPS coherency manager source's entry points outside the source
 * table: the --probe report. */
#ifndef GPUTOP_MIPS_CM_H
#define GPUTOP_MIPS_CM_H

#include <stdio.h>
#include "gputop/catalog.h"
#include "gputop/sys.h"

/* CMCycles and the eleven events, by the names the source gives them
 * (table name "mips-cm"), for CSV import. */
const struct gt_counter_table *gt_mips_cm_counter_table(void);
/* Adds every counter the mips-cm source offers (events and register
 * state), as --check-layout --gpu mips-cm resolves names. 0 or -1. */
int gt_mips_cm_catalog(struct gt_catalog *c);

/* --probe --source mips-cm[:ARGS]: finds and validates the GCR block and
 * prints its revision, base, counters and the perf registers' current
 * state, reading only (CM3 parts included). Returns 0, or 1 when no
 * usable block was found. */
int gt_mips_cm_probe(const char *args, const struct gt_sys *sys, FILE *out);

#endif
