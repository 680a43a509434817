/* Fault injection at the system-call seam: wraps any gt_sys (the fake
 * kernels) and fails a chosen call site — open, ioctl by request number
 * (and, with a classifier, by the query inside its argument), mmap, poll,
 * read or pwrite, optionally told apart by the file — with a chosen errno,
 * or makes read return short; or makes the whole device vanish. */
#ifndef GPUTOP_TEST_FAULT_SYS_H
#define GPUTOP_TEST_FAULT_SYS_H

#include <stddef.h>
#include "gputop/sys.h"

enum fs_call { FS_OPEN, FS_IOCTL, FS_MMAP, FS_POLL, FS_READ, FS_WRITE };
#define FS_SHORT_READ 0       /* errno 0 on FS_READ: deliver half the bytes asked, at
                                 most FS_SHORT_MAX (the rest comes on the next read) */
#define FS_SHORT_MAX 16
#define FS_TRUNCATED (-1)     /* on FS_READ (by_file): half of what the file gave, then
                                 end of file: a text cut mid-line */
#define FS_MAX_SITES 64
#define FS_MAX_FDS 64
#define FS_FILE_LEN 80

/* The errnos a kernel call realistically fails with, for tests to loop over. */
extern const int fs_errnos[6];
#define FS_NERRNOS (sizeof(fs_errnos) / sizeof(fs_errnos[0]))

/* A call site: the call, and for ioctl its request number (else 0; 1 for
 * perf_event_open, which counts as an open); sub the query the classifier
 * found in an ioctl's argument; file, when by_file is set, the path opened
 * or that of the fd read or written, digits as 'N' ("/proc/N/fdinfo/N").
 * pread counts as a read, pwrite as FS_WRITE; with by_offset their sub
 * is the file offset (a register file's register). */
struct fs_site {
    enum fs_call call;
    unsigned long req;
    unsigned long sub;
    char file[FS_FILE_LEN];
};

struct fault_sys {
    const struct gt_sys *inner;
    struct gt_sys sys;              /* hand this to the code under test */
    int logging;                    /* 1: record each distinct site called */
    int by_file;                    /* 1: sites are told apart by file too */
    int by_offset;                  /* 1: pread and pwrite by offset too (sub) */
    /* Tells apart what one ioctl request asks (a query id, a param). */
    unsigned long (*ioctl_sub)(unsigned long req, const void *arg);
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];   /* while logging: calls at each site */
    size_t nsites;
    struct fs_site target;
    int err;
    int skip;                       /* calls at target to let through first */
    int remaining;                  /* calls at target still to fail */
    int injected;                   /* failures delivered so far */
    int vanished;                   /* errno every call but close fails with, 0 none */
    struct { int fd, cut; char file[FS_FILE_LEN]; } fds[FS_MAX_FDS];   /* by_file: open fds */
};

void fs_init(struct fault_sys *f, const struct gt_sys *inner);
/* Fails the next `times` calls at site with err. */
void fs_arm(struct fault_sys *f, struct fs_site site, int err, int times);
/* The same after letting `skip` calls at site through (the third write
 * of one register in a sample, say). */
void fs_arm_after(struct fault_sys *f, struct fs_site site, int err, int times, int skip);
/* The device is gone (every call but close and munmap fails with err, as
 * after a hot unplug ENODEV; mapped registers read all ones, as a bus
 * error does, and take no writes), or back with err 0. Safe to call while
 * another thread (the sampler's) calls through f. */
void fs_vanish(struct fault_sys *f, int err);
/* Runs fn for every site in sites (calls[i]: how often a sample, or the
 * open, calls it), every errno in fs_errnos and every call of the site
 * (skip 0..calls-1): failing once, and when mid_run also three times
 * running (the device gone a while). */
typedef void fs_case_fn(void *arg, struct fs_site site, int err, int times, int skip);
void fs_every_case(const struct fs_site *sites, const unsigned *calls, size_t n, int mid_run,
                   fs_case_fn *fn, void *arg);
/* The same over errs[0..nerrs-1] instead of fs_errnos. */
void fs_every_case_of(const struct fs_site *sites, const unsigned *calls, size_t n,
                      int mid_run, const int *errs, size_t nerrs, fs_case_fn *fn, void *arg);
/* "ioctl 0x4010bf00", "ioctl 0x40206445 #0x15", "read /sys/.../gpu_metrics" */
const char *fs_site_name(struct fs_site site, char *buf, size_t len);

#endif
