/* Reads a valgrind lackey trace (--trace-mem=yes) of bench's gputop-phases
 * on standard input and counts, for each wake-up between its marks
 * ("gputop-wake N awake" / "asleep", bench/tools/phases.c), the distinct
 * 4 KiB pages and 64-byte lines it touched, code and data apart. Prints,
 * for the sampler's wake-ups and the display's, the count and the median
 * of each figure, the first SKIP wake-ups of each left out (start-up);
 * after each wake-up, "counted S D" on standard error (the wake-ups counted
 * so far), for the script to stop the run once it has enough.
 * Usage: wake_pages [SKIP] < trace (SKIP 10). For bench/footprint.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWAKERS   2
#define SET_BITS  16                  /* 65,536 slots: a wake-up is ~3,000 lines */
#define MAX_WAKES 8192

enum { CODE_PAGES, DATA_PAGES, CODE_LINES, DATA_LINES, NFIG };

/* A set of addresses, emptied in O(1) by moving to a new generation. */
struct set {
    uint64_t key[1u << SET_BITS];
    uint32_t gen[1u << SET_BITS];
    uint32_t now, n;
};

struct waker {
    unsigned wakes;                   /* completed, counted or not */
    uint32_t fig[NFIG][MAX_WAKES];
    unsigned nfig;
};

struct counter {
    struct set sets[NFIG];
    struct waker w[NWAKERS];
    int open;                         /* the waker in a wake-up, or -1 */
    unsigned skip;
};

static void set_clear(struct set *s)
{
    s->now++;
    s->n = 0;
}

static void set_add(struct set *s, uint64_t k)
{
    uint32_t mask = (1u << SET_BITS) - 1, i = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;

    while (s->gen[i] == s->now) {
        if (s->key[i] == k)
            return;
        i = (i + 1) & mask;
    }
    if (s->n >= mask / 2)             /* full enough: count no further */
        return;
    s->gen[i] = s->now;
    s->key[i] = k;
    s->n++;
}

/* An access of size bytes at addr: every line and page it covers. */
static void touch(struct counter *c, int code, uint64_t addr, uint64_t size)
{
    uint64_t last = addr + (size ? size : 1) - 1, a;

    for (a = addr >> 6; a <= last >> 6; a++)
        set_add(&c->sets[code ? CODE_LINES : DATA_LINES], a);
    for (a = addr >> 12; a <= last >> 12; a++)
        set_add(&c->sets[code ? CODE_PAGES : DATA_PAGES], a);
}

static void mark(struct counter *c, int who, int awake)
{
    int f;

    if (who < 0 || who >= NWAKERS)
        return;
    if (awake) {
        c->open = who;
        for (f = 0; f < NFIG; f++)
            set_clear(&c->sets[f]);
        return;
    }
    if (c->open != who)
        return;
    c->open = -1;
    if (c->w[who].wakes++ < c->skip || c->w[who].nfig >= MAX_WAKES)
        return;
    for (f = 0; f < NFIG; f++)
        c->w[who].fig[f][c->w[who].nfig] = c->sets[f].n;
    c->w[who].nfig++;
    fprintf(stderr, "counted %u %u\n", c->w[0].nfig, c->w[1].nfig);
}

/* Lackey's lines: "I  ADDR,SIZE" an instruction, " L|S|M ADDR,SIZE" data;
 * valgrind's own and the client's messages start with "==" or "**". */
static void line(struct counter *c, const char *s)
{
    const char *m;
    uint64_t addr, size;
    char *end;
    int code = s[0] == 'I';

    if (s[0] == '*' && (m = strstr(s, "gputop-wake ")) != NULL) {
        mark(c, atoi(m + 12), strstr(m, "awake") != NULL);
        return;
    }
    if (c->open < 0)
        return;
    if (code && s[1] == ' ')
        s += 2;
    else if (s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') && s[2] == ' ')
        s += 3;
    else
        return;
    addr = strtoull(s, &end, 16);
    if (*end != ',')
        return;
    size = strtoull(end + 1, NULL, 10);
    touch(c, code, addr, size);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double median(uint32_t *v, unsigned n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof(*v), cmp_u32);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int main(int argc, char **argv)
{
    static const char *const who[NWAKERS] = { "sampler", "display" };
    struct counter *c = calloc(1, sizeof(*c));
    char buf[512];
    int w;

    if (!c) {
        fprintf(stderr, "wake_pages: out of memory\n");
        return 1;
    }
    c->open = -1;
    c->skip = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
    while (fgets(buf, sizeof(buf), stdin))
        line(c, buf);
    /* "waker wake-ups code-pages data-pages code-lines data-lines" (medians) */
    for (w = 0; w < NWAKERS; w++) {
        struct waker *k = &c->w[w];
        int f;

        printf("%s %u", who[w], k->nfig);
        for (f = 0; f < NFIG; f++)
            printf(" %.1f", median(k->fig[f], k->nfig));
        putchar('\n');
    }
    free(c);
    return 0;
}
