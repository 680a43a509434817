/* The bottom line: the search being typed, a message, the selected
 * metric's description and min / max, or the key hints. */
#include "tui_internal.h"
#include "gputop/format.h"
#include "gputop/history.h"
#include <stdio.h>

void tui_draw_footer(struct tui *t)
{
    char buf[512];
    const char *why;

    if (t->searching) {
        snprintf(buf, sizeof(buf), "/%s", t->search);
        tui_put(t, LINES - 1, 0, buf, -1, ST_PLAIN);
        return;
    }
    if (t->message[0]) {
        tui_put(t, LINES - 1, 0, t->message, -1, ST_PLAIN);
        return;
    }
    if (t->selected >= 0 && t->keys_seen) {
        const struct gt_metric_def *md = &t->l->metrics[t->selected];
        char mn[32], mx[32];
        why = gt_engine_unavailable(t->cfg->engine, (size_t)t->selected);
        gt_fmt_si(mn, sizeof(mn), tui_history_shown(t, (size_t)t->selected,
                                                    gt_history_min(t->hist, (size_t)t->selected)));
        gt_fmt_si(mx, sizeof(mx), tui_history_shown(t, (size_t)t->selected,
                                                    gt_history_max(t->hist, (size_t)t->selected)));
        snprintf(buf, sizeof(buf), " %s%s%s  [min %s max %s]", md->ref ? md->ref : "",
                 md->ref ? " " : "", why ? why : md->desc ? md->desc : md->title, mn, mx);
        tui_put(t, LINES - 1, 0, buf, -1, ST_DIM);
        return;
    }
    tui_put(t, LINES - 1, 0, " h help  keys/Tab sections  up/down select  c per-core  "
        "space pause  +/- interval  t per-second  s sparklines  / find  q quit", -1, ST_ACCENT);
}
