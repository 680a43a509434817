/* The dashboard's views as a table: each one's draw function and the
 * lines around it (the section tabs; the alert and footer lines). A key
 * opens a view through its row in the key table (actions.c); the loop
 * (tui.c) draws whichever is up. */
#include "tui_internal.h"

enum tui_view_id { VIEW_SECTION, VIEW_PROCESSES, VIEW_PANEL, VIEW_HELP };

enum { FRAME_TABS = 1, FRAME_FOOTER = 2 };

struct tui_view {
    void (*draw)(struct tui *t);
    int frame;                   /* FRAME_* drawn with it */
};

static const struct tui_view views[] = {
    [VIEW_SECTION] = { tui_draw_body, FRAME_TABS | FRAME_FOOTER },
    [VIEW_PROCESSES] = { tui_draw_processes, FRAME_TABS | FRAME_FOOTER },
    [VIEW_PANEL] = { tui_draw_triage_panel, FRAME_FOOTER },
    /* over a cleared screen: nothing behind it reads as part of it */
    [VIEW_HELP] = { tui_draw_help, 0 },
};

/* The help and the triage panel cover the page (a section or the
 * Processes view), which stays for when they close. */
static enum tui_view_id current(const struct tui *t)
{
    if (t->help)
        return VIEW_HELP;
    if (t->triage_panel)
        return VIEW_PANEL;
    return t->procs_view ? VIEW_PROCESSES : VIEW_SECTION;
}

void tui_draw_view(struct tui *t)
{
    const struct tui_view *v = &views[current(t)];

    tui_draw_header(t);
    if (!(v->frame & FRAME_TABS))
        v->draw(t);
    else if (LINES >= 3) {
        tui_draw_tabs(t);
        v->draw(t);
    }
    if (v->frame & FRAME_FOOTER) {
        tui_draw_alert(t);
        tui_draw_footer(t);
    }
}
