/* Joining layouts: a source that runs beside the GPU's (mips-cm) brings
 * its layout's sections, which are appended to the GPU layout's, so one
 * dashboard shows both. */
#include "gputop/layout.h"

#include <stdlib.h>
#include <string.h>

static int grow_to(void *pptr, size_t n, size_t size)
{
    void **p = pptr;
    void *q = realloc(*p, (n ? n : 1) * size);

    if (!q)
        return -1;
    *p = q;
    return 0;
}

static int key_taken(const struct gt_layout *l, int key)
{
    size_t i;

    for (i = 0; i < l->nsections; i++)
        if (l->sections[i].key == key)
            return 1;
    return 0;
}

static int check_keys(const struct gt_layout *dst, const struct gt_layout *src, struct gt_diag *d)
{
    size_t i;

    for (i = 0; i < src->nsections; i++)
        if (key_taken(dst, src->sections[i].key)) {
            gt_diag_at(d, src->file, src->sections[i].line, 0, NULL, 0);
            gt_diag_set(d, "section '%s' uses key '%c', which layout '%s' already uses",
                        src->sections[i].title, src->sections[i].key, dst->name);
            return -1;
        }
    return 0;
}

static int reserve(struct gt_layout *dst, const struct gt_layout *src)
{
    return grow_to(&dst->sections, dst->nsections + src->nsections, sizeof(*dst->sections)) < 0 ||
           grow_to(&dst->groups, dst->ngroups + src->ngroups, sizeof(*dst->groups)) < 0 ||
           grow_to(&dst->metrics, dst->nmetrics + src->nmetrics, sizeof(*dst->metrics)) < 0 ||
           grow_to(&dst->options, dst->noptions + src->noptions, sizeof(*dst->options)) < 0
           ? -1 : 0;
}

static int unbound_busy(const struct gt_triage_step *st)
{
    size_t k;

    for (k = 0; k < st->nconds; k++)
        if (st->conds[k].metric == GT_TRIAGE_BUSY)
            return 1;
    return 0;
}

/* src's notes go to the end of dst's steps, their metrics renumbered;
 * one on a busy figure that neither layout has is left with src. */
static int append_notes(struct gt_layout *dst, struct gt_layout *src, size_t m0)
{
    size_t i, k, kept = 0;
    struct gt_triage_step *st;

    if (grow_to(&dst->steps, dst->nsteps + src->nsteps, sizeof(*dst->steps)) < 0)
        return -1;
    for (i = 0; i < src->nsteps; i++) {
        if (!src->steps[i].note || (unbound_busy(&src->steps[i]) &&
                                    dst->header[GT_HEADER_BUSY] < 0 &&
                                    dst->header[GT_HEADER_BUSY_MAX] < 0)) {
            src->steps[kept++] = src->steps[i];
            continue;
        }
        st = &dst->steps[dst->nsteps++];
        *st = src->steps[i];
        for (k = 0; k < st->nconds; k++) {
            if (st->conds[k].metric >= 0)
                st->conds[k].metric += (int)m0;
            if (st->conds[k].alt >= 0)
                st->conds[k].alt += (int)m0;
        }
    }
    src->nsteps = kept;
    gt_layout_bind_busy(dst, dst);
    return 0;
}

int gt_layout_append(struct gt_layout *dst, struct gt_layout *src, struct gt_diag *d)
{
    size_t i, s0 = dst->nsections, g0 = dst->ngroups, m0 = dst->nmetrics;

    if (check_keys(dst, src, d) < 0)
        return -1;
    if (reserve(dst, src) < 0 || append_notes(dst, src, m0) < 0) {
        gt_diag_fail(d, GT_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (i = 0; i < src->nsections; i++) {
        dst->sections[s0 + i] = src->sections[i];
        dst->sections[s0 + i].first += g0;
    }
    for (i = 0; i < src->ngroups; i++) {
        dst->groups[g0 + i] = src->groups[i];
        dst->groups[g0 + i].section += (int)s0;
        dst->groups[g0 + i].first += m0;
    }
    for (i = 0; i < src->nmetrics; i++) {
        dst->metrics[m0 + i] = src->metrics[i];
        dst->metrics[m0 + i].section += (int)s0;
        dst->metrics[m0 + i].group += (int)g0;
    }
    for (i = 0; i < GT_HEADER_NFIGS; i++)
        if (dst->header[i] < 0 && src->header[i] >= 0)
            dst->header[i] = src->header[i] + (int)m0;
    /* a layout without option lines has no array: memcpy from NULL is undefined */
    if (src->noptions)
        memcpy(dst->options + dst->noptions, src->options, src->noptions * sizeof(*src->options));
    dst->nsections += src->nsections;
    dst->ngroups += src->ngroups;
    dst->nmetrics += src->nmetrics;
    dst->noptions += src->noptions;
    /* dst owns them now; src keeps only what was not moved. */
    src->nsections = src->ngroups = src->nmetrics = src->noptions = 0;
    return 0;
}
