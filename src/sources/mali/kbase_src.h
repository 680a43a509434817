/* The opened mali source, shared by the file that runs it (kbase_source.c)
 * and the one that describes it for --probe (kbase_describe.c). */
#ifndef GPUTOP_SOURCES_MALI_KBASE_SRC_H
#define GPUTOP_SOURCES_MALI_KBASE_SRC_H

#include <stddef.h>
#include <stdint.h>

#include "gputop/kbase.h"

struct kbase_src {
    struct gt_kbase_dev dev;
    struct gt_kbase_reader reader;
    int reader_open;
    enum { IFACE_AUTO, IFACE_LEGACY, IFACE_KINSTR } forced, iface;
    struct gt_kbase_enable enabled;
    struct gt_kbase_frame frame;
    struct gt_kbase_map map;
    struct gt_kbase_map live;  /* the entries of map a sample writes: those
                                  select() asked for, or, capturing, all the
                                  reader has enabled; the others read zero,
                                  which the sampler's cleared round holds */
    unsigned char *want;       /* select()'s used[], per catalogue counter; NULL
                                  before select() or while capturing */
    int clock_counter[2];      /* catalogue index of the clock counters, -1 if none */
    uint64_t saturations, overflows;
    uint64_t period;           /* 0, or the period the kernel samples at */
    int started;
    int stashed;               /* frame holds what a change of period drained */
    int broken;                /* the last sample failed: reopen before the next */
    uint32_t cut;              /* values per block the reader delivers, if fewer than
                                  the table needs (0: all) */
    size_t ncut;               /* the table's counters left out for it */
};

#endif
