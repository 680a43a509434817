/* A fake MIPS coherency manager behind the system-call seam: /dev/mem with
 * a GCR block whose perf registers behave as the vendor document says —
 * reset bits clear a counter and its overflow bit on the write, CountOn
 * bits count, the overflow register is write-1-to-clear, counters wrap at
 * 2^32 or, with Perf_Ovf_Stop, all stop when one reaches 0xffffffff.
 * Time is the test's: counters move in fg_advance, by a few cycles per
 * register access if asked (a real bus access takes time), and, if a clock
 * rate is given, with CLOCK_MONOTONIC as a real CM clock does.
 * Qualifiers: an event given groups counts only when every group matches
 * ("the qualifier criteria is matched in all groups", vendor document
 * mips-cm-perf-registers.txt, Qualifier Registers). Bus errors: the block
 * is a memfd mapping that every access really touches; fg_bus_error
 * truncates it, so the next access raises a real SIGBUS, as a load nothing
 * answers does on MIPS (arch/mips/kernel/traps.c do_be -> SIGBUS). */
#ifndef GPUTOP_TEST_FAKE_GCR_H
#define GPUTOP_TEST_FAKE_GCR_H

#include <stdint.h>
#include "gputop/sys.h"

struct fg_config {
    uint64_t base;             /* physical address of the GCR block */
    uint32_t base_readback;    /* GCR_BASE value; 0: base itself (CMDEFTGT 0) */
    uint32_t rev;              /* GCR_REV; 0: 0x0700 (CM2.5) */
    uint32_t config;           /* GCR_CONFIG */
    uint32_t num_cnt;          /* Perf_Num_Cnt; 0: 2 */
    uint32_t access_cycles;    /* cycles that pass per register access */
    int open_errno;            /* /dev/mem open fails with it */
    const char *root;          /* root of /sys for the device tree, "" for none */
    uint64_t hz;               /* CM clock: cycles pass with CLOCK_MONOTONIC; 0: not */
    uint64_t cut_after_ns;     /* the block goes away (SIGBUS) this long after fg_new */
};

/* The perf registers, by name, as a test sets or checks them. */
struct fg_regs {
    uint32_t ctl, ov, event, cycle, qual0, cnt0, qual1, cnt1;
};

struct fake_gcr;

struct fake_gcr *fg_new(const struct fg_config *cfg);
void fg_free(struct fake_gcr *fg);
const struct gt_sys *fg_sys(struct fake_gcr *fg);
/* Events per 1000 cycles that event number ev (0..17) produces. */
void fg_set_rate(struct fake_gcr *fg, unsigned ev, uint32_t per_1000);
/* cycles CM clock cycles pass: counters that are on count. */
void fg_advance(struct fake_gcr *fg, uint64_t cycles);
void fg_get_regs(const struct fake_gcr *fg, struct fg_regs *r);
void fg_set_regs(struct fake_gcr *fg, const struct fg_regs *r);
/* The events each counter would have counted exactly since it was last
 * reset or set (no wrap), for checking estimates. */
uint64_t fg_true_events(const struct fake_gcr *fg, unsigned ev);

/* Qualifier groups of event ev (up to 4 masks; n 0: the qualifier does
 * not matter) and the attribute bits of its traffic: the event counts on a
 * counter only when, for every group g, qual & g & attr != 0. */
void fg_set_qual_groups(struct fake_gcr *fg, unsigned ev, const uint32_t *groups, int n,
                        uint32_t attr);
/* A bus error while on: the mapping's file is cut to nothing under it, so
 * every access raises SIGBUS; off gives the block back. Before mmap, the
 * mapping starts cut (nothing answers at the address). */
void fg_bus_error(struct fake_gcr *fg, int on);
/* While on, every register read gives 0xffffffff and writes are lost (what
 * some interconnects answer instead of a bus error, as a PCI read of an
 * absent device does: Linux include/linux/pci.h PCI_POSSIBLE_ERROR). */
void fg_all_ones(struct fake_gcr *fg, int on);
/* The CM clock changes (DVFS): cycles go on from here at hz. */
void fg_set_hz(struct fake_gcr *fg, uint64_t hz);
/* CM cycles since the fake began (for checking long intervals). */
uint64_t fg_now_cycles(struct fake_gcr *fg);
/* GCR_REV from now on (another block answering, a CM reset to other
 * firmware settings). */
void fg_set_rev(struct fake_gcr *fg, uint32_t rev);

struct fg_stats {
    int opens, maps, unmaps, open_fds, reads, writes;
    uint32_t log_off[256], log_val[256];   /* the first writes, in order */
    int nlog;
    uint32_t last_off[64], last_val[64];   /* the latest writes, ring by nwrites */
    int nwrites;
    int protocol_errors;       /* calls or accesses real hardware would not take */
    char last_error[256];
};
const struct fg_stats *fg_stats(const struct fake_gcr *fg);

#endif
