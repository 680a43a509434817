/* What the per-process GPU view costs: the fdinfo reader on a fake /proc
 * of 2,000 processes with 20 fds each, 10 of them DRM clients. Prints the
 * CPU time of a steady update (known clients re-read) and of a full walk
 * (every fd's link read, new clients' fdinfo opened), and their ratio. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gputop/fdinfo.h"

#define PROCS 2000
#define FDS 20
#define CLIENTS 10
#define ROUNDS 200
#define WALKS 10

static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Process p: fd 0..19 link to /dev/null, sockets, pipes and files; in
 * every 200th process fd 7 is a panfrost client. */
static int build(const char *root)
{
    char path[256], target[64], text[512];
    int p, fd;

    snprintf(path, sizeof(path), "%s/proc", root);
    if (mkdir(path, 0755) < 0)
        return -1;
    for (p = 1; p <= PROCS; p++) {
        int gpu = p % (PROCS / CLIENTS) == 0;
        snprintf(path, sizeof(path), "%s/proc/%d", root, p);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/proc/%d/fd", root, p);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/proc/%d/fdinfo", root, p);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/proc/%d/comm", root, p);
        put(path, "proc\n");
        for (fd = 0; fd < FDS; fd++) {
            if (gpu && fd == 7) {
                snprintf(target, sizeof(target), "/dev/dri/renderD128");
                snprintf(text, sizeof(text),
                         "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t9\n"
                         "drm-driver:\tpanfrost\ndrm-client-id:\t%d\n"
                         "drm-engine-fragment:\t%d ns\ndrm-cycles-fragment:\t1\n"
                         "drm-maxfreq-fragment:\t800000000 Hz\n"
                         "drm-engine-vertex-tiler:\t0 ns\ndrm-total-memory:\t2048 KiB\n"
                         "drm-resident-memory:\t2048 KiB\n", p, p);
            } else {
                snprintf(target, sizeof(target), fd < 3 ? "/dev/null" : fd % 2 ?
                         "socket:[%d]" : "/var/lib/file%d", p * FDS + fd);
                snprintf(text, sizeof(text), "pos:\t0\nflags:\t02\nmnt_id:\t23\nino:\t%d\n",
                         fd);
            }
            snprintf(path, sizeof(path), "%s/proc/%d/fd/%d", root, p, fd);
            if (symlink(target, path) < 0)
                return -1;
            snprintf(path, sizeof(path), "%s/proc/%d/fdinfo/%d", root, p, fd);
            put(path, text);
        }
    }
    return 0;
}

int main(void)
{
    char root[] = "/tmp/gputop-bench-proc-XXXXXX", cmd[128];
    struct gt_sys sys = *gt_sys_real();
    struct gt_fdinfo *f;
    const struct gt_fdinfo_client *const *c;
    uint64_t t0, walk_ns, steady_ns;
    int i;

    if (!mkdtemp(root) || build(root) < 0) {
        fprintf(stderr, "bench: cannot build the fake /proc\n");
        return 1;
    }
    sys.root = root;
    f = gt_fdinfo_new(&sys, 1000000);
    if (!f)
        return 1;
    /* Warm the page cache, as a running gputop's /proc would be. */
    gt_fdinfo_update(f, 1, 1);
    t0 = cpu_ns();
    for (i = 0; i < WALKS; i++)
        gt_fdinfo_update(f, 2 + (uint64_t)i, 1);
    walk_ns = (cpu_ns() - t0) / WALKS;
    t0 = cpu_ns();
    for (i = 0; i < ROUNDS; i++)
        gt_fdinfo_update(f, 100 + (uint64_t)i, 0);
    steady_ns = (cpu_ns() - t0) / ROUNDS;
    printf("fdinfo: fake /proc of %d processes x %d fds, %zu GPU clients found\n", PROCS, FDS,
           gt_fdinfo_clients(f, &c));
    printf("fdinfo: full walk    %8.3f ms CPU (baseline)\n", walk_ns / 1e6);
    printf("fdinfo: steady update %7.3f ms CPU (known clients re-read): %.1fx cheaper than "
           "the walk, %s the 1 ms budget\n", steady_ns / 1e6,
           steady_ns ? (double)walk_ns / (double)steady_ns : 0.0,
           steady_ns < 1000000 ? "within" : "OVER");
    gt_fdinfo_free(f);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : 1;
}
