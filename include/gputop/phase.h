/* Wall time of each part of a wake-up's work (a sampling round, its
 * publication, a refresh's parts), for bench/phase_cost.sh. Compiled in
 * only with -DGT_PHASES, in the benchmark's own build of gputop; in every
 * other build each call is an empty inline and costs nothing. */
#ifndef GPUTOP_PHASE_H
#define GPUTOP_PHASE_H

#include <stdint.h>

/* The sampler thread's phases first, then the display's (phases.c keeps a
 * log per thread and tells them apart by that order). */
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

/* The two threads whose wake-ups are counted: a wake-up runs from the
 * return of the system call the thread slept in to the next such call. */
enum gt_waker {
    GT_WAKER_SAMPLER,
    GT_WAKER_DISPLAY,
    GT_NWAKERS
};

#ifdef GT_PHASES
uint64_t gt_phase_start(void);
/* Each phase is stopped by one thread only (the enum says which). */
void gt_phase_stop(enum gt_phase p, uint64_t start);
/* A wake-up's bounds, for counting the pages and lines it touches
 * (bench/footprint.sh) and for splitting the thread's CPU time into awake
 * and asleep (bench/phase_cost.sh): each thread calls them around the
 * system call it sleeps in, and asleep once more when it stops. */
void gt_phase_awake(enum gt_waker w);
void gt_phase_asleep(enum gt_waker w);
#else
static inline uint64_t gt_phase_start(void) { return 0; }
static inline void gt_phase_stop(enum gt_phase p, uint64_t start)
{
    (void)p;
    (void)start;
}
static inline void gt_phase_awake(enum gt_waker w) { (void)w; }
static inline void gt_phase_asleep(enum gt_waker w) { (void)w; }
#endif

#endif
