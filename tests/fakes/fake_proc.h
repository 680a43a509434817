/* A fake /proc tree on disk for the fdinfo walk: processes with comm, fd
 * links (a DRM client's fd links to /dev/dri/renderDN, others to
 * /dev/null or socket:[N], as the kernel shows them) and fdinfo files in
 * the formats the drivers print. The seam's root points at it. */
#ifndef GPUTOP_TEST_FAKE_PROC_H
#define GPUTOP_TEST_FAKE_PROC_H

#include <stddef.h>
#include "gputop/sys.h"

struct fake_proc;

struct fake_proc *fproc_new(void);
void fproc_free(struct fake_proc *p);     /* removes the tree */
const struct gt_sys *fproc_sys(struct fake_proc *p);
const char *fproc_root(const struct fake_proc *p);
/* A process; /proc/loadavg then names pid as the last one handed out. */
void fproc_add_process(struct fake_proc *p, int pid, const char *comm);
void fproc_set_last_pid(struct fake_proc *p, int pid);
/* fd linking to target, with this fdinfo text. */
void fproc_add_fd(struct fake_proc *p, int pid, int fd, const char *target, const char *fdinfo);
void fproc_close_fd(struct fake_proc *p, int pid, int fd);
void fproc_exit(struct fake_proc *p, int pid);
/* Any file below the root (e.g. /sys/bus/platform/drivers/panfrost/DEV/
 * profiling), its directories made; and reading one back. */
void fproc_write(struct fake_proc *p, const char *path, const char *text);
/* /proc/PID/cmdline: the arguments of argv (NULL-terminated), each NUL-ended. */
void fproc_set_cmdline(struct fake_proc *p, int pid, const char *const *argv);
int fproc_read(struct fake_proc *p, const char *path, char *buf, size_t len);

#endif
