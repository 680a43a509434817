/* Why debugfs amdgpu_regs2 did not open (no root, kernel lockdown, no
 * debugfs, a kernel before 5.16), said for the rows that need counters. */
#include "amd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* debugfs refuses root with EPERM under kernel lockdown (fs/debugfs/
 * file.c: files with write or ioctl operations, regs2 among them); a user
 * without root meets the 0700 mount point first (EACCES). */
static const char *lockdown_why(const struct gt_amd_dev *dev, char *buf, size_t len)
{
    char mode[96] = "";
    const char *at, *end;

    if (gt_sys_read_file(dev->sys, "/sys/kernel/security/lockdown", mode, sizeof(mode)) > 0 &&
        (at = strchr(mode, '[')) && (end = strchr(at, ']')))
        snprintf(buf, len, "the kernel is locked down (lockdown: %.*s, as Secure Boot sets "
                 "it), which closes debugfs register access even to root; GRBM busy bits and "
                 "gpu_metrics still work", (int)(end - at - 1), at + 1);
    else
        snprintf(buf, len, "the kernel is locked down (Secure Boot), which closes debugfs "
                 "register access even to root; GRBM busy bits and gpu_metrics still work");
    return buf;
}

const char *gt_amd_regs2_why(const struct gt_amd_dev *dev, int err, enum gt_amd_pmc_fail *f,
                             char *buf, size_t len)
{
    const struct gt_sys *sys = dev->sys;
    int fd;

    if (err == EPERM) {
        *f = GT_PMC_FAIL_LOCKDOWN;
        return lockdown_why(dev, buf, len);
    }
    if (err == EACCES) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    if (err != ENOENT)
        return "";
    fd = gt_sys_open_below(sys, "/sys/kernel/debug/dri");
    if (fd >= 0) {
        sys->close(sys->ctx, fd);
        *f = GT_PMC_FAIL_DEBUGFS;
        return "this kernel has no amdgpu_regs2 (it came in Linux 5.16)";
    }
    if (errno == EACCES || errno == EPERM) {
        *f = GT_PMC_FAIL_ROOT;
        return "needs root (debugfs is root-only)";
    }
    *f = GT_PMC_FAIL_DEBUGFS;
    return "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug) or the kernel "
           "lacks CONFIG_DEBUG_FS";
}

