/* What one GRBM poll of the amdgpu source costs the CPU: gputop's own work
 * per poll (two READ_MMR_REG requests built, answered by a null kernel
 * behind the seam, 64 busy bits counted) and, as the baseline measured in
 * the same run, the bare system-call floor (an ioctl the kernel rejects at
 * once). On an AMD GPU each READ_MMR_REG also brings GFX out of GFXOFF for
 * its duration; that cost is the GPU's and cannot be measured here. */
#include "../src/sources/amd/amd.h"
#include "gputop/amdgpu_uapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define POLLS 200000
#define ROUNDS 5

/* A kernel that answers every READ_MMR_REG with a busy pattern. */
static int null_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
    struct drm_amdgpu_info *q = arg;
    uint32_t v = 0x80400000u ^ (uint32_t)(uintptr_t)ctx;

    (void)fd;
    (void)req;
    memcpy((void *)(uintptr_t)q->return_pointer, &v, 4);
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double seam_round(struct gt_amd_dev *dev)
{
    struct gt_grbm_counts c;
    struct gt_diag d;
    double t0;

    memset(&c, 0, sizeof(c));
    t0 = now_ns();
    if (gt_grbm_poll(dev, POLLS, 0, &c, &d) < 0)
        return -1;
    return (now_ns() - t0) / POLLS;
}

static double syscall_round(int fd)
{
    struct drm_amdgpu_info q;
    double t0 = now_ns();
    int i;

    memset(&q, 0, sizeof(q));
    for (i = 0; i < POLLS; i++)
        if (ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q) == 0 || errno != ENOTTY)
            return -1;
    return (now_ns() - t0) / POLLS;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(void)
{
    struct gt_sys sys = *gt_sys_real();
    struct gt_amd_dev dev;
    double seam[ROUNDS], bare[ROUNDS], per_poll;
    int fd = open("/dev/null", O_RDONLY), r;

    if (fd < 0)
        return 1;
    sys.ioctl = null_ioctl;
    memset(&dev, 0, sizeof(dev));
    dev.sys = &sys;
    dev.fd = 3;
    /* Rounds alternate so both see the same machine load. */
    for (r = 0; r < ROUNDS; r++) {
        seam[r] = seam_round(&dev);
        bare[r] = syscall_round(fd);
        if (seam[r] < 0 || bare[r] < 0) {
            fprintf(stderr, "amd_poll_cost: a round failed\n");
            return 1;
        }
    }
    close(fd);
    qsort(seam, ROUNDS, sizeof(double), cmp);
    qsort(bare, ROUNDS, sizeof(double), cmp);
    /* A poll is gputop's work plus two system calls. */
    per_poll = seam[ROUNDS / 2] + 2 * bare[ROUNDS / 2];
    printf("GRBM poll (median of %d rounds of %d polls):\n", ROUNDS, POLLS);
    printf("  gputop's work per poll (null kernel):  %7.1f ns\n", seam[ROUNDS / 2]);
    printf("  bare ioctl, rejected by the kernel:    %7.1f ns (baseline)\n", bare[ROUNDS / 2]);
    printf("  one poll = work + 2 ioctls:            %7.1f ns = %.2fx the 2-ioctl floor\n",
           per_poll, per_poll / (2 * bare[ROUNDS / 2]));
    printf("  CPU at the default 200 polls/s:        %7.1f us/s (plus the kernel's MMIO "
           "reads and GFXOFF exits)\n", per_poll * 200 / 1000);
    printf("  CPU at 10000 polls/s:                  %7.1f us/s\n", per_poll * 10000 / 1000);
    return 0;
}
