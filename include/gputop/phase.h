/* Wall time of each part of a wake-up's work (a sampling round, its
 * publication, a refresh's parts), for bench/phase_cost.sh. Compiled in
 * only with -DGT_PHASES, in the benchmark's own build of gputop; in every
 * other build each call is an empty inline and costs nothing. */
#ifndef GPUTOP_PHASE_H
#define GPUTOP_PHASE_H

#include <stdint.h>

enum gt_phase {
    GT_PHASE_SAMPLE,     /* sampler thread: the sources' round */
    GT_PHASE_PUBLISH,    /* sampler thread: handing it over (not the wake) */
    GT_PHASE_WAKE,       /* sampler thread: waking the display (eventfd write) */
    GT_PHASE_TAKE,       /* display thread: the snapshot, metrics, triage, history */
    GT_PHASE_COMPOSE,    /* display thread: the frame into the cell buffer */
    GT_PHASE_RENDER,     /* display thread: the changed cells as terminal bytes */
    GT_PHASE_WRITE,      /* display thread: those bytes to the terminal */
    GT_NPHASES
};

#ifdef GT_PHASES
uint64_t gt_phase_start(void);
/* Each phase is stopped by one thread only (the enum says which). */
void gt_phase_stop(enum gt_phase p, uint64_t start);
#else
static inline uint64_t gt_phase_start(void) { return 0; }
static inline void gt_phase_stop(enum gt_phase p, uint64_t start)
{
    (void)p;
    (void)start;
}
#endif

#endif
