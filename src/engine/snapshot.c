/* Snapshots: per-slot counter deltas over one interval, and how two
 * consecutive intervals merge when a reader falls behind. */
#include "gputop/snapshot.h"

#include <stdlib.h>
#include <string.h>

int gt_snapshot_init(struct gt_snapshot *s, uint32_t nslots)
{
    memset(s, 0, sizeof(*s));
    s->deltas = calloc(nslots ? nslots : 1, sizeof(uint64_t));
    if (!s->deltas)
        return -1;
    s->nslots = nslots;
    return 0;
}

void gt_snapshot_free(struct gt_snapshot *s)
{
    free(s->deltas);
    memset(s, 0, sizeof(*s));
}

static void clear_times(struct gt_snapshot *s)
{
    s->t_start_ns = s->t_end_ns = 0;
    s->nsamples = 0;
    s->missing = 0;
}

static void widen_times(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    if (dst->nsamples == 0)
        dst->t_start_ns = src->t_start_ns;
    dst->t_end_ns = src->t_end_ns;
    dst->nsamples += src->nsamples;
    dst->missing |= src->missing;
}

static void copy_times(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    dst->t_start_ns = src->t_start_ns;
    dst->t_end_ns = src->t_end_ns;
    dst->nsamples = src->nsamples;
    dst->missing = src->missing;
}

static uint32_t common_slots(const struct gt_snapshot *a, const struct gt_snapshot *b)
{
    return a->nslots < b->nslots ? a->nslots : b->nslots;
}

void gt_snapshot_zero(struct gt_snapshot *s)
{
    memset(s->deltas, 0, (size_t)s->nslots * sizeof(uint64_t));
    clear_times(s);
}

void gt_snapshot_accumulate(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    struct gt_span all = { 0, common_slots(dst, src) };

    gt_snapshot_accumulate_spans(dst, src, &all, 1);
}

void gt_snapshot_copy(struct gt_snapshot *dst, const struct gt_snapshot *src)
{
    memcpy(dst->deltas, src->deltas, (size_t)common_slots(dst, src) * sizeof(uint64_t));
    copy_times(dst, src);
}

void gt_snapshot_zero_spans(struct gt_snapshot *s, const struct gt_span *sp, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        memset(s->deltas + sp[i].first, 0, (size_t)sp[i].count * sizeof(uint64_t));
    clear_times(s);
}

/* d += s over n slots. Four at a time, and restrict (two snapshots never
 * share an array), so the compiler can pair the adds in vector registers:
 * a sampler that merges intervals does this every sample. */
static void add_slots(uint64_t *restrict d, const uint64_t *restrict s, uint32_t n)
{
    uint32_t j = 0;

    for (; n - j >= 4; j += 4) {
        d[j] += s[j];
        d[j + 1] += s[j + 1];
        d[j + 2] += s[j + 2];
        d[j + 3] += s[j + 3];
    }
    for (; j < n; j++)
        d[j] += s[j];
}

void gt_snapshot_accumulate_spans(struct gt_snapshot *dst, const struct gt_snapshot *src,
                                  const struct gt_span *sp, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        add_slots(dst->deltas + sp[i].first, src->deltas + sp[i].first, sp[i].count);
    widen_times(dst, src);
}

void gt_snapshot_copy_spans(struct gt_snapshot *dst, const struct gt_snapshot *src,
                            const struct gt_span *sp, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        memcpy(dst->deltas + sp[i].first, src->deltas + sp[i].first,
               (size_t)sp[i].count * sizeof(uint64_t));
    copy_times(dst, src);
}

void gt_snapshot_exchange(struct gt_snapshot *dst, struct gt_snapshot *src)
{
    uint64_t *t = dst->deltas;

    dst->deltas = src->deltas;
    src->deltas = t;
    copy_times(dst, src);
}

static int by_first(const void *a, const void *b)
{
    const struct gt_span *x = a, *y = b;

    return (x->first > y->first) - (x->first < y->first);
}

size_t gt_spans_normalize(struct gt_span *sp, size_t n, uint32_t gap)
{
    size_t i, out = 0;

    if (n == 0)
        return 0;
    qsort(sp, n, sizeof(*sp), by_first);
    for (i = 1; i < n; i++) {
        struct gt_span *last = &sp[out];
        uint64_t end = (uint64_t)last->first + last->count;
        if ((uint64_t)sp[i].first <= end + gap) {
            uint64_t e2 = (uint64_t)sp[i].first + sp[i].count;
            if (e2 > end)
                last->count = (uint32_t)(e2 - last->first);
        } else {
            sp[++out] = sp[i];
        }
    }
    return out + 1;
}

size_t gt_spans_subtract(const struct gt_span *a, size_t na, const struct gt_span *b, size_t nb,
                         struct gt_span *out)
{
    size_t i, j = 0, k, n = 0;

    for (i = 0; i < na; i++) {
        uint64_t at = a[i].first, end = at + a[i].count;
        /* b is sorted: spans ending before this one never matter again. */
        while (j < nb && (uint64_t)b[j].first + b[j].count <= at)
            j++;
        for (k = j; k < nb && b[k].first < end; k++) {
            uint64_t b_end = (uint64_t)b[k].first + b[k].count;
            if (b[k].first > at)
                out[n++] = (struct gt_span){ (uint32_t)at, (uint32_t)(b[k].first - at) };
            if (b_end > at)
                at = b_end;
        }
        if (at < end)
            out[n++] = (struct gt_span){ (uint32_t)at, (uint32_t)(end - at) };
    }
    return n;
}
