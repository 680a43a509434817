/* The system-call seam: every hardware source reaches the kernel through
 * these calls, so tests can put a fake kernel behind them. */
#ifndef GPUTOP_SYS_H
#define GPUTOP_SYS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct perf_event_attr;

/* A DRM device as discovery lists it, without opening any node (opening
 * an amdgpu node wakes a runtime-suspended GPU). */
struct gt_drm_device {
    char render[64];          /* "/dev/dri/renderD128", "" if none */
    char primary[64];         /* "/dev/dri/card0", "" if none */
    char pci_slot[32];        /* "0000:c3:00.0", "" if not on PCI */
    unsigned vendor, device, revision;   /* PCI ids; 0 if not on PCI */
};

struct gt_sys {
    void *ctx;
    int     (*open)(void *ctx, const char *path, int flags);
    int     (*close)(void *ctx, int fd);
    int     (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
    void   *(*mmap)(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off);
    int     (*munmap)(void *ctx, void *addr, size_t len);
    ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
    int     (*poll)(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms);
    /* Root of /proc and /sys paths ("" for the real ones), for fake trees. */
    const char *root;
    /* Root of the /proc whose processes are read (drm-fdinfo's): a
     * container's (--proc-root); NULL: root above. */
    const char *proc_root;
    /* Root of the /sys whose clock, thermal and power files are read
     * (gpu-clocks'): a test tree (--sys-root); NULL: root above. */
    const char *sys_root;
    /* perf_event_open(2); NULL when the seam offers none (counted as ENOSYS).
     * The fds it returns are read and closed through read and close above. */
    int     (*perf_event_open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                               int group_fd, unsigned long flags);
    /* pread(2), so a file read every sample can stay open; NULL when the
     * seam offers none (such callers open and close the file each time). */
    ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
    /* The kernel's page size, for mappings whose length it checks; 0 when
     * the seam does not say (then sysconf(_SC_PAGESIZE)). */
    size_t page_size;
    /* One 32-bit load or store of a device register mapped with mmap
     * (/dev/mem): a single volatile access, never merged or split, so a
     * fake can model each register's side effects (write-1-to-clear,
     * reset bits). NULL when the seam offers none (treated as ENOSYS). */
    uint32_t (*reg_read32)(void *ctx, const volatile void *addr);
    void     (*reg_write32)(void *ctx, volatile void *addr, uint32_t value);
    /* pwrite(2), for register files such as debugfs amdgpu_regs2; NULL
     * when the seam offers none (counted as ENOSYS). */
    ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, off_t off);
    /* Lists up to max DRM devices into out (libdrm's drmGetDevices2 in the
     * real seam, which reads /sys and /dev itself); returns how many, or
     * -1 with errno set. NULL when the seam offers none (no devices). */
    int     (*drm_devices)(void *ctx, struct gt_drm_device *out, int max);
    /* The clock a source times its counting by (CLOCK_MONOTONIC ns), so a
     * fake kernel whose counters advance with time can keep both on one
     * clock; NULL: gt_now_ns(). */
    unsigned long long (*now_ns)(void *ctx);
};

/* The real kernel. */
const struct gt_sys *gt_sys_real(void);

/* Reads a whole small file below sys->root into buf (NUL-terminated);
 * returns the length or -1 with errno set. */
ssize_t gt_sys_read_file(const struct gt_sys *sys, const char *path, char *buf, size_t len);

/* Opens path below sys->root read-only; the fd or -1 with errno set. */
int gt_sys_open_below(const struct gt_sys *sys, const char *path);

/* Reads an open file from its start into buf (NUL-terminated) with
 * sys->pread: /proc files give their current contents again. Returns the
 * length or -1 with errno set. */
ssize_t gt_sys_reread(const struct gt_sys *sys, int fd, char *buf, size_t len);

/* CLOCK_MONOTONIC in nanoseconds. */
unsigned long long gt_now_ns(void);

/* sys's clock: its now_ns, or gt_now_ns() when it has none. */
static inline unsigned long long gt_sys_now(const struct gt_sys *sys)
{
    return sys && sys->now_ns ? sys->now_ns(sys->ctx) : gt_now_ns();
}

#endif
