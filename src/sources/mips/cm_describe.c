/* The mips-cm source's detail line: what is counted how, and where each
 * qualifier came from; written at open and again once qualifiers are measured. */
#include "cm_src.h"

#include <stdio.h>

static size_t put(char *p, size_t n, size_t cap, const char *fmt, unsigned long a)
{
    int r;

    if (n >= cap)
        return n;
    r = snprintf(p + n, cap - n, fmt, a);
    return r < 0 ? n : n + (size_t)r;
}

/* Event numbers whose qualifier came about as how, as "0,1,5". */
static size_t list_quals(const struct cm_src *c, int how, char *p, size_t n, size_t cap,
                         const char *label)
{
    size_t i, first = 1;

    for (i = 0; i < c->mux.nevents; i++) {
        int e = c->mux.events[i];
        if (c->qual_how[e] != how)
            continue;
        n = put(p, n, cap, first ? label : ",", 0);
        n = put(p, n, cap, "%lu", cm_events[e].number);
        first = 0;
    }
    return n;
}

/* The detail line (and a capture's header, JSON's) says what is counted
 * how, and where each qualifier came from. */
void cm_describe(struct gt_source *s)
{
    struct cm_src *c = s->priv;
    uint32_t major = c->gcr.rev >> 8 & 0xff, minor = c->gcr.rev & 0xff;
    size_t i, n, cap = sizeof(s->info.detail);
    char *p = s->info.detail;

    n = (size_t)snprintf(p, cap, "CM%s GCR_REV %u.%u, %u cores, %u IOCU; ",
                         major == 6 ? "2" : major == 7 ? "2.5" : "3", major, minor,
                         (c->gcr.config & 0xff) + 1, c->gcr.config >> 8 & 0xf);
    if (c->mux.nevents > 2)
        n = put(p, n, cap, "%lu events over 2 counters (multiplexed, estimates)",
                c->mux.nevents);
    else
        n = put(p, n, cap, c->pinned ? "%lu events pinned (events=), exact" : "%lu events, exact",
                c->mux.nevents);
    for (i = 0; i < c->mux.nevents; i++) {
        int e = c->mux.events[i];
        if (c->qual_how[e] == CM_QUAL_LAYOUT && c->qual[e] && n < cap)
            n += (size_t)snprintf(p + n, cap - n, "; %s qual 0x%08x", cm_events[e].counter,
                                  c->qual[e]);
    }
    n = list_quals(c, CM_QUAL_ALL, p, n, cap, "; qual 0xffffffff (measured, 0 counted nothing): ");
    n = list_quals(c, CM_QUAL_NONE, p, n, cap, "; nothing counted with qual 0 or 0xffffffff: ");
    if (n >= cap)
        p[cap - 1] = '\0';
}
