/* Fault injection at the seam for the fdinfo reader on a fake /proc: the
 * opens and reads of /proc/PID/fdinfo/FD and /proc/PID/comm (found by
 * logging) fail with every realistic errno, plus ENOENT and ESRCH (the
 * process or fd gone between the listing and the read) and EACCES (another
 * user's process); reads come short or cut mid-line. Never a crash, never a
 * client twice, busy never below 0 nor above 100 % of the engine's capacity,
 * and every client back with its true share once the faults stop. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakes/fake_proc.h"
#include "fakes/fault_sys.h"
#include "gputop/fdinfo.h"

#define SEC 1000000000ull
#define UPDATES 8
/* Engine time already used when gputop starts: long numbers, so a cut
 * line leaves a much smaller one. */
#define BASE_NS 123456789012ull

static const int fdinfo_errnos[] = { EINTR, EAGAIN, EBUSY, ENODEV, EIO, EPERM, ENOENT, ESRCH,
                                     EACCES };

struct run {
    struct fake_proc *p;
    struct fault_sys fs;
    struct gt_fdinfo *f;
    unsigned k;             /* updates so far: time is k seconds */
};

static void text(char *buf, size_t len, unsigned id, unsigned long long ns)
{
    snprintf(buf, len, "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t512\n"
             "drm-driver:\tpanfrost\ndrm-client-id:\t%u\n"
             "drm-engine-fragment:\t%llu ns\ndrm-engine-vertex-tiler:\t%llu ns\n"
             "drm-total-memory:\t2048 KiB\n", id, ns, ns / 2);
}

/* Client 1 (pids 100 and 200 share it: a fork) busy 50 % of each second
 * on fragment; client 2 (pid 200) 25 %; pid 300 holds no DRM file. */
static void advance(struct run *r)
{
    char t[512];

    text(t, sizeof(t), 1, BASE_NS + r->k * SEC / 2);
    fproc_add_fd(r->p, 100, 5, "/dev/dri/renderD128", t);
    fproc_add_fd(r->p, 200, 7, "/dev/dri/renderD128", t);
    text(t, sizeof(t), 2, 2 * BASE_NS + r->k * SEC / 4);
    fproc_add_fd(r->p, 200, 8, "/dev/dri/renderD128", t);
}

/* The tree is made once per test (it is slow to make) and reused by each
 * case's new reader: only the times in it move on. */
static struct fake_proc *tree(void)
{
    struct fake_proc *p = fproc_new();

    cr_assert_not_null(p);
    fproc_add_process(p, 100, "game");
    fproc_add_process(p, 200, "game-child");
    fproc_add_process(p, 300, "shell");
    fproc_add_fd(p, 300, 1, "/dev/null", "pos:\t0\nflags:\t02\n");
    return p;
}

static void init(struct run *r, struct fake_proc *p, unsigned walk_every)
{
    memset(r, 0, sizeof(*r));
    r->p = p;
    advance(r);
    fs_init(&r->fs, fproc_sys(r->p));
    r->fs.by_file = 1;
    r->f = gt_fdinfo_new(&r->fs.sys, walk_every);
    cr_assert_not_null(r->f);
}

/* One update; checks what any update must give, returns the clients. */
static size_t update(struct run *r, const char *what, const struct gt_fdinfo_client *const **c)
{
    size_t n, i, j;

    r->k++;
    advance(r);
    gt_fdinfo_update(r->f, r->k * SEC, 0);
    n = gt_fdinfo_clients(r->f, c);
    cr_assert_leq(n, 2, "%s: %zu clients, there are 2", what, n);
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++)
            cr_assert((*c)[i]->client_id != (*c)[j]->client_id, "%s: client %llu twice", what,
                      (unsigned long long)(*c)[i]->client_id);
        for (int e = 0; e < (*c)[i]->nengines; e++) {
            double b = (*c)[i]->engine[e].busy_pct;
            cr_assert(b >= 0 && b <= 100.0, "%s: client %llu %s busy %g %%", what,
                      (unsigned long long)(*c)[i]->client_id, (*c)[i]->engine[e].name, b);
        }
    }
    return n;
}

/* After the faults: both clients, with their true shares. */
static void settled(struct run *r, const char *what)
{
    const struct gt_fdinfo_client *const *c;
    size_t n = 0;

    for (int i = 0; i < UPDATES && n < 2; i++)
        n = update(r, what, &c);
    n = update(r, what, &c);
    cr_assert_eq(n, 2, "%s: the clients did not come back", what);
    cr_assert_eq(c[0]->client_id, 1, "%s", what);
    cr_assert(fabs(c[0]->busy_pct - 50.0) < 1e-6, "%s: client 1 %g %%", what, c[0]->busy_pct);
    cr_assert(fabs(c[1]->busy_pct - 25.0) < 1e-6, "%s: client 2 %g %%", what, c[1]->busy_pct);
    cr_assert_eq(c[0]->pid, 100, "%s: the lowest pid holding it", what);
}

static void finish(struct run *r)
{
    gt_fdinfo_free(r->f);
}

/* The sites of the first update (from_start) or of one after two. */
static size_t sites_of(struct fake_proc *p, int from_start, unsigned walk_every,
                       struct fs_site *out, unsigned *calls)
{
    const struct gt_fdinfo_client *const *c;
    struct run r;
    size_t n;

    init(&r, p, walk_every);
    if (!from_start) {
        update(&r, "clean", &c);
        update(&r, "clean", &c);
    }
    r.fs.logging = 1;
    update(&r, "clean", &c);
    n = r.fs.nsites;
    memcpy(out, r.fs.sites, n * sizeof(*out));
    /* Several files share a site; failing its first and second call is
     * enough to reach each path, and keeps the run short. */
    for (size_t i = 0; i < n; i++)
        calls[i] = r.fs.calls[i] < 2 ? r.fs.calls[i] : 2;
    finish(&r);
    return n;
}

struct mode {
    struct fake_proc *p;
    unsigned walk_every;
    int from_start;         /* armed before the first update: first sight of a client */
};

static void fault(void *arg, struct fs_site site, int err, int times, int skip)
{
    const struct mode *m = arg;
    const struct gt_fdinfo_client *const *c;
    struct run r;
    char what[200], name[120];

    snprintf(what, sizeof(what), "%s (call %d) fails %d times with %s%s, walk every %u",
             fs_site_name(site, name, sizeof(name)), skip + 1, times,
             err == FS_TRUNCATED ? "a cut" : err == FS_SHORT_READ ? "a short read"
             : strerror(err), m->from_start ? " from the start" : "", m->walk_every);
    init(&r, m->p, m->walk_every);
    if (!m->from_start) {
        update(&r, what, &c);
        update(&r, what, &c);
    }
    fs_arm_after(&r.fs, site, err, times, skip);
    for (int i = 0; i < 3; i++)
        update(&r, what, &c);
    cr_assert_gt(r.fs.injected, 0, "%s: the site was not reached", what);
    settled(&r, what);
    finish(&r);
}

static void every_case(struct mode m)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n;
    static const int cuts[] = { FS_SHORT_READ, FS_TRUNCATED };
    char name[120];

    m.p = tree();
    n = sites_of(m.p, m.from_start, m.walk_every, sites, calls);
    for (size_t i = 0; i < n; i++)
        cr_log_info("fdinfo: %s", fs_site_name(sites[i], name, sizeof(name)));
    cr_assert_geq(n, m.from_start ? 4 : 2, "only %zu sites", n);
    fs_every_case_of(sites, calls, n, 1, fdinfo_errnos,
                     sizeof(fdinfo_errnos) / sizeof(fdinfo_errnos[0]), fault, &m);
    for (size_t i = 0; i < n; i++)
        if (sites[i].call == FS_READ)
            fs_every_case_of(&sites[i], &calls[i], 1, 1, cuts, 2, fault, &m);
    fproc_free(m.p);
}

Test(faults_fdinfo, every_site_every_errno_mid_run, .timeout = 120)
{
    every_case((struct mode){ NULL, 3, 0 });
}

Test(faults_fdinfo, every_site_every_errno_from_the_start, .timeout = 120)
{
    every_case((struct mode){ NULL, 1, 1 });
}

/* A process exits and its fdinfo goes between the listing and the read:
 * nothing left of it, the other client unharmed. */
Test(faults_fdinfo, process_exits_mid_run)
{
    const struct gt_fdinfo_client *const *c;
    struct run r;
    size_t n;

    init(&r, tree(), 1);
    update(&r, "exit", &c);
    update(&r, "exit", &c);
    fproc_exit(r.p, 200);
    r.k++;
    gt_fdinfo_update(r.f, r.k * SEC, 0);
    n = gt_fdinfo_clients(r.f, &c);
    cr_assert_eq(n, 1);
    cr_assert_eq(c[0]->client_id, 1);
    cr_assert_eq(c[0]->pid, 100);
    finish(&r);
    fproc_free(r.p);
}

/* Through the watcher thread the Processes view reads: every fdinfo open
 * refused (EACCES: another user's processes) for a while, then allowed;
 * no crash, no duplicate, both clients back. */
Test(faults_fdinfo, watcher_loses_and_finds_the_clients, .timeout = 60)
{
    struct fake_proc *p = tree();
    struct gt_fdinfo_row rows[8];
    struct gt_fdinfo_watch *w;
    struct run r;
    uint64_t updates = 0, seen;
    size_t n = 0;
    int off;

    init(&r, p, 1);
    w = gt_fdinfo_watch_start(&r.fs.sys, 5000000ull, 1);
    cr_assert_not_null(w);
    gt_fdinfo_watch_want(w, 1);
    for (int i = 0; i < 3000 && n < 2; i++) {
        n = gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
        usleep(10000);
    }
    cr_assert_eq(n, 2, "the two clients first");
    fs_vanish(&r.fs, EACCES);
    seen = updates;
    for (int i = 0; i < 3000 && (n > 0 || updates < seen + 2); i++) {
        n = gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
        usleep(10000);
    }
    cr_assert_eq(n, 0, "no fdinfo readable, yet %zu clients", n);
    fs_vanish(&r.fs, 0);
    for (int i = 0; i < 3000 && n < 2; i++) {
        n = gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
        cr_assert_leq(n, 2);
        usleep(10000);
    }
    cr_assert_eq(n, 2, "the clients did not come back");
    cr_assert_neq(rows[0].pid, rows[1].pid, "one client twice");
    gt_fdinfo_watch_stop(w);
    finish(&r);
    fproc_free(p);
}

/* Calls the watcher made through the seam so far (fault_sys logging). */
static unsigned seam_calls(const struct fault_sys *fs)
{
    unsigned n = 0;

    for (size_t i = 0; i < fs->nsites; i++)
        n += fs->calls[i];
    return n;
}

/* The Processes view hidden, nothing reads the watcher's rows: it makes
 * no system call at all (at a 5 ms period, 40 updates would have run in
 * 200 ms). Shown, it finds the clients; hidden again, it stops. */
Test(faults_fdinfo, watcher_reads_only_while_wanted, .timeout = 60)
{
    struct fake_proc *p = tree();
    struct timespec pause = { 0, 200000000L };
    struct gt_fdinfo_row rows[8];
    struct gt_fdinfo_watch *w;
    struct run r;
    uint64_t updates = 0;
    unsigned before;
    size_t n = 0;
    int off;

    init(&r, p, 1);
    r.fs.logging = 1;
    w = gt_fdinfo_watch_start(&r.fs.sys, 5000000ull, 1);
    cr_assert_not_null(w);
    nanosleep(&pause, NULL);
    n = gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
    cr_assert_eq(seam_calls(&r.fs), 0, "%u system calls while nothing wanted the rows",
                 seam_calls(&r.fs));
    cr_assert_eq(n + updates, 0);
    gt_fdinfo_watch_want(w, 1);
    for (int i = 0; i < 3000 && n < 2; i++) {
        n = gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
        usleep(10000);
    }
    cr_assert_eq(n, 2, "the two clients once wanted");
    gt_fdinfo_watch_want(w, 0);
    nanosleep(&pause, NULL);    /* an update under way when hidden ends */
    /* Through the watcher's lock, which its thread took after its last
     * call: the counts are read after they were written. */
    gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
    before = seam_calls(&r.fs);
    nanosleep(&pause, NULL);
    gt_fdinfo_watch_rows(w, rows, 8, &off, &updates);
    cr_assert_eq(seam_calls(&r.fs), before, "%u system calls after the rows were hidden",
                 seam_calls(&r.fs) - before);
    gt_fdinfo_watch_stop(w);
    finish(&r);
    fproc_free(p);
}
