/* A fake Arm Mali kbase kernel behind the system-call seam: /dev/mali0
 * with the version checks, context flags, GPU properties, the legacy
 * hardware-counter reader and kinstr_prfcnt, byte for byte as the kernel
 * headers lay them out. It decodes every argument by raw byte offset, not
 * through gputop's own structs, so the two check each other.
 *
 * GPUs: T830 (JM, old-style id 0x0830, 4 cores mask 0xF, 1 L2 slice, 64
 * values a block); G715 (CSF, id 0xB002, 7 cores in the sparse mask 0xEF,
 * 2 slices, 128 values); G720 (CSF, id 0xC000 sent as a u64, 12 cores in
 * the mask 0x1FFB, 2 slices, 128 values). All have a 128-bit bus. */
#ifndef GPUTOP_TEST_FAKE_KBASE_H
#define GPUTOP_TEST_FAKE_KBASE_H

#include <stdint.h>
#include "gputop/sys.h"

enum fk_api { FK_PRE_R21, FK_JM, FK_CSF };
enum fk_gpu { FK_T830, FK_G715, FK_G720, FK_G52, FK_G78 };
enum { FK_FE = 0, FK_TILER = 1, FK_MEMSYS = 2, FK_SHADER = 3 };

struct fk_config {
    enum fk_gpu gpu;
    enum fk_api api;
    unsigned major, minor;      /* pre-r21 10.x, JM 11.x, CSF 1.x */
    int open_errno;             /* open() of the device fails with it */
    unsigned long deny_request; /* this ioctl request fails with deny_errno */
    int deny_errno;
    int new_gate;               /* 1: EPERM before SET_FLAGS, properties and kinstr
                                   calls allowed early; 0: EINVAL for all but the
                                   version check and SET_FLAGS */
    int no_cycles;              /* legacy reader without the _WITH_CYCLES forms */
    uint64_t gpu_id;            /* if set, this RAW_GPU_ID instead of the GPU's own */
    uint64_t core_mask;         /* if set, this shader-core mask instead of the GPU's own */
    /* kinstr_prfcnt */
    unsigned nvalues;           /* if set, values per block (64: a CSF kernel whose
                                   PRFCNT_FEATURES was not valid) */
    int enum_shader;            /* shader instances ENUM_INFO reports: 0 the core
                                   count, FK_ENUM_FLS fls64(core mask) (upstream),
                                   else this number */
    int block_idx;              /* shader block_idx: 0 as the version implies (physical
                                   on 11.34-11.36 / 1.10-1.16), FK_IDX_PHYSICAL or
                                   FK_IDX_DENSE whatever the version */
    int stale_state;            /* block_state bits written on kernels older than the
                                   versions defining them (JM 11.41, CSF 1.23), where
                                   they mean nothing: the values are delivered anyway */
    /* legacy reader */
    unsigned page_size;         /* 0: 4096 */
    int old_mmap;               /* refuse a mapping longer than buffer_count * dump size
                                   (the older rule); else the page-rounded size */
    unsigned max_buffers;       /* setups asking for more fail with ENOMEM (pre-r21:
                                   in the header's ret); 0: no limit */
    int old_dump;               /* older vinstr: DUMP on a full ring fails with EPERM,
                                   and EBUSY means the GPU is suspended */
};
#define FK_ENUM_FLS (-1)
enum { FK_IDX_VERSION = 0, FK_IDX_PHYSICAL = 1, FK_IDX_DENSE = 2 };

struct fake_kbase;

struct fake_kbase *fk_new(const struct fk_config *cfg);
void fk_free(struct fake_kbase *fk);
const struct gt_sys *fk_sys(struct fake_kbase *fk);
/* Delta every following dump delivers at (block, logical instance, index). */
void fk_set_counter(struct fake_kbase *fk, int block, unsigned instance, unsigned index,
                    uint64_t delta);
/* kinstr block_state bits (ON 1, OFF 2, ..., PROTECTED 32); OFF and
 * PROTECTED blocks deliver zeros. */
void fk_set_block_state(struct fake_kbase *fk, int block, unsigned instance, uint32_t state);
void fk_set_time_step(struct fake_kbase *fk, uint64_t ns);   /* default 100 ms */
/* The fake's clock starts at 1000 s and moves only by fk_advance and by
 * manual dumps (the time step each); periodic readers fill their rings at
 * every tick it passes. fk_real_clock makes it follow CLOCK_MONOTONIC_RAW
 * (the kernel's sample clock) instead, for gputop running in real time,
 * and starts the fake's worker thread, "fk-kworker", which takes the
 * periodic ticks as they fall due, as a kernel worker does in kbase;
 * fk_free stops it. Every call into the fake takes one lock. */
void fk_advance(struct fake_kbase *fk, uint64_t ns);
void fk_real_clock(struct fake_kbase *fk);
int fk_clock_is_real(const struct fake_kbase *fk);
uint64_t fk_now(struct fake_kbase *fk);
void fk_set_cycles(struct fake_kbase *fk, uint64_t top, uint64_t shader);
void fk_lose_device(struct fake_kbase *fk);   /* every later ioctl, and open, fails with ENODEV */
void fk_restore_device(struct fake_kbase *fk);   /* the device is back (old fds stay dead) */
void fk_fill_ring(struct fake_kbase *fk);     /* queue dumps until every reader's ring is full */
/* The GPU is suspended for the next n legacy DUMP calls; an old_dump
 * kernel refuses them with EBUSY, a newer one dumps as usual. */
void fk_suspend(struct fake_kbase *fk, int n);
/* The same after the next `after` DUMP calls have passed. */
void fk_suspend_after(struct fake_kbase *fk, int after, int n);

struct fk_stats {
    int version_checks, set_flags, gpuprops_calls, reader_setups, enum_infos, kinstr_setups;
    int dumps, gets, puts, started, stopped, open_fds, mapped;
    uint64_t periodic;              /* samples the periodic modes wrote */
    uint64_t skipped;               /* periodic ticks that found the ring full */
    uint64_t period;                /* the last period a reader was given (ns) */
    uint32_t legacy_bm[4];          /* last legacy masks, by FK_ block */
    uint64_t kinstr_mask[4][2];     /* last kinstr ENABLE masks, by block type */
    int protocol_errors;            /* calls a real kernel would have rejected */
    char last_error[256];
};
/* The counts as of this call (the worker goes on counting): good until
 * the next call. */
const struct fk_stats *fk_stats(struct fake_kbase *fk);

#endif
