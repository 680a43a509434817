/* Inside the fake amdgpu kernel: the state fake_amdgpu.c (files, ioctls,
 * sysfs) and fake_amdgpu_regs.c (GC registers and performance counters)
 * share. */
#ifndef GPUTOP_TEST_FAKE_AMDGPU_INT_H
#define GPUTOP_TEST_FAKE_AMDGPU_INT_H

#include "fakes/fake_amdgpu.h"

#define FA_NFDS 32
#define FA_NREGS 512
#define FA_NRATES 512
#define FA_NBANK 6
#define FA_NCTR 8              /* data registers per bank, at most */
#define FA_NUNITS 128          /* (se * 2 + sa) * 16 + index; a channel */

enum fa_fd_type { FD_FREE, FD_NODE, FD_RUNTIME, FD_METRICS, FD_DRI_DIR, FD_REGS2, FD_GFXOFF,
                  FD_TEXT,     /* a small sysfs text file (base_addr, lockdown) */
                  FD_DEAD };   /* opened before an unbind: ENODEV for good */

struct fake_amdgpu {
    struct gt_sys sys;
    struct fa_config cfg;
    struct { enum fa_fd_type type; uint32_t se, sh, inst; int pos; char text[160]; } fd[FA_NFDS];
    char power[32];
    int has_power;
    unsigned char blob[264];
    size_t blob_len;
    uint32_t grbm[64][2];
    unsigned ngrbm, grbm_pos;
    struct { unsigned bank, event, unit; uint64_t per_ms; } rate[FA_NRATES];
    unsigned nrates;
    struct { unsigned bank, event, n, pct[16]; } load[64];
    unsigned nloads;
    unsigned long long clock_ns;   /* the manual clock */
    unsigned long long count_ns;   /* counters advanced up to this time */
    unsigned epoch;                /* sample latches so far: the load's phase */
    /* What a unit counted below one count (parts of 1e8: per ms x %). */
    uint64_t rem[FA_NBANK][FA_NCTR][FA_NUNITS];
    /* Counting values and the values the last sample latched. */
    uint64_t ctr[FA_NBANK][FA_NCTR][FA_NUNITS];
    uint64_t latched[FA_NBANK][FA_NCTR][FA_NUNITS];
    struct { uint32_t dword, value, initial; int written; } reg[FA_NREGS];
    unsigned nregs;
    uint32_t cu_bitmap[4][4];
    uint32_t base[2];          /* GC segment bases */
    uint32_t sensor[16];
    uint32_t ctx_alloc;
    int unplugged;
    unsigned long long gfx_released_ns;   /* last time a GFX-on request ended */
    int gfxoff_done;           /* GFXOFF periods GFX has come out of */
    struct fa_stats st;
};

/* fake_amdgpu.c */
void fa_protocol_error(struct fake_amdgpu *fa, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 1 while something keeps GFX powered: a GFXOFF request or a pstate. */
int fa_gfx_held(const struct fake_amdgpu *fa);

/* fake_amdgpu_regs.c: registers as the GC sees them, addressed by
 * absolute dword with GRBM_GFX_INDEX (se, sh, inst; 0xffffffff broadcast). */
uint32_t fa_reg_read(struct fake_amdgpu *fa, uint32_t se, uint32_t sh, uint32_t inst,
                     uint32_t dword);
void fa_reg_write(struct fake_amdgpu *fa, uint32_t se, uint32_t sh, uint32_t inst,
                  uint32_t dword, uint32_t v);
/* Counters brought up to the clock's now (before any state change). */
void fa_count_to_now(struct fake_amdgpu *fa);
/* Every register back at its power-on value, counts gone (D3, a reset). */
void fa_regs_power_on(struct fake_amdgpu *fa);
int fa_bank_by_name(const char *name);

#endif
