/* The page's list of rows, which the section view and the per-core view
 * both append to (kept apart so neither view depends on the other). */
#include "tui_internal.h"

#include <stdlib.h>

int tui_add_row(struct tui *t, enum row_kind k, size_t idx, int inst)
{
    if (t->nrows == t->rowcap) {
        size_t cap = t->rowcap ? t->rowcap * 2 : 256;
        struct row *r = realloc(t->rows, cap * sizeof(*r));
        if (!r)
            return -1;
        t->rows = r;
        t->rowcap = cap;
    }
    t->rows[t->nrows].kind = k;
    t->rows[t->nrows].idx = idx;
    t->rows[t->nrows].inst = inst;
    t->nrows++;
    return 0;
}
