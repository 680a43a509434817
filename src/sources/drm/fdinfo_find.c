/* Finding DRM clients below /proc without walking every process each
 * time: new processes from the last pid /proc/loadavg names, young ones
 * re-probed for a while (a program opens the GPU after loading), and the
 * rest in a round-robin walk spread over several ticks and capped in CPU
 * time, so 30,000 processes cost what a few hundred would. */
#include "gputop/fdinfo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NEW_MAX 256                 /* new pids probed in one tick, newest first */
#define YOUNG_MAX 64                /* young pids re-probed each tick */
#define YOUNG_NS 10000000000ull     /* ... for this long after they appear */
#define BUDGET_CHECK_EVERY 8        /* processes between CPU-time checks */

struct young {
    int pid;
    uint64_t until_ns;
};

struct gt_fdinfo_finder {
    const struct gt_sys *sys;
    char root[4096];
    unsigned spread;                /* a rotation over this many ticks */
    uint64_t budget_ns;             /* CPU per tick for the rotation; 0: none */
    DIR *proc;                      /* the rotation's cursor; NULL between rotations */
    size_t procs_last;              /* processes the last rotation listed */
    size_t procs_now;               /* ... and this one so far */
    int last_pid;                   /* /proc/loadavg's, -1 before the first tick */
    struct young young[YOUNG_MAX];
    size_t nyoung;
    struct gt_fdinfo_find_stats st;
};

/* ---- scanning one process ---- */

int gt_fdinfo_number(const char *s)
{
    char *end;
    long v;

    if (*s < '0' || *s > '9')
        return -1;
    v = strtol(s, &end, 10);
    return *end || v > 0x7FFFFFFF ? -1 : (int)v;
}

/* A DRM client's fd links to a node below /dev/dri, or below /dev/accel
 * for a compute accelerator (drm_accel.c: amdxdna, ivpu), whose fdinfo has
 * the same keys; reading the link is far cheaper than opening its fdinfo. */
static int is_drm_link(int dirfd, const char *name)
{
    char target[64];
    ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

    return (n > 9 && strncmp(target, "/dev/dri/", 9) == 0) ||
           (n > 11 && strncmp(target, "/dev/accel/", 11) == 0);
}

int gt_fdinfo_refs_push(struct gt_fdinfo_refs *r, int pid, int fd, int young)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        struct gt_fdinfo_fdref *n = realloc(r->v, cap * sizeof(*n));
        if (!n)
            return -1;
        r->v = n;
        r->cap = cap;
    }
    r->v[r->n].pid = pid;
    r->v[r->n].fd = fd;
    r->v[r->n].young = young;
    r->n++;
    return 0;
}

/* Every DRM fd of pid into r; 0, or -1 when the process is gone or
 * unreadable (its fd directory does not open). */
int gt_fdinfo_scan_process(struct gt_fdinfo_refs *r, const char *root, int pid, int young)
{
    char path[4200];
    DIR *d;
    struct dirent *e;

    snprintf(path, sizeof(path), "%s/proc/%d/fd", root, pid);
    d = opendir(path);
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        int fd = gt_fdinfo_number(e->d_name);
        if (fd >= 0 && is_drm_link(dirfd(d), e->d_name))
            gt_fdinfo_refs_push(r, pid, fd, young);
    }
    closedir(d);
    return 0;
}

long gt_fdinfo_scan_all(const struct gt_sys *sys, struct gt_fdinfo_fdref **out, size_t *procs)
{
    const char *root = sys->root ? sys->root : "";
    struct gt_fdinfo_refs r = { NULL, 0, 0 };
    char path[4200];
    DIR *d;
    struct dirent *e;

    *procs = 0;
    snprintf(path, sizeof(path), "%s/proc", root);
    d = opendir(path);
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        int pid = gt_fdinfo_number(e->d_name);
        if (pid <= 0)
            continue;
        gt_fdinfo_scan_process(&r, root, pid, 0);
        (*procs)++;
    }
    closedir(d);
    *out = r.v;
    return (long)r.n;
}

long gt_fdinfo_scan(const struct gt_sys *sys, struct gt_fdinfo_fdref **out)
{
    size_t procs;

    return gt_fdinfo_scan_all(sys, out, &procs);
}

/* ---- new and young processes ---- */

/* The pid the kernel handed out last (any process or thread): the fifth
 * field of /proc/loadavg (fs/proc/loadavg.c: idr_get_cursor - 1). -1
 * when unreadable. */
static int last_pid(const struct gt_sys *sys)
{
    char buf[128];
    const char *sp;

    if (gt_sys_read_file(sys, "/proc/loadavg", buf, sizeof(buf)) < 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    sp = strrchr(buf, ' ');
    return sp ? gt_fdinfo_number(sp + 1) : -1;
}

/* A thread's /proc/TID opens too (it is only left out of the listing)
 * and shows its process's fds: the fds belong to the Tgid. */
static int tgid_of(const struct gt_sys *sys, int pid)
{
    char path[64], buf[1024];
    const char *t;

    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (gt_sys_read_file(sys, path, buf, sizeof(buf)) < 0)
        return pid;
    t = strstr(buf, "\nTgid:");
    return t ? (int)strtol(t + 6, NULL, 10) : pid;
}

static void young_add(struct gt_fdinfo_finder *fi, int pid, uint64_t now)
{
    size_t i;

    for (i = 0; i < fi->nyoung; i++)
        if (fi->young[i].pid == pid)
            return;
    if (fi->nyoung == YOUNG_MAX) {   /* full: the oldest makes room */
        memmove(fi->young, fi->young + 1, (YOUNG_MAX - 1) * sizeof(fi->young[0]));
        fi->nyoung--;
    }
    fi->young[fi->nyoung].pid = pid;
    fi->young[fi->nyoung].until_ns = now + YOUNG_NS;
    fi->nyoung++;
}

/* Probes pid; its DRM fds go to r under its process's pid. 0 when it
 * exists, -1 when it is gone. */
static int probe(struct gt_fdinfo_finder *fi, struct gt_fdinfo_refs *r, int pid)
{
    size_t before = r->n, i;
    int tgid;

    fi->st.probes++;
    if (gt_fdinfo_scan_process(r, fi->root, pid, 1) < 0)
        return -1;
    if (r->n == before || (tgid = tgid_of(fi->sys, pid)) == pid)
        return 0;
    for (i = before; i < r->n; i++)
        r->v[i].pid = tgid;
    return 0;
}

/* The pids handed out since the last tick, newest first, at most
 * NEW_MAX; a wrap past pid_max (the new one below the old) probes the
 * NEW_MAX below the new one. */
static void probe_new(struct gt_fdinfo_finder *fi, struct gt_fdinfo_refs *r, uint64_t now)
{
    int cur = last_pid(fi->sys), pid, lo;

    if (cur < 0)
        return;
    if (fi->last_pid < 0 || cur == fi->last_pid) {
        fi->last_pid = cur;
        return;
    }
    lo = cur > fi->last_pid && cur - fi->last_pid <= NEW_MAX ? fi->last_pid + 1
                                                             : cur - NEW_MAX + 1;
    if (lo < 1)
        lo = 1;
    for (pid = cur; pid >= lo; pid--)
        if (probe(fi, r, pid) == 0)
            young_add(fi, pid, now);
    fi->last_pid = cur;
}

/* Young pids again, those gone or grown up dropped; skip: how many at
 * the end were just added. */
static void probe_young(struct gt_fdinfo_finder *fi, struct gt_fdinfo_refs *r, uint64_t now,
                        size_t skip)
{
    size_t i = 0, k = 0, n = fi->nyoung - skip;

    for (i = 0; i < fi->nyoung; i++) {
        struct young y = fi->young[i];
        if (i < n && (now >= y.until_ns || probe(fi, r, y.pid) < 0))
            continue;
        fi->young[k++] = y;
    }
    fi->nyoung = k;
}

/* ---- the rotation ---- */

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Up to slice processes of the rotation; *done counts them. 1 when the
 * listing ended, 0 when not, -1 when /proc does not open. */
static int slice_of(struct gt_fdinfo_finder *fi, struct gt_fdinfo_refs *r, size_t slice,
                    uint64_t t0, size_t *done)
{
    struct dirent *e;
    char path[4200];

    if (!fi->proc) {
        snprintf(path, sizeof(path), "%s/proc", fi->root);
        if (!(fi->proc = opendir(path)))
            return -1;
        fi->procs_now = 0;
    }
    while (*done < slice && (e = readdir(fi->proc)) != NULL) {
        int pid = gt_fdinfo_number(e->d_name);
        if (pid <= 0)
            continue;
        gt_fdinfo_scan_process(r, fi->root, pid, 0);
        fi->procs_now++;
        fi->st.scanned++;
        ++*done;
        if (fi->budget_ns && *done % BUDGET_CHECK_EVERY == 0 &&
            thread_cpu_ns() - t0 >= fi->budget_ns) {
            fi->st.over_budget++;
            return 0;
        }
    }
    if (*done == slice)
        return 0;
    closedir(fi->proc);
    fi->proc = NULL;
    fi->procs_last = fi->procs_now;
    fi->st.rotations++;
    return 1;
}

/* The next slice of the round-robin walk: a spread-th of the processes
 * the last rotation listed (all of them on the first), or fewer when
 * the tick's CPU budget runs out; a rotation that ends short of its
 * slice starts the next one at once. 1 when a rotation ended. */
static int rotate(struct gt_fdinfo_finder *fi, struct gt_fdinfo_refs *r)
{
    size_t slice = fi->procs_last ? (fi->procs_last + fi->spread - 1) / fi->spread : (size_t)-1;
    uint64_t t0 = fi->budget_ns ? thread_cpu_ns() : 0;
    size_t done = 0;
    int ended = slice_of(fi, r, slice, t0, &done);

    if (ended == 1 && done < slice && fi->procs_last &&
        (!fi->budget_ns || thread_cpu_ns() - t0 < fi->budget_ns) &&
        slice_of(fi, r, slice, t0, &done) < 0)
        return -1;
    return ended;
}

int gt_fdinfo_finder_tick(struct gt_fdinfo_finder *fi, uint64_t now_ns, struct gt_fdinfo_refs *r)
{
    size_t before = fi->nyoung;

    probe_new(fi, r, now_ns);
    probe_young(fi, r, now_ns, fi->nyoung - before);
    return rotate(fi, r);
}

/* After a full walk: the rotation starts over, and the pids handed out
 * so far count as seen. */
void gt_fdinfo_finder_walked(struct gt_fdinfo_finder *fi, size_t procs)
{
    if (fi->proc)
        closedir(fi->proc);
    fi->proc = NULL;
    fi->procs_last = procs;
    fi->last_pid = last_pid(fi->sys);
}

void gt_fdinfo_finder_set_budget(struct gt_fdinfo_finder *fi, uint64_t budget_ns)
{
    fi->budget_ns = budget_ns;
}

const struct gt_fdinfo_find_stats *gt_fdinfo_finder_stats(const struct gt_fdinfo_finder *fi)
{
    return &fi->st;
}

struct gt_fdinfo_finder *gt_fdinfo_finder_new(const struct gt_sys *sys, unsigned spread,
                                              uint64_t budget_ns)
{
    struct gt_fdinfo_finder *fi = calloc(1, sizeof(*fi));

    if (!fi)
        return NULL;
    fi->sys = sys;
    snprintf(fi->root, sizeof(fi->root), "%s", sys->root ? sys->root : "");
    fi->spread = spread ? spread : 1;
    fi->budget_ns = budget_ns;
    fi->last_pid = -1;
    return fi;
}

void gt_fdinfo_finder_free(struct gt_fdinfo_finder *fi)
{
    if (!fi)
        return;
    if (fi->proc)
        closedir(fi->proc);
    free(fi);
}
