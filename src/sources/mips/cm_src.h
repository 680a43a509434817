/* The mips-cm source's state, shared by mips_cm.c (opening, options,
 * description) and cm_run.c (starting, sampling, checking the block). */
#ifndef GPUTOP_SOURCES_MIPS_CM_SRC_H
#define GPUTOP_SOURCES_MIPS_CM_SRC_H

#include "gputop/source.h"
#include "cm.h"

struct cm_src {
    struct cm_gcr gcr;
    struct cm_mux mux;
    uint32_t qual[CM_NEVENTS];
    int qual_how[CM_NEVENTS];  /* CM_QUAL_*: the layout's, or which one counted */
    int present[CM_NEVENTS];   /* this CM has the event (and events= kept it) */
    int used[CM_NEVENTS];
    int pinned;                /* events= gave the events: exact, no rotation */
    int ovf_stop;
    uint32_t found_ov;         /* overflow bits set before we started, kept */
    long qual_window_ns;       /* per event when measuring qualifiers; 0: not measured */
    struct cm_slots slot;
    uint32_t run_ctl;          /* the control word while counting, without reset bits */
    uint32_t prog_event, prog_q0, prog_q1;   /* what we wrote, checked every sample */
    uint32_t prev_cycle, prev_c0, prev_c1, pair_cycle;
    uint64_t prev_ns;
    double hz;                 /* CM clock measured by the last sample, 0 before */
    int garbled;               /* the block read wrong: start over once it reads right */
    char lost[320];            /* why the block is no longer ours; "" while it is */
    enum gt_err lost_code;     /* and what kind of loss: NODEV, BUSY */
};

/* cm_run.c */
int  cm_run_start(struct gt_source *s, struct gt_diag *d);
enum gt_sample_result cm_run_sample(struct gt_source *s, struct gt_snapshot *out,
                                    struct gt_diag *d);
/* cm_describe.c: the detail line, again once qualifiers are measured. */
void cm_describe(struct gt_source *s);
/* probe_cm.c: the type's probe op, gt_mips_cm_probe when named. */
enum gt_probe_result cm_probe(const struct gt_probe *p, const char *args);

#endif
