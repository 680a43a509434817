/* The cpu source: per-cluster CPU time from /proc/stat and CPU cycles from
 * perf_event_open, for the guides' "CPU performance" rows. */
#include "gputop/source.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAT_PATH     "/proc/stat"
#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define SYSFS_CPU     "/sys/devices/system/cpu"
#define BUF_MIN       (64u << 10)
#define BUF_MAX       (16u << 20)
#define MAX_CPU_NUM   (1u << 20)   /* far above any kernel's NR_CPUS */
#define MIN_FIELDS    4            /* user nice system idle: every kernel has them */

/* The /proc/stat fields counted. guest and guest_nice follow but are
 * already included in user and nice, so counting them would count twice. */
enum field { F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL, NFIELDS };

static const char *const field_names[] = {
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice",
};
#define NNAMED (sizeof(field_names) / sizeof(field_names[0]))

/* How CPUs are grouped into clusters, in the order auto tries them. */
enum group_by { BY_CLUSTER_ID, BY_CPUFREQ, BY_PACKAGE, BY_NONE, NGROUP_BY, BY_AUTO = NGROUP_BY };

static const char *const group_args[NGROUP_BY] = { "cluster_id", "cpufreq", "package", "none" };
static const char *const group_detail[NGROUP_BY] = {
    "cluster_id", "cpufreq policies", "physical_package_id", "no topology",
};

enum cycles_mode { CYCLES_AUTO, CYCLES_ON, CYCLES_OFF };

struct ticks {
    uint64_t v[NFIELDS];
};

struct cpu {
    unsigned num;              /* the kernel's CPU number */
    uint32_t cluster;
    long key;                  /* grouping key while clusters are assigned */
    int seen;                  /* listed in the latest /proc/stat */
    int have_prev;             /* prev is a baseline to subtract */
    struct ticks prev, cur;
    int fd;                    /* perf cycle counter, -1 without */
    int have_cycles;
    uint64_t cyc_prev[3];      /* count, time enabled, time running */
};

struct cpu_src {
    struct gt_sys sys;         /* the caller's seam with root= applied */
    char root[1024];
    char stat_path[1100];      /* root + /proc/stat, for messages */
    struct cpu *cpus;          /* ascending CPU numbers */
    size_t ncpus, cap;
    uint32_t nclusters;
    enum group_by by;
    int cycles;                /* 1 when every CPU has a perf counter */
    int cycles_off;            /* cycles=off: perf never tried */
    char cycles_why[80];       /* why not, when perf was tried and failed */
    uint32_t slot_user, slot_sys, slot_total, slot_cycles;
    uint32_t slot_core_user, slot_core_sys, slot_core_total;  /* per CPU */
    char *buf;                 /* /proc/stat and sysfs files */
    size_t buflen;
    int stat_fd;               /* /proc/stat kept open between samples; -1 none */
    uint64_t last_ns;
};

/* ---- messages ---- */

/* Unnamed: whoever reports it says which source (the sampler, --source). */
static int fail(struct gt_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct gt_diag *d, const char *fmt, ...)
{
    char msg[GT_DIAG_MSG];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gt_diag_set(d, "%s", msg);      /* escaped there, as every message */
    return -1;
}

/* ---- reading files ---- */

/* Reads into p->buf with read_fn, growing the buffer rather than
 * truncating; returns the length or -1 with errno set (EFBIG when the
 * file exceeds BUF_MAX). */
static ssize_t read_growing(struct cpu_src *p, ssize_t (*read_fn)(struct cpu_src *, const char *),
                            const char *path)
{
    for (;;) {
        ssize_t n = read_fn(p, path);
        char *bigger;

        if (n < 0 || (size_t)n < p->buflen - 1)
            return n;
        if (p->buflen >= BUF_MAX) {
            errno = EFBIG;
            return -1;
        }
        bigger = realloc(p->buf, p->buflen * 2);
        if (!bigger) {
            errno = ENOMEM;
            return -1;
        }
        p->buf = bigger;
        p->buflen *= 2;
    }
}

static ssize_t read_once(struct cpu_src *p, const char *path)
{
    return gt_sys_read_file(&p->sys, path, p->buf, p->buflen);
}

static void close_stat(struct cpu_src *p)
{
    if (p->stat_fd >= 0)
        p->sys.close(p->sys.ctx, p->stat_fd);
    p->stat_fd = -1;
}

/* /proc/stat is read every sample: kept open and read again from its start
 * (an open, a path walk and a close fewer each time), where the seam can. */
static ssize_t reread_stat(struct cpu_src *p, const char *path)
{
    ssize_t n;
    int e;

    if (!p->sys.pread)
        return read_once(p, path);
    if (p->stat_fd < 0)
        p->stat_fd = gt_sys_open_below(&p->sys, path);
    if (p->stat_fd < 0)
        return -1;
    /* One pread: the kernel writes /proc/stat out whole for a read from
     * its start (fs/proc/stat.c: single_open_size), so a read short of
     * the buffer is all of it; reading on to the end-of-file would make it
     * write everything out again (fs/seq_file.c, seq_read_iter, for a read
     * at another offset): every CPU's and interrupt's counts, cold, half
     * this source's cost. A full buffer is grown by read_growing. */
    n = p->sys.pread(p->sys.ctx, p->stat_fd, p->buf, p->buflen - 1, 0);
    if (n >= 0) {
        p->buf[n] = '\0';
        return n;
    }
    /* Opened afresh next time, in case the fd itself went bad. */
    e = errno;
    close_stat(p);
    errno = e;
    return -1;
}

static ssize_t read_whole(struct cpu_src *p, const char *path)
{
    return read_growing(p, read_once, path);
}

/* A sysfs file holding one integer; -1 when absent or not a number. */
static int read_long(struct cpu_src *p, const char *path, long *out)
{
    char *end;

    if (read_whole(p, path) < 0)
        return -1;
    errno = 0;
    *out = strtol(p->buf, &end, 10);
    if (errno || end == p->buf)
        return -1;
    while (*end == ' ' || *end == '\n' || *end == '\t')
        end++;
    return *end ? -1 : 0;
}

/* ---- /proc/stat ---- */

/* Parses a decimal number ending at a blank or the end; 0 or -1. */
static int parse_u64(const char **s, const char *end, uint64_t *out)
{
    const char *q = *s;
    uint64_t v = 0;

    if (q == end || *q < '0' || *q > '9')
        return -1;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        unsigned digit = (unsigned)(*q - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    if (q < end && *q != ' ' && *q != '\t')
        return -1;
    *s = q;
    *out = v;
    return 0;
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

static const char *token_end(const char *s, const char *end)
{
    while (s < end && *s != ' ' && *s != '\t')
        s++;
    return s;
}

/* "cpuN f0 f1 ..." into num and t; -1 with why on a malformed line. */
static int parse_cpu_line(const char *s, const char *end, unsigned *num, struct ticks *t,
                          char *why, size_t len)
{
    const char *q = s + 3;
    uint64_t n, v;
    size_t i;

    if (parse_u64(&q, end, &n) < 0 || n >= MAX_CPU_NUM) {
        snprintf(why, len, "'%.*s' is not a CPU name", (int)(token_end(s, end) - s), s);
        return -1;
    }
    *num = (unsigned)n;
    memset(t, 0, sizeof(*t));
    for (i = 0;; i++) {
        q = skip_blanks(q, end);
        if (q == end)
            break;
        if (parse_u64(&q, end, &v) < 0) {
            const char *e = token_end(q, end);
            snprintf(why, len, "cpu%u field %zu (%s): '%.*s' is not a number", *num, i + 1,
                     i < NNAMED ? field_names[i] : "extra", (int)(e - q), q);
            return -1;
        }
        if (i < NFIELDS)
            t->v[i] = v;
    }
    if (i < MIN_FIELDS) {
        snprintf(why, len, "cpu%u has %zu field%s, expected at least %d (user nice system idle)",
                 *num, i, i == 1 ? "" : "s", MIN_FIELDS);
        return -1;
    }
    return 0;
}

typedef int (*cpu_line_fn)(struct cpu_src *p, unsigned num, const struct ticks *t, char *why,
                           size_t len);

/* Calls fn for every "cpuN" line of text (the "cpu" total is skipped).
 * Errors name the file and line. */
static int each_cpu_line(struct cpu_src *p, const char *text, size_t n, cpu_line_fn fn,
                         struct gt_diag *d)
{
    const char *s = text, *end = text + n;
    char why[256];
    int line = 0;

    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        struct ticks t;
        unsigned num;

        line++;
        if (eol - s > 3 && memcmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9') {
            if (parse_cpu_line(s, eol, &num, &t, why, sizeof(why)) < 0 ||
                fn(p, num, &t, why, sizeof(why)) < 0)
                return fail(d, "%s:%d: %s", p->stat_path, line, why);
        }
        s = eol + (nl ? 1 : 0);
    }
    return 0;
}

static int read_stat(struct cpu_src *p, struct gt_diag *d, size_t *len)
{
    ssize_t n = read_growing(p, reread_stat, STAT_PATH);

    if (n < 0) {
        if (errno == EFBIG)
            return fail(d, "%s is larger than %u MiB", p->stat_path, BUF_MAX >> 20);
        gt_diag_errno(d, errno, "cannot read %s: %s", p->stat_path, strerror(errno));
        return -1;
    }
    *len = (size_t)n;
    return 0;
}

/* Open: the online CPUs, in the kernel's ascending order. */
static int list_cpu(struct cpu_src *p, unsigned num, const struct ticks *t, char *why, size_t len)
{
    struct cpu *c;

    (void)t;
    if (p->ncpus && num <= p->cpus[p->ncpus - 1].num) {
        snprintf(why, len, "cpu%u listed after cpu%u", num, p->cpus[p->ncpus - 1].num);
        return -1;
    }
    if (p->ncpus == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        struct cpu *more = realloc(p->cpus, cap * sizeof(*more));
        if (!more) {
            snprintf(why, len, "out of memory");
            return -1;
        }
        p->cpus = more;
        p->cap = cap;
    }
    c = &p->cpus[p->ncpus++];
    memset(c, 0, sizeof(*c));
    c->num = num;
    c->fd = -1;
    return 0;
}

static struct cpu *find_cpu(struct cpu_src *p, unsigned num)
{
    size_t lo = 0, hi = p->ncpus;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->cpus[mid].num == num)
            return &p->cpus[mid];
        if (p->cpus[mid].num < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Sample: the current values. A CPU brought online after open has no
 * cluster and is left out. */
static int note_cpu(struct cpu_src *p, unsigned num, const struct ticks *t, char *why, size_t len)
{
    struct cpu *c = find_cpu(p, num);

    if (!c)
        return 0;
    if (c->seen) {
        snprintf(why, len, "cpu%u listed twice", num);
        return -1;
    }
    c->cur = *t;
    c->seen = 1;
    return 0;
}

/* Reads /proc/stat into every CPU's cur and seen; on error nothing the
 * next interval depends on has changed. */
static int collect(struct cpu_src *p, struct gt_diag *d)
{
    size_t i, n = 0;

    if (read_stat(p, d, &n) < 0)
        return -1;
    for (i = 0; i < p->ncpus; i++)
        p->cpus[i].seen = 0;
    return each_cpu_line(p, p->buf, n, note_cpu, d);
}

/* ---- clusters ---- */

/* Each CPU's key from cpuN/topology/NAME; -1 unless every CPU has one. */
static int keys_from_topology(struct cpu_src *p, const char *name)
{
    char path[128];
    size_t i;

    for (i = 0; i < p->ncpus; i++) {
        snprintf(path, sizeof(path), SYSFS_CPU "/cpu%u/topology/%s", p->cpus[i].num, name);
        if (read_long(p, path, &p->cpus[i].key) < 0 || p->cpus[i].key < 0)
            return -1;
    }
    return 0;
}

/* Marks the CPUs of a cpulist ("0 1 2 3" or "0-3,7") with key; -1 when
 * the list is malformed or a CPU already belongs to another policy. */
static int mark_cpulist(struct cpu_src *p, const char *s, long key)
{
    while (*s) {
        unsigned long a, b;
        char *e;

        if (strchr(" ,\n\t", *s)) {
            s++;
            continue;
        }
        a = b = strtoul(s, &e, 10);
        if (e == s)
            return -1;
        if (*e == '-') {
            s = e + 1;
            b = strtoul(s, &e, 10);
            if (e == s || b < a)
                return -1;
        }
        for (; a <= b && a < MAX_CPU_NUM; a++) {
            struct cpu *c = find_cpu(p, (unsigned)a);
            if (c && c->key >= 0 && c->key != key)
                return -1;
            if (c)
                c->key = key;
        }
        s = e;
    }
    return 0;
}

/* A policy is named after the first CPU it covers, so probing policy0 up
 * to the highest online CPU finds every policy an online CPU is in. */
static int keys_from_cpufreq(struct cpu_src *p)
{
    unsigned pol, last = p->cpus[p->ncpus - 1].num;
    char path[128];
    size_t i;

    for (i = 0; i < p->ncpus; i++)
        p->cpus[i].key = -1;
    for (pol = 0; pol <= last; pol++) {
        snprintf(path, sizeof(path), SYSFS_CPU "/cpufreq/policy%u/related_cpus", pol);
        if (read_whole(p, path) < 0)
            continue;
        if (mark_cpulist(p, p->buf, (long)pol) < 0)
            return -1;
    }
    for (i = 0; i < p->ncpus; i++)
        if (p->cpus[i].key < 0)
            return -1;
    return 0;
}

static int keys_by(struct cpu_src *p, enum group_by by)
{
    size_t i;

    switch (by) {
    case BY_CLUSTER_ID:
        return keys_from_topology(p, "cluster_id");
    case BY_CPUFREQ:
        return keys_from_cpufreq(p);
    case BY_PACKAGE:
        return keys_from_topology(p, "physical_package_id");
    default:
        for (i = 0; i < p->ncpus; i++)
            p->cpus[i].key = 0;
        return 0;
    }
}

/* Cluster indices follow the lowest CPU in each cluster, so cluster 0
 * holds cpu0 whatever the kernel's ids are. */
static void number_clusters(struct cpu_src *p)
{
    size_t i, j;

    p->nclusters = 0;
    for (i = 0; i < p->ncpus; i++) {
        for (j = 0; j < i && p->cpus[j].key != p->cpus[i].key; j++)
            ;
        p->cpus[i].cluster = j < i ? p->cpus[j].cluster : p->nclusters++;
    }
}

static int group_cpus(struct cpu_src *p, enum group_by by, struct gt_diag *d)
{
    int b;

    if (by != BY_AUTO) {
        if (keys_by(p, by) < 0)
            return fail(d, "cannot group CPUs by %s under %s" SYSFS_CPU, group_args[by],
                        p->sys.root ? p->sys.root : "");
        p->by = by;
    } else {
        for (b = 0; keys_by(p, (enum group_by)b) < 0; b++)
            ;
        p->by = (enum group_by)b;
    }
    number_clusters(p);
    return 0;
}

/* ---- perf cycles ---- */

static void close_cycles(struct cpu_src *p)
{
    size_t i;

    for (i = 0; i < p->ncpus; i++) {
        if (p->cpus[i].fd >= 0)
            p->sys.close(p->sys.ctx, p->cpus[i].fd);
        p->cpus[i].fd = -1;
        p->cpus[i].have_cycles = 0;
    }
    p->cycles = 0;
}

static void explain_perf(struct cpu_src *p, int err, unsigned cpu)
{
    char *why = p->cycles_why;
    size_t len = sizeof(p->cycles_why);
    long paranoid;

    if ((err == EACCES || err == EPERM) && read_long(p, PARANOID_PATH, &paranoid) == 0) {
        if (paranoid > 0)
            snprintf(why, len, "perf_event_paranoid=%ld", paranoid);
        else
            snprintf(why, len, "perf_event_open: %s (perf_event_paranoid=%ld)", strerror(err),
                     paranoid);
    } else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
        snprintf(why, len, "no CPU cycle counter on cpu%u (%s)", cpu, strerror(err));
    } else if (err == ENOSYS) {
        snprintf(why, len, "no perf_event_open");
    } else {
        snprintf(why, len, "perf_event_open on cpu%u: %s", cpu, strerror(err));
    }
}

/* One system-wide cycle counter per CPU; all or none, since a partial
 * sum would read as a quiet cluster. */
static int open_cycles(struct cpu_src *p)
{
    struct perf_event_attr attr;
    size_t i;

    memset(&attr, 0, sizeof(attr));
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof(attr);
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    /* The times let a multiplexed counter be scaled to the whole interval. */
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    for (i = 0; i < p->ncpus; i++) {
        int fd = -1;
        errno = ENOSYS;
        if (p->sys.perf_event_open)
            fd = p->sys.perf_event_open(p->sys.ctx, &attr, -1, (int)p->cpus[i].num, -1,
                                        PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            close_cycles(p);
            explain_perf(p, err, p->cpus[i].num);
            return -1;
        }
        p->cpus[i].fd = fd;
    }
    p->cycles = 1;
    return 0;
}

static uint64_t delta(uint64_t before, uint64_t after)
{
    return after > before ? after - before : 0;   /* backwards: a replugged CPU */
}

/* The count over the interval, scaled up when perf multiplexed it. */
static uint64_t cycles_delta(const uint64_t prev[3], const uint64_t now[3])
{
    uint64_t dv = delta(prev[0], now[0]);
    uint64_t de = delta(prev[1], now[1]);
    uint64_t dr = delta(prev[2], now[2]);

    if (dr == 0)
        return 0;
    if (dr >= de)
        return dv;
    return (uint64_t)((double)dv * (double)de / (double)dr + 0.5);
}

/* A read that fails (CPU gone offline) drops the baseline: no delta now,
 * a fresh start when it counts again. */
static void advance_cycles(struct cpu_src *p, struct gt_snapshot *out)
{
    size_t i;

    for (i = 0; i < p->ncpus && p->cycles; i++) {
        struct cpu *c = &p->cpus[i];
        uint64_t v[3];

        if (p->sys.read(p->sys.ctx, c->fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
            c->have_cycles = 0;
            continue;
        }
        if (out && c->have_cycles)
            out->deltas[p->slot_cycles + c->cluster] += cycles_delta(c->cyc_prev, v);
        memcpy(c->cyc_prev, v, sizeof(v));
        c->have_cycles = 1;
    }
}

/* ---- intervals ---- */

/* Adds each CPU's tick deltas to its cluster (out NULL: baseline only).
 * A CPU missing from /proc/stat was unplugged: no delta, and its first
 * line after replug is a new baseline. */
static void advance_ticks(struct cpu_src *p, struct gt_snapshot *out)
{
    size_t i, f;

    for (i = 0; i < p->ncpus; i++) {
        struct cpu *c = &p->cpus[i];
        uint64_t d[NFIELDS], total = 0;

        if (!c->seen) {
            c->have_prev = 0;
            continue;
        }
        if (out && c->have_prev) {
            for (f = 0; f < NFIELDS; f++)
                total += d[f] = delta(c->prev.v[f], c->cur.v[f]);
            out->deltas[p->slot_user + c->cluster] += d[F_USER] + d[F_NICE];
            out->deltas[p->slot_sys + c->cluster] += d[F_SYSTEM] + d[F_IRQ] + d[F_SOFTIRQ];
            out->deltas[p->slot_total + c->cluster] += total;
            out->deltas[p->slot_core_user + i] = d[F_USER] + d[F_NICE];
            out->deltas[p->slot_core_sys + i] = d[F_SYSTEM] + d[F_IRQ] + d[F_SOFTIRQ];
            out->deltas[p->slot_core_total + i] = total;
        }
        c->prev = c->cur;
        c->have_prev = 1;
    }
}

static int advance(struct cpu_src *p, struct gt_snapshot *out, struct gt_diag *d)
{
    uint64_t now;

    if (collect(p, d) < 0)
        return -1;
    now = gt_now_ns();
    if (out) {
        memset(out->deltas, 0, out->nslots * sizeof(*out->deltas));
        out->t_start_ns = p->last_ns ? p->last_ns : now;
        out->t_end_ns = now;
        out->nsamples = 1;
    }
    advance_ticks(p, out);
    advance_cycles(p, out);
    p->last_ns = now;
    return 0;
}

/* ---- description ---- */

struct text {
    char *buf;
    size_t len, used;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->used + 1 >= t->len)
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used = t->used + (size_t)n < t->len ? t->used + (size_t)n : t->len - 1;
}

/* One cluster's CPUs as ranges: "0-3", or "[0,2,4-5]" when split. */
static void put_cluster(struct text *t, const struct cpu_src *p, uint32_t cl)
{
    char ranges[128];
    struct text r = { ranges, sizeof(ranges), 0 };
    size_t i, j, nranges = 0;

    ranges[0] = '\0';
    for (i = 0; i < p->ncpus; i = j) {
        if (p->cpus[i].cluster != cl) {
            j = i + 1;
            continue;
        }
        for (j = i + 1; j < p->ncpus && p->cpus[j].cluster == cl &&
                        p->cpus[j].num == p->cpus[j - 1].num + 1; j++)
            ;
        put(&r, "%s%u", nranges++ ? "," : "", p->cpus[i].num);
        if (j - i > 1)
            put(&r, "-%u", p->cpus[j - 1].num);
    }
    put(t, nranges > 1 ? "[%s]" : "%s", ranges);
}

static void describe(struct gt_source *s, const struct cpu_src *p)
{
    char list[110];   /* leaves room in detail for the rest */
    struct text l = { list, sizeof(list), 0 };
    uint32_t cl;

    list[0] = '\0';
    for (cl = 0; cl < p->nclusters; cl++) {
        put(&l, "%s", cl ? ", " : "");
        put_cluster(&l, p, cl);
    }
    if (l.used + 1 >= l.len)
        memcpy(list + sizeof(list) - 4, "...", 4);
    snprintf(s->info.device, sizeof(s->info.device), "%.120s", p->stat_path);
    snprintf(s->info.detail, sizeof(s->info.detail), "%u cluster%s: %s (%s); cycles%s%s",
             p->nclusters, p->nclusters == 1 ? "" : "s", list, group_detail[p->by],
             p->cycles ? ": perf" : p->cycles_off ? ": off" : " unavailable: ",
             p->cycles || p->cycles_off ? "" : p->cycles_why);
}

/* ---- catalogue ---- */

/* Three tick counters and the two activity ratios over them, named
 * "CPU<what>TicksUser" ... "CPU<what>ActivitySystem". */
static int add_tick_set(struct gt_catalog *c, const char *what, const char *block, uint32_t n)
{
    static const char *const kinds[3] = { "User", "System", "Total" };
    char name[64];
    int k[3], i;

    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "CPU%sTicks%s", what, kinds[i]);
        if ((k[i] = gt_catalog_add(c, name, block, GT_COUNTER_DELTA, n, 1.0)) < 0)
            return -1;
    }
    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "CPU%sActivity%s", what, kinds[i]);
        if (gt_catalog_add_ratio(c, name, k[i], k[2], 100.0) < 0)
            return -1;
    }
    return 0;
}

/* gt_catalog_add_cpu's counters without CyclesCPUCycles, so metrics using
 * cycles are reported unavailable instead of reading as zero. */
static int add_ticks_only(struct gt_catalog *c, uint32_t n)
{
    return add_tick_set(c, "", "cluster", n);
}

static uint32_t slot_of(const struct gt_catalog *c, const char *name)
{
    int i = gt_catalog_find(c, name);

    return i < 0 ? 0 : c->counters[i].slot;
}

/* The same tick counters for each CPU on its own (block "cpu", one
 * instance per CPU in ascending kernel numbering), for layouts that want
 * more than the guides' per-cluster rows. */
static int add_per_cpu(struct gt_catalog *c, uint32_t n)
{
    return add_tick_set(c, "Core", "cpu", n);
}

static int build_catalog(struct gt_source *s, struct cpu_src *p, struct gt_diag *d)
{
    int r = p->cycles ? gt_catalog_add_cpu(&s->catalog, p->nclusters)
                      : add_ticks_only(&s->catalog, p->nclusters);

    if (r < 0 || add_per_cpu(&s->catalog, (uint32_t)p->ncpus) < 0)
        return fail(d, "cannot build the CPU counter catalogue");
    p->slot_core_user = slot_of(&s->catalog, "CPUCoreTicksUser");
    p->slot_core_sys = slot_of(&s->catalog, "CPUCoreTicksSystem");
    p->slot_core_total = slot_of(&s->catalog, "CPUCoreTicksTotal");
    p->slot_user = slot_of(&s->catalog, "CPUTicksUser");
    p->slot_sys = slot_of(&s->catalog, "CPUTicksSystem");
    p->slot_total = slot_of(&s->catalog, "CPUTicksTotal");
    p->slot_cycles = slot_of(&s->catalog, "CyclesCPUCycles");
    return 0;
}

/* ---- arguments ---- */

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const cpu_keys[] = { "root", "cycles", "clusters", NULL };

static int parse_args(struct cpu_src *p, const char *args, enum group_by *by,
                      enum cycles_mode *cycles, struct gt_diag *d)
{
    char buf[sizeof(p->root)];
    int i;

    if (gt_args_check(args, cpu_keys, "cpu", d) < 0)
        return -1;
    if (gt_args_get(args, "root", buf, sizeof(buf))) {
        if (strlen(buf) >= sizeof(p->root) - 1)
            return fail(d, "root '%.40s...' is too long", buf);
        snprintf(p->root, sizeof(p->root), "%s", buf);
        p->sys.root = p->root;
    }
    *cycles = CYCLES_AUTO;
    if (gt_args_get(args, "cycles", buf, sizeof(buf))) {
        if (strcmp(buf, "off") == 0)
            *cycles = CYCLES_OFF;
        else if (strcmp(buf, "on") == 0)
            *cycles = CYCLES_ON;
        else if (strcmp(buf, "auto") != 0)
            return fail(d, "cycles '%s' is not one of auto, on, off", buf);
    }
    *by = BY_AUTO;
    if (!gt_args_get(args, "clusters", buf, sizeof(buf)) || strcmp(buf, "auto") == 0)
        return 0;
    for (i = 0; i < NGROUP_BY; i++)
        if (strcmp(buf, group_args[i]) == 0)
            *by = (enum group_by)i;
    if (*by == BY_AUTO)
        return fail(d, "clusters '%s' is not one of auto, cluster_id, cpufreq, package, none",
                    buf);
    return 0;
}

/* ---- the source ---- */

static void cpu_free(struct cpu_src *p)
{
    if (!p)
        return;
    close_cycles(p);
    close_stat(p);
    free(p->cpus);
    free(p->buf);
    free(p);
}

static int cpu_open_priv(struct gt_source *s, struct cpu_src *p, const char *args,
                         struct gt_diag *d)
{
    enum cycles_mode cycles;
    enum group_by by;
    size_t n = 0;

    p->sys = *s->sys;
    if (parse_args(p, args, &by, &cycles, d) < 0)
        return -1;
    snprintf(p->stat_path, sizeof(p->stat_path), "%s" STAT_PATH, p->sys.root ? p->sys.root : "");
    if (read_stat(p, d, &n) < 0 || each_cpu_line(p, p->buf, n, list_cpu, d) < 0)
        return -1;
    if (p->ncpus == 0)
        return fail(d, "%s lists no CPUs", p->stat_path);
    if (group_cpus(p, by, d) < 0)
        return -1;
    p->cycles_off = cycles == CYCLES_OFF;
    if (!p->cycles_off && open_cycles(p) < 0 && cycles == CYCLES_ON)
        return fail(d, "cycles=on but %s", p->cycles_why);
    describe(s, p);
    return build_catalog(s, p, d);
}

static int cpu_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct cpu_src *p = calloc(1, sizeof(*p));

    if (p) {
        p->buf = malloc(BUF_MIN);
        p->stat_fd = -1;
    }
    if (!p || !p->buf) {
        free(p);
        return fail(d, "out of memory");
    }
    p->buflen = BUF_MIN;
    if (cpu_open_priv(s, p, args, d) < 0) {
        cpu_free(p);
        return -1;
    }
    s->priv = p;
    return 0;
}

static int cpu_start(struct gt_source *s, struct gt_diag *d)
{
    return advance(s->priv, NULL, d);
}

static enum gt_sample_result cpu_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    if (out->nslots != s->catalog.nslots)
        return fail(d, "snapshot has %u slots, the catalogue needs %u", out->nslots,
                    s->catalog.nslots);
    return advance(s->priv, out, d);
}

static void cpu_close(struct gt_source *s)
{
    cpu_free(s->priv);
    s->priv = NULL;
}

static int cpu_available(const struct gt_sys *sys, char *why, size_t len)
{
    char buf[64];

    if (gt_sys_read_file(sys, STAT_PATH, buf, sizeof(buf)) >= 0)
        return 0;
    if (why && len)
        snprintf(why, len, "cannot read %s" STAT_PATH ": %s", sys->root ? sys->root : "",
                 strerror(errno));
    return -1;
}

const struct gt_source_type gt_source_cpu = {
    .name = "cpu",
    .usage = "cpu[:cycles=auto|on|off][,clusters=auto|cluster_id|cpufreq|package|none]"
             "[,root=DIR]",
    .help = "CPU time per cluster from /proc/stat, cycles from perf; beside a GPU "
            "source unless --no-cpu",
    .keys = cpu_keys,
    .kind = GT_SOURCE_CPU,
    .available = cpu_available,
    .open = cpu_open,
    .start = cpu_start,
    .sample = cpu_sample,
    .close = cpu_close,
};
