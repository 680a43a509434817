/* The fake kbase kernel's insides, shared by its two files: fake_kbase.c
 * (device, legacy reader, seam) and fake_kbase_kinstr.c (kinstr_prfcnt). */
#ifndef GPUTOP_TEST_FAKE_KBASE_INT_H
#define GPUTOP_TEST_FAKE_KBASE_INT_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "fakes/fake_kbase.h"

#define NFILES     16
#define FD_BASE    100
#define MAXINST    16
#define NVAL_MAX   128
#define RING       32          /* kinstr sample buffers */
#define MD_SIZE    48
#define ITEM_SIZE  32

enum { F_FREE, F_DEV, F_LEGACY, F_KINSTR };

struct file {
    int kind;
    int dead;                    /* opened before the device was lost */
    /* device */
    int version_set, flags_set, enum_done;
    /* legacy reader */
    uint32_t nbuf, bufsize, bm[4];
    uint8_t *ring;
    int queue[RING], nqueued, held;
    uint64_t ts[RING];           /* kernel time each buffer was dumped */
    uint32_t event[RING];        /* its event_id: 0 manual, 1 periodic */
    /* periodic mode (both readers): 0, or the period and the next tick */
    uint64_t period, next_tick;
    uint64_t owed;               /* ticks whose counts wait in the kernel's
                                    accumulator for room in the ring */
    uint32_t sample_flags;       /* kinstr: flags the next sample carries */
    /* kinstr reader */
    uint64_t mask[4][2];
    int periodic, started;
    uint8_t *buf;
    size_t slot_size, buf_len;
    uint64_t write_seq, read_seq;
    int pending, kheld;
    uint64_t last_ts;
};

struct fake_kbase {
    struct fk_config cfg;
    struct gt_sys sys;
    struct fk_stats st, st_seen;   /* the counts; the copy fk_stats hands out */
    uint64_t gpu_id, core_mask;
    int id_u64;
    unsigned cores, phys, slices, nvalues;
    uint64_t delta[4][MAXINST][NVAL_MAX];
    uint32_t state[4][MAXINST];
    uint64_t now, step, cyc_top, cyc_shader;
    int real_clock;             /* now follows CLOCK_MONOTONIC_RAW */
    /* One lock over all of the above, as kbase's vctx->lock and
     * kinstr_ctx->lock: every seam call and the worker take it. */
    pthread_mutex_t lock;
    /* Real clock only: the worker thread that takes the periodic ticks
     * (fake_kbase_clock.c), woken early when a reader's schedule changes. */
    pthread_cond_t wake;
    pthread_t worker;
    int worker_on, worker_stop;
    int lost, suspended;
    int suspend_after;          /* DUMP calls that pass before a suspension */
    struct file files[NFILES];
};

/* ---- little-endian access ---- */

static inline uint64_t get(const void *p, size_t off, size_t n)
{
    const uint8_t *b = (const uint8_t *)p + off;
    uint64_t v = 0;

    while (n--)
        v = (v << 8) | b[n];
    return v;
}

static inline void put(void *p, size_t off, size_t n, uint64_t v)
{
    uint8_t *b = (uint8_t *)p + off;
    size_t i;

    for (i = 0; i < n; i++, v >>= 8)
        b[i] = (uint8_t)v;
}

static inline int fail(int err)
{
    errno = err;
    return -1;
}

static inline void fkp_lock(struct fake_kbase *fk)
{
    pthread_mutex_lock(&fk->lock);
}

/* Keeps the errno the call under the lock set. */
static inline void fkp_unlock(struct fake_kbase *fk)
{
    int e = errno;

    pthread_mutex_unlock(&fk->lock);
    errno = e;
}

int fkp_protocol(struct fake_kbase *fk, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
struct file *fkp_file_of(struct fake_kbase *fk, int fd);
int fkp_new_file(struct fake_kbase *fk, int kind);
int fkp_phys_of(const struct fake_kbase *fk, unsigned logical);
unsigned fkp_instances(const struct fake_kbase *fk, int block);
unsigned fkp_enum_instances(const struct fake_kbase *fk, int block);
int fkp_has_kinstr(const struct fake_kbase *fk);
int fkp_buggy(const struct fake_kbase *fk);
int fkp_physical_idx(const struct fake_kbase *fk);
int fkp_state_defined(const struct fake_kbase *fk);
uint64_t fkp_value(const struct fake_kbase *fk, const uint64_t mask[2], int block,
                   unsigned inst, unsigned index);

/* fake_kbase_kinstr.c */
int fkp_enum_info(struct fake_kbase *fk, struct file *f, void *arg);
int fkp_kinstr_setup(struct fake_kbase *fk, struct file *dev, void *arg);
/* Writes one sample at the fake's current time whose values are ticks
 * dumps' worth, carrying flags (OVERFLOW, ERROR) in its metadata. */
void fkp_kinstr_write(struct fake_kbase *fk, struct file *r, uint64_t ticks, uint32_t flags);
int fkp_kinstr_ioctl(struct fake_kbase *fk, struct file *r, unsigned long req, void *arg);

/* fake_kbase.c */
void fkp_legacy_dump(struct fake_kbase *fk, struct file *r, uint64_t ticks, uint32_t event);
int fkp_legacy_free_buffers(const struct file *r);
void fkp_manual_step(struct fake_kbase *fk);

/* fake_kbase_clock.c: the clock and the periodic modes */
/* Moves the clock to the present on the real clock; with the worker
 * running, never past a periodic tick still to be taken (the worker's). */
void fkp_catch_up(struct fake_kbase *fk);
void fkp_run_to(struct fake_kbase *fk, uint64_t t);
uint64_t fkp_first_tick(uint64_t now, uint64_t period);
uint64_t fkp_period_of(uint64_t requested);
void fkp_periodic_tick(struct fake_kbase *fk, struct file *r);
/* A reader's periodic schedule changed: the worker looks again. */
void fkp_schedule_changed(struct fake_kbase *fk);
/* The worker, stopped and joined (fk_free). */
void fkp_stop_worker(struct fake_kbase *fk);

#endif
