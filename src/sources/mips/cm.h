/* The MIPS coherency manager's performance registers (GCR debug block),
 * shared by the mips-cm source's files: gcr.c (finding, mapping, checking
 * and accessing the block), mux.c (rotating event pairs over the two
 * counters) and mips_cm.c (the source operations). Register facts: the
 * vendor document "CM Performance Registers" and reference/mips/cm.md. */
#ifndef GPUTOP_SOURCES_MIPS_CM_H
#define GPUTOP_SOURCES_MIPS_CM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "gputop/diag.h"
#include "gputop/sys.h"

/* Offsets from the GCR base. Only GCR_BASE, GCR_REV and GCR_CONFIG of the
 * global block are read; only the eight PC registers are ever written. */
#define CM_GCR_SIZE        0x8000u
#define CM_GCR_CONFIG      0x0000u
#define CM_GCR_BASE        0x0008u
#define CM_GCR_REV         0x0030u
#define CM_GDB             0x6000u   /* global debug block */
#define CM_PC_CTL          (CM_GDB + 0x100u)
#define CM_PC_OV           (CM_GDB + 0x120u)
#define CM_PC_EVENT        (CM_GDB + 0x130u)
#define CM_PC_CYCLE        (CM_GDB + 0x180u)
#define CM_PC_QUAL0        (CM_GDB + 0x190u)
#define CM_PC_CNT0         (CM_GDB + 0x198u)
#define CM_PC_QUAL1        (CM_GDB + 0x1a0u)
#define CM_PC_CNT1         (CM_GDB + 0x1a8u)

/* GCR_DB_PC_CTL fields. */
#define CM_CTL_INT_EN      (1u << 30)
#define CM_CTL_OVF_STOP    (1u << 29)
#define CM_CTL_P1_RESET    (1u << 9)
#define CM_CTL_P1_COUNTON  (1u << 8)
#define CM_CTL_P0_RESET    (1u << 7)
#define CM_CTL_P0_COUNTON  (1u << 6)
#define CM_CTL_CY_RESET    (1u << 5)
#define CM_CTL_CY_COUNTON  (1u << 4)
#define CM_CTL_NUM_CNT     0xfu
#define CM_CTL_COUNTON     (CM_CTL_P1_COUNTON | CM_CTL_P0_COUNTON | CM_CTL_CY_COUNTON)
#define CM_CTL_RESETS      (CM_CTL_P1_RESET | CM_CTL_P0_RESET | CM_CTL_CY_RESET)

/* GCR_DB_PC_OV bits (write 1 to clear). */
#define CM_OV_CYCLE        (1u << 0)
#define CM_OV_P0           (1u << 1)
#define CM_OV_P1           (1u << 2)
#define CM_OV_ALL          (CM_OV_CYCLE | CM_OV_P0 | CM_OV_P1)

#define CM_GCR_BASE_MASK   0xffff8000u   /* GCRBASE [31:15] */
#define CM_DEFAULT_BASE    0x1fbf8000ull /* U-Boot's MIPS_CM_BASE default */
#define CM_MAP_ALIGN       0x10000u      /* covers 4, 16 and 64 KiB pages */
#define CM_NEVENTS         11

/* One event of the document's table. */
struct cm_event {
    unsigned number;         /* value of P0_Event / P1_Event */
    const char *counter;     /* catalogue name, also the CSV column */
    const char *title;       /* the document's name */
};
extern const struct cm_event cm_events[CM_NEVENTS];
/* Index into cm_events of a catalogue name, or -1. */
int cm_event_find(const char *counter);

/* Register-state counters for the bring-up view: each sample adds the
 * current value, so value / $CMSamples is the state (a mean if merged). */
enum { CM_R_SAMPLES, CM_R_P0EVENT, CM_R_P1EVENT, CM_R_COUNTON, CM_R_OVFSTOP, CM_R_OVERFLOWS,
       CM_R_PAIRS, CM_R_QUAL0, CM_R_QUAL1, CM_R_WRAPS, CM_NREG };

#define CM_NO_SLOT UINT32_MAX

/* Catalogue slots of the CM counters; CM_NO_SLOT for an event this CM
 * lacks (its metrics then say so instead of showing 0). */
struct cm_slots {
    uint32_t cycles, event[CM_NEVENTS], age[CM_NEVENTS], qual[CM_NEVENTS], reg[CM_NREG];
};

struct gt_catalog;
/* Adds CMCycles, one counter per event present (cm_events order; NULL:
 * all), its age (NAMEAge) and qualifier in use (NAMEQual) as register-state
 * counters, and the register counters; returns 0 or -1 out of memory. */
int cm_catalog_add(struct gt_catalog *cat, struct cm_slots *slots, const int *present);
/* Which events a CM has: IOCU events by GCR_CONFIG's IOCU count, L2
 * events on a CM2.5 or later (the L2 inside the CM). */
void cm_events_present(uint32_t rev, uint32_t config, int *present);
/* Marks the used events' counters as estimates when they take turns. */
void cm_catalog_mark(struct gt_catalog *cat, const int *used, int multiplexed);

/* The perf registers as saved before use and put back on close. */
struct cm_regs {
    uint32_t ctl, ov, event, cycle, qual0, cnt0, qual1, cnt1;
};

/* A mapped, validated GCR block. */
struct cm_gcr {
    const struct gt_sys *sys;
    int fd;
    void *map;
    size_t map_len;
    volatile uint8_t *regs;  /* the GCR base inside map */
    uint64_t base;
    uint32_t rev, config;
    char how[64];            /* where the base came from */
    struct cm_regs saved;
    int saved_ok, touched;
    int gone;                /* a bus error: the block no longer answers */
    uint32_t fault_off;      /* the register whose access faulted */
    int foreign;             /* another agent reprogrammed the counters */
    int caught;              /* our SIGBUS handler is installed */
    struct sigaction old_bus;
    int lock_fd;             /* flock held on lock_path, -1 none */
    char lock_path[256];
};

#define CM_BUS_ERROR (-2)
/* Runs fn with bus errors (SIGBUS) from GCR accesses caught: fn's result,
 * or CM_BUS_ERROR when an access faulted (then g->gone is set and
 * g->fault_off names the register; nothing touches the block again). */
int cm_guarded(struct cm_gcr *g, int (*fn)(struct cm_gcr *g, void *arg), void *arg);
const char *cm_reg_name(uint32_t off);
/* Takes the lock that keeps two gputops off one block (flock on a file in
 * /run/lock, else /tmp, below sys->root); 0, or -1 with d naming the
 * holder. Without a lock directory, 0 and no lock. */
int  cm_gcr_lock(struct cm_gcr *g, struct gt_diag *d);
void cm_gcr_unlock(struct cm_gcr *g);

/* Finds the base: arg (a number, or "default" for the opt-in built-in
 * address), else the device tree's mti,mips-cm node. Returns 0 or -1. */
int  cm_find_base(const struct gt_sys *sys, const char *arg, uint64_t *base, char *how,
                  size_t howlen, struct gt_diag *d);
/* Maps /dev/mem at base and validates it (GCR_BASE readback, GCR_REV
 * major 6..9, refusing 8 and up, Perf_Num_Cnt == 2) before any write.
 * Returns 0 or -1 with d set and nothing left open. */
int  cm_gcr_open(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base, struct gt_diag *d);
/* The same checks without refusing CM3 (for --probe, which only reads). */
int  cm_gcr_open_readonly(struct cm_gcr *g, const struct gt_sys *sys, uint64_t base,
                          struct gt_diag *d);
/* Puts back the saved perf registers (if any were changed) and unmaps. */
void cm_gcr_close(struct cm_gcr *g);
uint32_t cm_rd(const struct cm_gcr *g, uint32_t off);
/* Writes one of the eight PC registers; any other offset is refused. */
void cm_wr(struct cm_gcr *g, uint32_t off, uint32_t v);
void cm_gcr_read_regs(const struct cm_gcr *g, struct cm_regs *r);

/* Event multiplexing: the events in use, paired onto the two counters and
 * rotated one pair per sample; each event's rate per counted cycle is kept
 * from its latest counted window and applied to every interval, and its
 * age (records since that window ended) says how old the estimate is. */
struct cm_mux {
    int events[CM_NEVENTS];  /* cm_events indices in use */
    uint32_t qual[CM_NEVENTS];  /* qualifier per cm_events index */
    size_t nevents, npairs, cur;
    /* per cm_events index: counts and enabled cycles of the last window */
    uint64_t count[CM_NEVENTS], enabled[CM_NEVENTS];
    int have[CM_NEVENTS];
    uint32_t age[CM_NEVENTS];   /* 0: counted in the window just recorded */
};

void   cm_mux_init(struct cm_mux *m, const int *events, size_t n, const uint32_t *qual);
int    cm_mux_multiplexed(const struct cm_mux *m);
/* The events the counters hold in pair p (-1: counter unused). */
void   cm_mux_pair(const struct cm_mux *m, size_t p, int *e0, int *e1);
/* Records the counts of the current pair over enabled cycles. */
void   cm_mux_record(struct cm_mux *m, uint64_t c0, uint64_t c1, uint64_t enabled);
/* The estimate for event e over an interval of cycles: exact counts when
 * not multiplexed; -1 while the event has not been counted yet. */
int64_t cm_mux_estimate(const struct cm_mux *m, int e, uint64_t cycles);
void   cm_mux_next(struct cm_mux *m);

/* Where an event's qualifier came from. */
enum { CM_QUAL_UNMEASURED, CM_QUAL_LAYOUT, CM_QUAL_ZERO, CM_QUAL_ALL, CM_QUAL_NONE };
/* Counts event number on both counters for window_ns, qualifier 0 on
 * counter 0 and all ones on counter 1; ctl is the control word to keep
 * (interrupts off), whose P0/P1 bits are left off afterwards. */
void cm_qual_measure(struct cm_gcr *g, uint32_t ctl, unsigned number, long window_ns,
                     uint32_t *with0, uint32_t *withall);
/* The qualifier to use: 0 (the reset value) when it counted, else all ones
 * when that counted, else 0 with how CM_QUAL_NONE. */
uint32_t cm_qual_choose(uint32_t with0, uint32_t withall, int *how);

#endif
