/* What the memory a wake-up touches costs this machine: after a sleep as
 * long as the dashboard's refresh period, the first touch of a 4 KiB page
 * and of a cache line, each less the same walk again at once (warm). Under
 * a hypervisor without process-context TLB tags a page touched after any
 * other process ran needs its translation walked again, through the guest's
 * page tables and the host's; gputop's own work per wake-up is mostly such
 * first touches (README, "Cost of the dashboard"), so this sets the
 * price of each page and line its wake-ups touch (footprint.sh counts them).
 * Each walk is a dependent chain (every address read from the last), as
 * code that follows pointers pays it; a chain of independent loads is
 * timed too, which the processor can overlap. And a page touched again
 * right after a system call, less the same touch with none between: on a
 * machine that keeps a process's TLB entries across a call into the
 * kernel that costs nothing; here (a PVM guest: the host shadows its page
 * tables and exposes no process-context tags) every return to user space
 * empties the TLB, so each wake-up walks every page it touches again.
 * Prints figures; no goal. Usage: page_cost [ROUNDS] (15). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE       4096
#define LINE       64
#define NPAGES     512                /* 2 MiB of pages, one line of each */
#define NLINES     512                /* every line of 8 pages */
#define SLEEP_NS   250000000L         /* the default refresh period */
#define ROUNDS_DEFAULT 15
#define SYS_PAGES  64                 /* within the first-level data TLB */
#define SYS_ROUNDS 201

struct walk {
    const char *name;
    size_t *at;                       /* byte offsets, in visiting order */
    size_t n;
    double dep[64], ind[64];          /* ns per item, cold less warm */
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fixed generator, so that every run visits the same order. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void shuffle(size_t *a, size_t n, uint64_t *seed)
{
    size_t i;

    for (i = n - 1; i > 0; i--) {
        size_t j = (size_t)(next_rand(seed) % (i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Links the offsets into a ring: each visited word holds the next offset. */
static void link_ring(char *buf, const size_t *at, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        memcpy(buf + at[i], &at[(i + 1) % n], sizeof(size_t));
}

static size_t chase(const char *buf, size_t start, size_t n)
{
    size_t i, p = start;

    for (i = 0; i < n; i++)
        p = *(const volatile size_t *)(buf + p);
    return p;
}

static size_t gather(const char *buf, const size_t *at, size_t n)
{
    size_t i, s = 0;

    for (i = 0; i < n; i++)
        s += *(const volatile size_t *)(buf + at[i]);
    return s;
}

static void sleep_refresh(void)
{
    struct timespec ts = { 0, SLEEP_NS };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* One round of a walk: cold then warm, both ways, after a refresh's sleep. */
static void time_walk(const char *buf, struct walk *w, int r, size_t *sink)
{
    uint64_t t0, t1, t2;

    sleep_refresh();
    t0 = now_ns();
    *sink += chase(buf, w->at[0], w->n);
    t1 = now_ns();
    *sink += chase(buf, w->at[0], w->n);
    t2 = now_ns();
    w->dep[r] = ((double)(t1 - t0) - (double)(t2 - t1)) / (double)w->n;
    sleep_refresh();
    t0 = now_ns();
    *sink += gather(buf, w->at, w->n);
    t1 = now_ns();
    *sink += gather(buf, w->at, w->n);
    t2 = now_ns();
    w->ind[r] = ((double)(t1 - t0) - (double)(t2 - t1)) / (double)w->n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A page touched again after a system call, less the same touch again with
 * none between, ns per page (median of SYS_ROUNDS): the TLB entries a
 * return from the kernel loses. Caches stay warm: each walk finds its
 * page-table entries in cache, so this is the least a lost entry costs. */
static double after_syscall(const char *buf, size_t start, size_t *sink)
{
    static double v[SYS_ROUNDS];
    int r;

    for (r = 0; r < SYS_ROUNDS; r++) {
        uint64_t t0, t1, t2, t3;

        *sink += chase(buf, start, SYS_PAGES);
        t0 = now_ns();
        *sink += chase(buf, start, SYS_PAGES);
        t1 = now_ns();
        syscall(SYS_getppid);
        t2 = now_ns();
        *sink += chase(buf, start, SYS_PAGES);
        t3 = now_ns();
        v[r] = ((double)(t3 - t2) - (double)(t1 - t0)) / SYS_PAGES;
    }
    return median(v, SYS_ROUNDS);
}

/* A price for make bench's table. A lost cache line or TLB entry can only
 * cost more, so a median at or below zero is noise larger than the effect,
 * not a price: printed as "none". */
static void summary_ns(const char *what, double ns, int decimals)
{
    if (ns <= 0)
        printf("summary: %s\tnone\t-\t-\n", what);
    else
        printf("summary: %s\t%.*f ns\t-\t-\n", what, decimals, ns);
}

int main(int argc, char **argv)
{
    static size_t pages_at[NPAGES], lines_at[NLINES];
    struct walk walks[2] = { { "a 4 KiB page (one line of it)", pages_at, NPAGES, { 0 }, { 0 } },
                             { "a line (512 lines of 8 pages)", lines_at, NLINES, { 0 }, { 0 } } };
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS_DEFAULT, r, k;
    size_t size = (size_t)NPAGES * PAGE + (size_t)NLINES * LINE, i, sink = 0;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double sys;
    char *buf;

    if (rounds < 3 || rounds > 64) {
        fprintf(stderr, "page_cost: ROUNDS is 3..64\n");
        return 1;
    }
    buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        perror("page_cost: mmap");
        return 1;
    }
    /* 4 KiB pages, as gputop's heap below 2 MiB has. */
    madvise(buf, size, MADV_NOHUGEPAGE);
    memset(buf, 1, size);
    for (i = 0; i < NPAGES; i++)
        pages_at[i] = i * PAGE + (size_t)(next_rand(&seed) % (PAGE / LINE)) * LINE;
    for (i = 0; i < NLINES; i++)
        lines_at[i] = (size_t)NPAGES * PAGE + i * LINE;
    shuffle(pages_at, NPAGES, &seed);
    shuffle(lines_at, NLINES, &seed);
    link_ring(buf, pages_at, NPAGES);
    link_ring(buf, lines_at, NLINES);

    for (r = 0; r < rounds; r++)
        for (k = 0; k < 2; k++)
            time_walk(buf, &walks[k], r, &sink);
    printf("first touch after %ld ms asleep, less the same touch warm, median of %d rounds\n",
           SLEEP_NS / 1000000, rounds);
    for (k = 0; k < 2; k++) {
        double dep = median(walks[k].dep, rounds), ind = median(walks[k].ind, rounds);
        char what[96];

        printf("  %-34s %7.1f ns dependent, %7.1f ns independent\n", walks[k].name, dep, ind);
        snprintf(what, sizeof(what), "first touch after a refresh's sleep: %s, dependent",
                 k ? "a line" : "a page");
        summary_ns(what, dep, 0);
    }
    sys = after_syscall(buf, pages_at[0], &sink);
    printf("a page touched again after a system call, less with none between (%d pages, "
           "caches warm, median of %d): %.1f ns\n", SYS_PAGES, SYS_ROUNDS, sys);
    summary_ns("a page touched again after a system call", sys, 1);
    munmap(buf, size);
    (void)sink;      /* the reads are volatile: nothing to keep alive */
    return 0;
}
