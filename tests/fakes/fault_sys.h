/* Fault injection at the system-call seam: wraps any gt_sys (the fake
 * kernels) and fails a chosen call site — open, ioctl by request number,
 * mmap, poll or read — with a chosen errno, or makes read return short. */
#ifndef GPUTOP_TEST_FAULT_SYS_H
#define GPUTOP_TEST_FAULT_SYS_H

#include <stddef.h>
#include "gputop/sys.h"

enum fs_call { FS_OPEN, FS_IOCTL, FS_MMAP, FS_POLL, FS_READ };
#define FS_SHORT_READ 0       /* errno 0 on FS_READ: deliver half the bytes */
#define FS_MAX_SITES 64

/* A call site: the call, and for ioctl its request number (else 0; 1 for
 * perf_event_open, which counts as an open). pread counts as a read. */
struct fs_site {
    enum fs_call call;
    unsigned long req;
};

struct fault_sys {
    const struct gt_sys *inner;
    struct gt_sys sys;              /* hand this to the code under test */
    int logging;                    /* 1: record each distinct site called */
    struct fs_site sites[FS_MAX_SITES];
    size_t nsites;
    struct fs_site target;
    int err;
    int remaining;                  /* calls at target still to fail */
    int injected;                   /* failures delivered so far */
};

void fs_init(struct fault_sys *f, const struct gt_sys *inner);
/* Fails the next `times` calls at site with err. */
void fs_arm(struct fault_sys *f, struct fs_site site, int err, int times);
/* "ioctl 0x4010bf00", "mmap", ... */
const char *fs_site_name(struct fs_site site, char *buf, size_t len);

#endif
