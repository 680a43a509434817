/* Per-process GPU use from /proc/PID/fdinfo: the fds found to be DRM
 * clients are re-read every update; new ones are found by one full walk
 * at the start, then by the finder (fdinfo_find.c: new pids at once, the
 * rest a slice per update, all of /proc every walk_every updates); clients
 * shared by several fds or processes (dup, fork) are counted once, by
 * (driver, pdev, client id).
 * The seam has no directory calls, so the walk uses opendir/readlinkat
 * below sys->root, which is how the tests point it at a fake /proc. */
#include "gputop/fdinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FDINFO_MAX 8192
/* CPU a rotation's slice may take per update: 1 ms (the watcher updates
 * once a second), so 30,000 processes cost ~1 ms/s, not ~87. */
#define FIND_BUDGET_NS 1000000ull

struct slot {
    struct gt_fdinfo_client c;
    int named_pid;            /* the pid comm and container were read from */
    uint64_t prev_ns[GT_FDINFO_ENGINES], prev_cycles[GT_FDINFO_ENGINES];
    uint64_t prev_total[GT_FDINFO_ENGINES];
    uint64_t prev_t;
    int prev_n;               /* engines known at the previous update */
    int seen;                 /* read during this update */
};

struct known_fd {
    int pid, fd;
};

struct gt_fdinfo {
    const struct gt_sys *sys;
    struct gt_fdinfo_finder *finder;  /* between full walks, with walk_every */
    size_t procs_listed;              /* by the last full walk */
    uint64_t prev_update_ns;          /* now_ns of the last update, 0 before */
    uint64_t walk_period_ns, last_walk_ns;
    int walked;
    struct slot *slots;
    size_t nslots, capslots;
    struct known_fd *fds;
    size_t nfds, capfds;
    const struct gt_fdinfo_client **sorted;
    size_t nsorted;
    char *text;               /* FDINFO_MAX bytes of scratch */
    struct gt_fdinfo_stats st;
};

/* ---- parsing ---- */

/* "123 KiB" -> bytes. */
static uint64_t parse_size(const char *v)
{
    char *end;
    uint64_t n = strtoull(v, &end, 10);

    while (*end == ' ' || *end == '\t')
        end++;
    if (strncmp(end, "KiB", 3) == 0)
        return n << 10;
    if (strncmp(end, "MiB", 3) == 0)
        return n << 20;
    if (strncmp(end, "GiB", 3) == 0)
        return n << 30;
    return n;
}

/* "800000000 Hz" / "800 MHz" / "800000 KHz" -> Hz. */
static uint64_t parse_freq(const char *v)
{
    char *end;
    uint64_t n = strtoull(v, &end, 10);

    while (*end == ' ' || *end == '\t')
        end++;
    if (strncmp(end, "MHz", 3) == 0)
        return n * 1000000ull;
    if (strncmp(end, "KHz", 3) == 0 || strncmp(end, "kHz", 3) == 0)
        return n * 1000ull;
    return n;
}

static struct gt_fdinfo_engine *engine(struct gt_fdinfo_client *c, const char *name, size_t len)
{
    int i;

    if (len >= sizeof(c->engine[0].name))
        len = sizeof(c->engine[0].name) - 1;
    for (i = 0; i < c->nengines; i++)
        if (strlen(c->engine[i].name) == len && strncmp(c->engine[i].name, name, len) == 0)
            return &c->engine[i];
    if (c->nengines == GT_FDINFO_ENGINES)
        return NULL;
    memset(&c->engine[c->nengines], 0, sizeof(c->engine[0]));
    memcpy(c->engine[c->nengines].name, name, len);
    c->engine[c->nengines].capacity = 1;
    return &c->engine[c->nengines++];
}

struct mem_sums {
    uint64_t total, shared, resident, legacy;
    uint64_t vram, gtt, legacy_vram, legacy_gtt;
    int have_total, have_resident, have_region;
};

static void parse_engine_key(struct gt_fdinfo_client *c, const char *k, size_t klen,
                             const char *v)
{
    static const struct { const char *prefix; int what; } keys[] = {
        { "drm-engine-capacity-", 1 }, { "drm-total-cycles-", 4 }, { "drm-engine-", 0 },
        { "drm-cycles-", 2 }, { "drm-maxfreq-", 3 }, { "drm-curfreq-", 5 },
    };
    size_t i;
    unsigned again;

    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        size_t plen = strlen(keys[i].prefix);
        struct gt_fdinfo_engine *e;
        if (klen <= plen || strncmp(k, keys[i].prefix, plen) != 0)
            continue;
        e = engine(c, k + plen, klen - plen);
        if (!e)
            return;
        /* A name printed twice in one file is two engines' time under one
         * name (amdgpu_fdinfo.c names UVD and VCN_DEC both "dec", VCE and
         * VCN_ENC both "enc"): summed, not the last one kept. */
        again = (e->keys >> keys[i].what) & 1;
        e->keys |= 1u << keys[i].what;
        if (keys[i].what == 0) {
            e->ns = (again ? e->ns : 0) + strtoull(v, NULL, 10);
            e->has_ns = 1;
        } else if (keys[i].what == 2) {
            e->cycles = (again ? e->cycles : 0) + strtoull(v, NULL, 10);
        } else if (keys[i].what == 1) {
            e->capacity = (uint32_t)strtoul(v, NULL, 10);
            if (!e->capacity)
                e->capacity = 1;
        } else if (keys[i].what == 4) {
            e->total_cycles = strtoull(v, NULL, 10);
        } else if (keys[i].what == 3) {
            e->maxfreq_hz = parse_freq(v);
        } else {
            e->curfreq_hz = parse_freq(v);
        }
        return;
    }
}

/* drm-{total,shared,resident}-REGION and the deprecated drm-memory-REGION
 * (an alias of resident, which amdgpu still prints beside the new keys:
 * amdgpu_fdinfo.c, so it counts only when no drm-resident-* came). */
/* A region of that kind: "vram", or an instance of it, "vram0", "vram1"
 * (xe_drm_client.c names each VRAM tile's region). */
static int region_is(const char *region, const char *kind)
{
    size_t n = strlen(kind);

    return strncmp(region, kind, n) == 0 && strspn(region + n, "0123456789") == strlen(region + n);
}

static void parse_mem_key(const char *k, const char *v, struct mem_sums *m)
{
    uint64_t n = parse_size(v);

    if (strncmp(k, "drm-total-", 10) == 0) {
        m->total += n;
        m->have_total = 1;
    } else if (strncmp(k, "drm-shared-", 11) == 0) {
        m->shared += n;
    } else if (strncmp(k, "drm-resident-", 13) == 0) {
        m->resident += n;
        m->have_resident = 1;
        m->vram += region_is(k + 13, "vram") ? n : 0;
        m->gtt += region_is(k + 13, "gtt") ? n : 0;
        m->have_region |= region_is(k + 13, "vram") || region_is(k + 13, "gtt");
    } else if (strncmp(k, "drm-memory-", 11) == 0) {
        m->legacy += n;
        m->legacy_vram += region_is(k + 11, "vram") ? n : 0;
        m->legacy_gtt += region_is(k + 11, "gtt") ? n : 0;
        m->have_region |= region_is(k + 11, "vram") || region_is(k + 11, "gtt");
    }
}

static void settle_memory(struct gt_fdinfo_client *c, const struct mem_sums *m)
{
    c->mem_resident = m->have_resident ? m->resident : m->legacy;
    c->mem_vram = m->have_resident ? m->vram : m->legacy_vram;
    c->mem_gtt = m->have_resident ? m->gtt : m->legacy_gtt;
    c->has_vram_gtt = m->have_region;
    c->has_private = m->have_total;
    c->mem_private = m->have_total && m->total > m->shared ? m->total - m->shared : 0;
    c->mem_bytes = m->have_total ? c->mem_private : c->mem_resident;
}

static void parse_line(struct gt_fdinfo_client *c, const char *line, size_t len,
                       struct mem_sums *m, int *is_drm)
{
    const char *colon = memchr(line, ':', len);
    char v[64];
    size_t klen, vlen;
    const char *vs;

    if (!colon || strncmp(line, "drm-", 4) != 0)
        return;
    klen = (size_t)(colon - line);
    vs = colon + 1;
    while (vs < line + len && (*vs == ' ' || *vs == '\t'))
        vs++;
    vlen = (size_t)(line + len - vs);
    if (vlen >= sizeof(v))
        vlen = sizeof(v) - 1;
    memcpy(v, vs, vlen);
    v[vlen] = '\0';
    if (klen == 10 && strncmp(line, "drm-driver", 10) == 0) {
        snprintf(c->driver, sizeof(c->driver), "%.*s", (int)sizeof(c->driver) - 1, v);
        *is_drm = 1;
    } else if (klen == 8 && strncmp(line, "drm-pdev", 8) == 0) {
        snprintf(c->pdev, sizeof(c->pdev), "%.*s", (int)sizeof(c->pdev) - 1, v);
    } else if (klen == 13 && strncmp(line, "drm-client-id", 13) == 0) {
        c->client_id = strtoull(v, NULL, 10);
    } else if (strncmp(line, "drm-engine-", 11) == 0 || strncmp(line, "drm-cycles-", 11) == 0 ||
               strncmp(line, "drm-maxfreq-", 12) == 0 || strncmp(line, "drm-curfreq-", 12) == 0 ||
               strncmp(line, "drm-total-cycles-", 17) == 0) {
        parse_engine_key(c, line, klen, v);
    } else {
        char k[64];
        snprintf(k, sizeof(k), "%.*s", (int)klen, line);
        parse_mem_key(k, v, m);
    }
}

int gt_fdinfo_parse(const char *text, struct gt_fdinfo_client *c)
{
    struct mem_sums m;
    int is_drm = 0;
    const char *p = text;

    memset(c, 0, sizeof(*c));
    memset(&m, 0, sizeof(m));
    while (*p) {
        size_t len = strcspn(p, "\n");
        parse_line(c, p, len, &m, &is_drm);
        p += len;
        if (*p)
            p++;
    }
    settle_memory(c, &m);
    return is_drm ? 0 : -1;
}

/* ---- clients ---- */

static int same_client(const struct gt_fdinfo_client *a, const struct gt_fdinfo_client *b)
{
    return a->client_id == b->client_id && strcmp(a->driver, b->driver) == 0 &&
           strcmp(a->pdev, b->pdev) == 0;
}

static struct slot *find_slot(struct gt_fdinfo *f, const struct gt_fdinfo_client *c)
{
    size_t i;

    for (i = 0; i < f->nslots; i++)
        if (same_client(&f->slots[i].c, c))
            return &f->slots[i];
    return NULL;
}

static void read_comm(struct gt_fdinfo *f, int pid, char *comm, size_t len)
{
    char path[64], buf[64];

    snprintf(path, sizeof(path), "/proc/%d/comm", pid);
    if (gt_sys_read_file(f->sys, path, buf, sizeof(buf)) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(comm, len, "%.*s", (int)len - 1, buf);
}

/* The whole command line (/proc/PID/cmdline: arguments separated by
 * NULs), its arguments joined by blanks: comm is cut at 15 characters
 * ("glmark2-es2-way"); "" for a kernel thread or one gone. */
static void read_cmdline(struct gt_fdinfo *f, int pid, char *out, size_t len)
{
    char path[64];
    ssize_t n, i;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
    n = gt_sys_read_file(f->sys, path, out, len);
    if (n < 0)
        n = 0;
    while (n > 0 && out[n - 1] == '\0')
        n--;
    for (i = 0; i < n; i++)
        if (out[i] == '\0' || out[i] == '\n' || out[i] == '\t')
            out[i] = ' ';
    out[n < (ssize_t)len ? n : (ssize_t)len - 1] = '\0';
}

/* Name and container of the pid that now holds the client: a client
 * shared by fork keeps going when its first holder exits, and is then
 * shown under the child's pid with the child's name (was: the exited
 * parent's). Read again only when that pid changes. */
static void name_slot(struct gt_fdinfo *f, struct slot *s)
{
    char path[64], buf[2048];

    if (s->named_pid == s->c.pid)
        return;
    s->named_pid = s->c.pid;
    read_comm(f, s->c.pid, s->c.comm, sizeof(s->c.comm));
    read_cmdline(f, s->c.pid, s->c.cmdline, sizeof(s->c.cmdline));
    snprintf(path, sizeof(path), "/proc/%d/cgroup", s->c.pid);
    if (gt_sys_read_file(f->sys, path, buf, sizeof(buf)) < 0)
        buf[0] = '\0';
    gt_fdinfo_container(buf, s->c.container, sizeof(s->c.container));
}

/* Values only move forward: a smaller one (the kernel's counts may dip
 * for a moment) keeps the larger one seen before. */
static void merge(struct slot *s, const struct gt_fdinfo_client *c, int pid)
{
    int i;

    for (i = 0; i < c->nengines; i++) {
        const struct gt_fdinfo_engine *n = &c->engine[i];
        int before = s->c.nengines;
        struct gt_fdinfo_engine *e = engine(&s->c, n->name, strlen(n->name));
        if (!e)
            continue;
        /* An engine first seen now (its line was missing from a cut read,
         * or the driver prints it once used) starts from here: its time
         * so far was not spent in the last interval. */
        if (s->c.nengines > before) {
            s->prev_ns[before] = n->ns;
            s->prev_cycles[before] = n->cycles;
        }
        e->has_ns |= n->has_ns;
        e->keys |= n->keys;
        e->ns = n->ns > e->ns ? n->ns : e->ns;
        e->cycles = n->cycles > e->cycles ? n->cycles : e->cycles;
        e->total_cycles = n->total_cycles > e->total_cycles ? n->total_cycles : e->total_cycles;
        e->maxfreq_hz = n->maxfreq_hz;
        e->curfreq_hz = n->curfreq_hz;
        e->capacity = n->capacity;
    }
    s->c.mem_resident = c->mem_resident;
    s->c.mem_private = c->mem_private;
    s->c.mem_vram = c->mem_vram;
    s->c.mem_gtt = c->mem_gtt;
    s->c.mem_bytes = c->mem_bytes;
    s->c.has_private = c->has_private;
    s->c.has_vram_gtt = c->has_vram_gtt;
    if (pid < s->c.pid)
        s->c.pid = pid;
    s->seen = 1;
}

static struct slot *add_slot(struct gt_fdinfo *f, const struct gt_fdinfo_client *c, int pid)
{
    struct slot *s;

    if (f->nslots == f->capslots) {
        size_t cap = f->capslots ? 2 * f->capslots : 16;
        struct slot *n = realloc(f->slots, cap * sizeof(*n));
        if (!n)
            return NULL;
        f->slots = n;
        f->capslots = cap;
    }
    s = &f->slots[f->nslots++];
    memset(s, 0, sizeof(*s));
    s->c = *c;
    s->c.pid = pid;
    s->seen = 1;
    s->named_pid = 0;
    name_slot(f, s);
    return s;
}

/* The kernel ends every fdinfo line with a newline; a text that does not
 * was cut short (the file changed or went away mid-read) and its last
 * line, a number cut to a smaller one perhaps, is not to be trusted. */
static void drop_cut_line(char *text)
{
    char *nl = strrchr(text, '\n');

    if (nl)
        nl[1] = '\0';
    else
        text[0] = '\0';
}

/* Reads /proc/PID/fdinfo/FD; 1 when it is a DRM client (recorded), 0
 * when not, -1 when it is gone. */
static int read_fd(struct gt_fdinfo *f, int pid, int fd)
{
    struct gt_fdinfo_client c;
    struct slot *s;
    char path[64];

    snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
    if (gt_sys_read_file(f->sys, path, f->text, FDINFO_MAX) < 0)
        return -1;
    drop_cut_line(f->text);
    if (gt_fdinfo_parse(f->text, &c) < 0)
        return 0;
    s = find_slot(f, &c);
    if (s)
        merge(s, &c, pid);
    else if (!add_slot(f, &c, pid))
        return -1;
    return 1;
}

/* ---- the walk ---- */

static int known(const struct gt_fdinfo *f, int pid, int fd)
{
    size_t i;

    for (i = 0; i < f->nfds; i++)
        if (f->fds[i].pid == pid && f->fds[i].fd == fd)
            return 1;
    return 0;
}

static int remember(struct gt_fdinfo *f, int pid, int fd)
{
    if (f->nfds == f->capfds) {
        size_t cap = f->capfds ? 2 * f->capfds : 32;
        struct known_fd *n = realloc(f->fds, cap * sizeof(*n));
        if (!n)
            return -1;
        f->fds = n;
        f->capfds = cap;
    }
    f->fds[f->nfds].pid = pid;
    f->fds[f->nfds].fd = fd;
    f->nfds++;
    return 0;
}

void gt_fdinfo_adopt(struct gt_fdinfo *f, const struct gt_fdinfo_fdref *fds, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!known(f, fds[i].pid, fds[i].fd) && read_fd(f, fds[i].pid, fds[i].fd) == 1)
            remember(f, fds[i].pid, fds[i].fd);
}

static int walk(struct gt_fdinfo *f)
{
    struct gt_fdinfo_fdref *fds = NULL;
    size_t procs;
    long n = gt_fdinfo_scan_all(f->sys, &fds, &procs);

    if (n < 0)
        return -1;
    gt_fdinfo_adopt(f, fds, (size_t)n);
    free(fds);
    gt_fdinfo_finder_walked(f->finder, procs);
    f->procs_listed = procs;
    f->st.fds_seen = (uint64_t)n;
    f->st.walks++;
    return 0;
}

/* A client found on a new or young pid was not there at the previous
 * update (the pid did not exist, or its fds were probed then without it):
 * every count it printed was made since, so it counts from 0 over that
 * interval and its first update already shows its use. Not where a count
 * is more than the interval can hold (a client inherited from a parent
 * with history: the reading is then only a baseline), nor for the GPU
 * clock's own count (drm-total-cycles), which runs from before. */
static void opened_since(struct slot *s, uint64_t since, uint64_t now)
{
    double dt = (double)(now - since), most = GT_FDINFO_OVER_PCT / 100.0;
    int i;

    if (!since || now <= since)
        return;
    for (i = 0; i < s->c.nengines; i++) {
        const struct gt_fdinfo_engine *e = &s->c.engine[i];
        int ns_fits = (double)e->ns <= dt * e->capacity * most;
        int cyc_fits = e->maxfreq_hz && (double)e->cycles <= dt * 1e-9 * (double)e->maxfreq_hz *
                                                                 e->capacity * most;
        s->prev_ns[i] = ns_fits ? 0 : e->ns;
        s->prev_cycles[i] = cyc_fits ? 0 : e->cycles;
        s->prev_total[i] = e->total_cycles;
    }
    s->prev_n = s->c.nengines;
    s->prev_t = since;
}

/* Between full walks: new and young pids and a slice of the rotation. */
static int find(struct gt_fdinfo *f, uint64_t now_ns)
{
    struct gt_fdinfo_refs r = { NULL, 0, 0 };
    int done = gt_fdinfo_finder_tick(f->finder, now_ns, &r);
    size_t i;

    if (done < 0)
        return -1;
    for (i = 0; i < r.n; i++) {
        size_t before = f->nslots;
        if (known(f, r.v[i].pid, r.v[i].fd) || read_fd(f, r.v[i].pid, r.v[i].fd) != 1)
            continue;
        remember(f, r.v[i].pid, r.v[i].fd);
        if (r.v[i].young && f->nslots > before)
            opened_since(&f->slots[f->nslots - 1], f->prev_update_ns, now_ns);
    }
    free(r.v);
    f->st.walks += (uint64_t)done;
    return 0;
}

size_t gt_fdinfo_read_refs(const struct gt_sys *sys, const struct gt_fdinfo_fdref *fds, size_t n,
                           uint64_t now_ns, struct gt_fdinfo_reading *out)
{
    char text[FDINFO_MAX], path[64];
    size_t i, k = 0;

    for (i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", fds[i].pid, fds[i].fd);
        if (gt_sys_read_file(sys, path, text, sizeof(text)) < 0)
            continue;
        drop_cut_line(text);
        if (gt_fdinfo_parse(text, &out[k].c) < 0)
            continue;
        out[k].pid = fds[i].pid;
        out[k].fd = fds[i].fd;
        out[k].t_ns = now_ns;
        k++;
    }
    return k;
}

/* The reading is the new client's baseline, taken at its own time. */
static void baseline(struct slot *s, uint64_t t_ns)
{
    int i;

    for (i = 0; i < s->c.nengines; i++) {
        s->prev_ns[i] = s->c.engine[i].ns;
        s->prev_cycles[i] = s->c.engine[i].cycles;
        s->prev_total[i] = s->c.engine[i].total_cycles;
    }
    s->prev_n = s->c.nengines;
    s->prev_t = t_ns;
}

void gt_fdinfo_adopt_readings(struct gt_fdinfo *f, const struct gt_fdinfo_reading *r, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct slot *s;
        if (known(f, r[i].pid, r[i].fd))
            continue;
        s = find_slot(f, &r[i].c);
        if (s)
            merge(s, &r[i].c, r[i].pid);
        else if ((s = add_slot(f, &r[i].c, r[i].pid)) != NULL)
            baseline(s, r[i].t_ns);
        if (s)
            remember(f, r[i].pid, r[i].fd);
    }
}

/* Known fds re-read; those gone (closed, process exited) forgotten. */
static void reread(struct gt_fdinfo *f)
{
    size_t i = 0;

    while (i < f->nfds) {
        f->st.rereads++;
        if (read_fd(f, f->fds[i].pid, f->fds[i].fd) == 1) {
            i++;
            continue;
        }
        f->fds[i] = f->fds[--f->nfds];
    }
}

/* ---- busy shares ---- */

/* Engine time over wall time; else cycles over the GPU clock's own count
 * (xe); else cycles over what the max clock gives in the interval; each
 * over the engine's capacity (drm-usage-stats.rst: identical engines under
 * one name). */
static double engine_busy(const struct gt_fdinfo_engine *e, uint64_t dt)
{
    if (!dt)
        return 0;
    if (e->has_ns)
        return 100.0 * (double)e->d_ns / (double)dt / e->capacity;
    if (e->d_total_cycles)
        return 100.0 * (double)e->d_cycles / (double)e->d_total_cycles / e->capacity;
    if (e->cycles && e->maxfreq_hz)
        return 100.0 * (double)e->d_cycles / ((double)e->maxfreq_hz * (double)dt / 1e9) /
               e->capacity;
    return 0;
}

static void compute(struct slot *s, uint64_t now)
{
    uint64_t dt = s->prev_t ? now - s->prev_t : 0;
    int i;

    s->c.busy_pct = 0;
    s->c.over = 0;
    for (i = 0; i < s->c.nengines; i++) {
        struct gt_fdinfo_engine *e = &s->c.engine[i];
        int based = s->prev_t && i < s->prev_n;
        e->d_ns = based ? e->ns - s->prev_ns[i] : 0;
        e->d_cycles = based ? e->cycles - s->prev_cycles[i] : 0;
        e->d_total_cycles = based ? e->total_cycles - s->prev_total[i] : 0;
        e->busy_pct = engine_busy(e, dt);
        if (e->busy_pct > s->c.busy_pct)
            s->c.busy_pct = e->busy_pct;
        s->c.over |= e->busy_pct > GT_FDINFO_OVER_PCT;
        s->prev_ns[i] = e->ns;
        s->prev_cycles[i] = e->cycles;
        s->prev_total[i] = e->total_cycles;
    }
    s->prev_n = s->c.nengines;
    s->prev_t = now;
    s->c.seen_ns = now;
}

static int by_use(const void *a, const void *b)
{
    const struct gt_fdinfo_client *x = *(const struct gt_fdinfo_client *const *)a;
    const struct gt_fdinfo_client *y = *(const struct gt_fdinfo_client *const *)b;

    if (x->busy_pct != y->busy_pct)
        return x->busy_pct < y->busy_pct ? 1 : -1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Clients not seen this update are gone; the rest get their shares. */
static int settle(struct gt_fdinfo *f, uint64_t now)
{
    size_t i = 0, k;
    const struct gt_fdinfo_client **n;

    while (i < f->nslots) {
        if (!f->slots[i].seen) {
            f->slots[i] = f->slots[--f->nslots];
            continue;
        }
        compute(&f->slots[i], now);
        name_slot(f, &f->slots[i]);
        i++;
    }
    n = realloc(f->sorted, (f->nslots ? f->nslots : 1) * sizeof(*n));
    if (!n)
        return -1;
    f->sorted = n;
    for (k = 0; k < f->nslots; k++)
        f->sorted[k] = &f->slots[k].c;
    f->nsorted = f->nslots;
    qsort(f->sorted, f->nsorted, sizeof(*f->sorted), by_use);
    return 0;
}

static int walk_due(const struct gt_fdinfo *f, uint64_t now_ns)
{
    if (!f->walk_period_ns)
        return !f->walked;
    return !f->walked || now_ns - f->last_walk_ns >= f->walk_period_ns;
}

void gt_fdinfo_set_walk_period(struct gt_fdinfo *f, uint64_t period_ns)
{
    f->walk_period_ns = period_ns;
}

int gt_fdinfo_update(struct gt_fdinfo *f, uint64_t now_ns, int force_walk)
{
    uint64_t t0 = gt_now_ns(), t1;
    size_t i;
    int r = 0;

    for (i = 0; i < f->nslots; i++) {
        f->slots[i].seen = 0;
        f->slots[i].c.pid = 0x7FFFFFFF;
    }
    reread(f);
    t1 = gt_now_ns();
    f->st.reread_ns_last = t1 - t0;
    if (walk_due(f, now_ns) || force_walk) {
        r = walk(f);
        f->st.walk_ns_last = gt_now_ns() - t1;
        f->walked = 1;
        f->last_walk_ns = now_ns;
    } else if (!f->walk_period_ns) {
        r = find(f, now_ns);
        f->st.walk_ns_last = gt_now_ns() - t1;
    }
    f->prev_update_ns = now_ns;
    if (settle(f, now_ns) < 0)
        return -1;
    return r;
}

size_t gt_fdinfo_clients(const struct gt_fdinfo *f,
                         const struct gt_fdinfo_client *const **out)
{
    *out = f->sorted;
    return f->nsorted;
}

const struct gt_fdinfo_stats *gt_fdinfo_stats(const struct gt_fdinfo *f)
{
    return &f->st;
}

static int profiling_bits(const struct gt_fdinfo_client *c)
{
    int k, ns = 0, cycles = 0, panthor = strcmp(c->driver, "panthor") == 0;

    if (!panthor && strcmp(c->driver, "panfrost") != 0)
        return 0;
    for (k = 0; k < c->nengines; k++) {
        ns |= c->engine[k].has_ns;
        cycles |= (c->engine[k].keys & GT_FDINFO_K_CYCLES) != 0;
    }
    if (ns)
        return 0;
    if (!panthor)
        return GT_FDINFO_PROF_PANFROST_OFF;
    return cycles ? GT_FDINFO_PROF_PANTHOR_CYCLES : GT_FDINFO_PROF_PANTHOR_OFF;
}

int gt_fdinfo_profiling_off(const struct gt_fdinfo *f)
{
    size_t i;
    int bits = 0;

    for (i = 0; i < f->nslots; i++)
        bits |= profiling_bits(&f->slots[i].c);
    return bits;
}

size_t gt_fdinfo_procs_listed(const struct gt_fdinfo *f)
{
    return f->procs_listed;
}

struct gt_fdinfo *gt_fdinfo_new(const struct gt_sys *sys, unsigned walk_every)
{
    struct gt_fdinfo *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    f->text = malloc(FDINFO_MAX);
    if (!f->text) {
        free(f);
        return NULL;
    }
    f->sys = sys;
    f->finder = gt_fdinfo_finder_new(sys, walk_every ? walk_every : 1, FIND_BUDGET_NS);
    if (!f->finder) {
        gt_fdinfo_free(f);
        return NULL;
    }
    return f;
}

void gt_fdinfo_free(struct gt_fdinfo *f)
{
    if (!f)
        return;
    free(f->slots);
    free(f->fds);
    free(f->sorted);
    free(f->text);
    gt_fdinfo_finder_free(f->finder);
    free(f);
}

void gt_fdinfo_set_find_budget(struct gt_fdinfo *f, uint64_t budget_ns)
{
    gt_fdinfo_finder_set_budget(f->finder, budget_ns);
}

const struct gt_fdinfo_find_stats *gt_fdinfo_find_stats(const struct gt_fdinfo *f)
{
    return gt_fdinfo_finder_stats(f->finder);
}
