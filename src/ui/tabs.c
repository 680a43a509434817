/* The section tabs under the header: each section's key and its short
 * label (the layout's 'tab'), then the Processes view's, in the roomiest form that fits them all,
 * else the current section's page of neighbours labelled and the rest by
 * key. The form depends on the widths alone, so the tabs stay put while
 * the selection moves within a page. */
#include "tui_internal.h"
#include <stdlib.h>
#include <string.h>

/* Forms, roomiest first: the title " 1 CPU performance ", the label
 * " 1 CPU ", "1 CPU " and "1CPU " (the key set apart by its style, as
 * htop's F-key hints are); then a page of "1 CPU " among bare keys "1 ". */
enum tab_form { FORM_TITLE, FORM_LABEL_WIDE, FORM_LABEL, FORM_GLUED, FORM_PAGE, FORM_KEYS };

struct tab_fit {
    enum tab_form form;
    size_t first, end;   /* FORM_PAGE: the labelled sections [first, end) */
};

/* The title without a leading run of two or more words that another
 * section's title starts with too: a label for a section without one. */
static const char *short_title(const struct tui *t, size_t i)
{
    const char *ti = t->l->sections[i].title, *best = ti, *p, *q;
    size_t j;
    int words;

    for (j = 0; j < t->l->nsections; j++) {
        if (j == i)
            continue;
        words = 0;
        for (p = ti, q = t->l->sections[j].title; *p && *p == *q; p++, q++)
            if (*p == ' ' && ++words >= 2 && p[1] && p + 1 > best)
                best = p + 1;
    }
    return best;
}

static const char *tab_label(const struct tui *t, size_t i, enum tab_form form)
{
    const struct gt_section_def *s = &t->l->sections[i];

    if (form == FORM_TITLE)
        return s->title;
    if (s->tab)
        return s->tab;
    return t->tabs.label ? t->tabs.label[i] : short_title(t, i);
}

/* The short labels, once: finding one compares every pair of titles. */
static void make_labels(struct tui *t)
{
    size_t i, n = t->l->nsections;

    if (t->tabs.label || !n || !(t->tabs.label = calloc(n, sizeof(*t->tabs.label))))
        return;
    for (i = 0; i < n; i++)
        t->tabs.label[i] = short_title(t, i);
}

void tui_tabs_free(struct tui *t)
{
    free(t->tabs.label);
    t->tabs.label = NULL;
    tui_line_free(&t->tabs.line);
}

static int labelled(const struct tab_fit *f, size_t i)
{
    return f->form != FORM_KEYS && (f->form != FORM_PAGE || (i >= f->first && i < f->end));
}

/* Columns of tab i with the gap after it. */
static int tab_width(const struct tui *t, size_t i, const struct tab_fit *f)
{
    int label;

    if (!labelled(f, i))
        return 2;
    label = tui_text_columns(tab_label(t, i, f->form));
    switch (f->form) {
    case FORM_TITLE:
    case FORM_LABEL_WIDE:
        return label + 4;
    case FORM_GLUED:
        return label + 2;
    default:
        return label + 3;
    }
}

/* The Processes view has a tab too, after the sections', when there is a
 * Processes view (--no-processes: none): "P Procs". */
static const char PROCS_LABEL[] = "Procs";

static int procs_tab_width(const struct tui *t, const struct tab_fit *f)
{
    int label = (int)sizeof(PROCS_LABEL) - 1;

    if (!t->cfg->procs)
        return 0;
    if (f->form == FORM_KEYS)
        return 2;
    if (f->form == FORM_TITLE || f->form == FORM_LABEL_WIDE)
        return label + 4;
    return f->form == FORM_GLUED ? label + 2 : label + 3;
}

/* The tabs' width; the last tab's trailing gap may fall off the edge. */
static int tabs_width(const struct tui *t, const struct tab_fit *f)
{
    size_t i;
    int w = procs_tab_width(t, f);

    for (i = 0; i < t->l->nsections; i++)
        w += tab_width(t, i, f);
    return w - 1;
}

/* Pages run from the first section, each as long as fits among the other
 * sections' bare keys; the current section's page is labelled. */
static int page_fit(const struct tui *t, struct tab_fit *f)
{
    size_t n = t->l->nsections;

    f->first = 0;
    for (;;) {
        for (f->end = f->first + 1; f->end <= n; f->end++)
            if (tabs_width(t, f) > COLS)
                break;
        f->end--;
        if (f->end <= f->first)
            return 0;              /* not even one labelled tab fits */
        if (t->section < f->end)
            return 1;
        f->first = f->end;
    }
}

static struct tab_fit fit_tabs(const struct tui *t)
{
    struct tab_fit f = { FORM_TITLE, 0, 0 };

    for (; f.form < FORM_PAGE; f.form++)
        if (tabs_width(t, &f) <= COLS)
            return f;
    if (page_fit(t, &f))
        return f;
    f.form = FORM_KEYS;
    return f;
}

static int draw_tab(struct tui *t, int x, size_t i, const struct tab_fit *f)
{
    /* under the Processes view no section is the one shown */
    int cur = i == t->section && !t->procs_view, w = tab_width(t, i, f);
    enum style st = cur ? ST_TAB : ST_PLAIN;
    char key[2] = { (char)t->l->sections[i].key, 0 };
    int wide = f->form == FORM_TITLE || f->form == FORM_LABEL_WIDE;

    if (wide)
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    /* Glued to its label the key needs a style of its own to stand apart. */
    x += tui_put(t, 1, x, key, 1, cur || f->form != FORM_GLUED ? st : ST_HEADING);
    if (!labelled(f, i))
        return w;
    if (f->form != FORM_GLUED)
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    x += tui_put(t, 1, x, tab_label(t, i, f->form), -1, st);
    if (wide)
        gt_cellbuf_fill(t->cells, 1, x, 1, ' ', st);
    return w;
}

/* fit_tabs, redone only for a new width or a new current section. */
static struct tab_fit fit_tabs_kept(struct tui *t)
{
    struct tui_tabs *k = &t->tabs;
    struct tab_fit f;

    make_labels(t);
    if (k->valid && k->cols == COLS && k->section == t->section)
        return (struct tab_fit){ (enum tab_form)k->form, k->first, k->end };
    f = fit_tabs(t);
    k->valid = 1;
    k->cols = COLS;
    k->section = t->section;
    k->form = (int)f.form;
    k->first = f.first;
    k->end = f.end;
    return f;
}

static int draw_procs_tab(struct tui *t, int x, const struct tab_fit *f)
{
    enum style st = t->procs_view ? ST_TAB : ST_PLAIN;
    int wide = f->form == FORM_TITLE || f->form == FORM_LABEL_WIDE, w = procs_tab_width(t, f);

    if (wide)
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    x += tui_put(t, 1, x, "P", 1, t->procs_view || f->form != FORM_GLUED ? st : ST_HEADING);
    if (f->form == FORM_KEYS)
        return w;
    if (f->form != FORM_GLUED)
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    x += tui_put(t, 1, x, PROCS_LABEL, -1, st);
    if (wide)
        gt_cellbuf_fill(t->cells, 1, x, 1, ' ', st);
    return w;
}

/* The row is the tabs' alone: kept whole, it is redrawn from the cells
 * until the width, the height (a title or not), the current section or
 * the view changes; the layout and the Processes tab are the run's. */
void tui_draw_tabs(struct tui *t)
{
    long key[TUI_LINE_KEY] = { COLS, LINES > 12, (long)t->section, t->procs_view };
    struct tab_fit f;
    int x = 0;
    size_t i;

    if (tui_line_reuse(t, &t->tabs.line, key, 1))
        return;
    f = fit_tabs_kept(t);
    for (i = 0; i < t->l->nsections && x < COLS; i++)
        x += draw_tab(t, x, i, &f);
    if (t->cfg->procs && x < COLS)
        x += draw_procs_tab(t, x, &f);
    if (f.form == FORM_KEYS && LINES > 12) {
        x += tui_put(t, 1, x, " ", -1, ST_HEADING);
        tui_put_clipped(t, 1, x, t->l->sections[t->section].title, COLS - x, ST_HEADING);
    }
    tui_line_keep(t, &t->tabs.line, key, 1, COLS);
}

long tui_tab_at(const struct tui *t, int col)
{
    struct tab_fit f = fit_tabs(t);
    int x = 0, w;
    size_t i;

    for (i = 0; i < t->l->nsections; i++) {
        w = tab_width(t, i, &f);
        if (col >= x && col < x + w)
            return (long)i;
        x += w;
    }
    w = procs_tab_width(t, &f);
    return w && col >= x && col < x + w ? TUI_TAB_PROCS : -1;
}
