/* Terminal output for the dashboard: walks a cell buffer's changed runs and
 * emits cursor addressing, style changes and UTF-8 into one byte buffer.
 * Styles are absolute (normal -> style, style -> normal), so no state but
 * the cursor and the current style is tracked. */
#include "gputop/termout.h"
#include "gputop/format.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>

#define ANSI_CUP "\033[%i%p1%d;%p2%dH"
#define RUN_JOIN 4        /* equal cells rewritten rather than jumped over */

struct gt_termout {
    char *cup;
    int ansi_cup;             /* cup is the ANSI form: formatted here */
    char *on[GT_CELL_STYLES], *off[GT_CELL_STYLES];
    size_t on_len[GT_CELL_STYLES], off_len[GT_CELL_STYLES];
    int nstyles, utf8;
    int row, col;             /* the terminal's cursor; -1 unknown */
    int style;                /* the terminal's current style */
    char *buf;
    size_t len, cap;
};

/* Length of s up to the end, leaving out terminfo delays ("$<5>", "$<2*>"):
 * they tell tputs how long a slow serial terminal needs, and would be
 * printed as text here. Writes the rest to out when out is not NULL. */
static size_t without_delays(const char *s, char *out)
{
    size_t n = 0;

    while (*s) {
        const char *end;
        if (s[0] == '$' && s[1] == '<' && (end = strchr(s, '>')) != NULL) {
            s = end + 1;
            continue;
        }
        if (out)
            out[n] = *s;
        n++;
        s++;
    }
    if (out)
        out[n] = '\0';
    return n;
}

/* A copy without terminfo delays. */
static char *dup_sequence(const char *s)
{
    char *d;

    s = s ? s : "";
    d = malloc(without_delays(s, NULL) + 1);
    if (d)
        without_delays(s, d);
    return d;
}

void gt_termout_free(struct gt_termout *o)
{
    int i;

    if (!o)
        return;
    for (i = 0; i < GT_CELL_STYLES; i++) {
        free(o->on[i]);
        free(o->off[i]);
    }
    free(o->cup);
    free(o->buf);
    free(o);
}

struct gt_termout *gt_termout_new(const struct gt_termout_caps *caps)
{
    struct gt_termout *o;
    int i;

    if (!caps->cup || !caps->cup[0] || caps->nstyles < 1 || caps->nstyles > GT_CELL_STYLES)
        return NULL;
    o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->cup = strdup(caps->cup);
    o->ansi_cup = o->cup && strcmp(o->cup, ANSI_CUP) == 0;
    o->nstyles = caps->nstyles;
    o->utf8 = caps->utf8;
    o->row = o->col = -1;
    for (i = 0; i < caps->nstyles; i++) {
        o->on[i] = dup_sequence(i ? caps->style_on[i] : NULL);
        o->off[i] = dup_sequence(i ? caps->style_off[i] : NULL);
        if (!o->on[i] || !o->off[i])
            break;
        o->on_len[i] = strlen(o->on[i]);
        o->off_len[i] = strlen(o->off[i]);
    }
    if (!o->cup || i < caps->nstyles) {
        gt_termout_free(o);
        return NULL;
    }
    return o;
}

/* ---- the byte buffer ---- */

static int reserve(struct gt_termout *o, size_t more)
{
    size_t cap;
    char *b;

    if (o->len + more <= o->cap)
        return 0;
    cap = o->cap ? o->cap : 4096;
    while (cap < o->len + more)
        cap *= 2;
    b = realloc(o->buf, cap);
    if (!b)
        return -1;
    o->buf = b;
    o->cap = cap;
    return 0;
}

static void emit(struct gt_termout *o, const char *s, size_t n)
{
    if (n && reserve(o, n) == 0) {
        memcpy(o->buf + o->len, s, n);
        o->len += n;
    }
}

static void emit_uint(struct gt_termout *o, unsigned v)
{
    char d[12];
    int n = 0;

    do
        d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof(d));
    emit(o, d + sizeof(d) - n, (size_t)n);
}

/* One character, into room the caller reserved (4 bytes). */
static void put_char(struct gt_termout *o, uint32_t c)
{
    if (c >= 0x80 && !o->utf8)
        c = '?';
    o->len += gt_utf8_encode(o->buf + o->len, c);
}

static void emit_terminfo(struct gt_termout *o, const char *s)
{
    size_t n = without_delays(s, NULL);

    if (reserve(o, n + 1) == 0)
        o->len += without_delays(s, o->buf + o->len);
}

static void move_to(struct gt_termout *o, int y, int x)
{
    const char *s;

    if (o->row == y && o->col == x)
        return;
    if (o->ansi_cup) {
        emit(o, "\033[", 2);
        emit_uint(o, (unsigned)y + 1);
        emit(o, ";", 1);
        emit_uint(o, (unsigned)x + 1);
        emit(o, "H", 1);
    } else if ((s = tiparm(o->cup, y, x)) != NULL) {
        emit_terminfo(o, s);
    }
    o->row = y;
    o->col = x;
}

static void set_style(struct gt_termout *o, int st)
{
    int k;

    if (st == o->style || st < 0 || st >= o->nstyles)
        return;
    /* Unknown: whatever is on, every style's way back to normal. */
    for (k = 0; o->style < 0 && k < o->nstyles; k++)
        emit(o, o->off[k], o->off_len[k]);
    if (o->style >= 0)
        emit(o, o->off[o->style], o->off_len[o->style]);
    emit(o, o->on[st], o->on_len[st]);
    o->style = st;
}

size_t gt_termout_render(struct gt_termout *o, struct gt_cellbuf *b, const char **out)
{
    struct gt_cell_run r = { 0, 0, 0 };
    int rows = gt_cellbuf_rows(b), cols = gt_cellbuf_cols(b), i;
    const uint32_t *row;

    o->len = 0;
    while (gt_cellbuf_next_run(b, &r, RUN_JOIN)) {
        int n = r.n;
        if (r.y == rows - 1 && r.x + n >= cols)
            n = cols - 1 - r.x;
        if (n <= 0)
            continue;
        move_to(o, r.y, r.x);
        row = gt_cellbuf_row(b, r.y) + r.x;
        for (i = 0; i < n; i++) {
            if (GT_CELL_STYLE(row[i]) != o->style)
                set_style(o, GT_CELL_STYLE(row[i]));
            if (reserve(o, 4) < 0)
                break;
            put_char(o, GT_CELL_CHAR(row[i]));
        }
        /* At the right margin the cursor waits to wrap: where it is next
         * depends on the terminal, so it is addressed again. */
        o->col = r.x + n < cols ? r.x + n : -1;
    }
    gt_cellbuf_commit(b);
    *out = o->buf;
    return o->len;
}

void gt_termout_forget(struct gt_termout *o)
{
    o->row = o->col = -1;
    o->style = -1;
}

size_t gt_termout_release(struct gt_termout *o, const char **out)
{
    o->len = 0;
    set_style(o, 0);
    move_to(o, 0, 0);
    o->row = o->col = -1;
    *out = o->buf;
    return o->len;
}

/* ---- capabilities from terminfo ---- */

static const char *cap(const char *name)
{
    char *s = tigetstr(name);

    return s == (char *)-1 ? NULL : s;
}

/* Appends s to the caps buffer; returns where it starts, or NULL when full. */
static char *append(char *buf, size_t len, size_t *used, const char *s)
{
    size_t n = strlen(s);

    if (*used + n + 1 > len)
        return NULL;
    memcpy(buf + *used, s, n + 1);
    *used += n;
    return buf + *used - n;
}

/* The old setf numbers colours blue-green-red, the ANSI order is red-green-blue. */
static int setf_colour(int ansi)
{
    return (ansi & 2) | ((ansi & 1) << 2) | ((ansi & 4) >> 2);
}

static const char *colour_seq(int fg)
{
    const char *setaf = cap("setaf"), *setf = cap("setf");

    if (fg < 0)
        return "";
    if (setaf)
        return tiparm(setaf, fg);
    if (setf)
        return tiparm(setf, setf_colour(fg));
    return "";
}

/* One style's on and off sequences, written one after the other into buf. */
static int style_caps(struct gt_termout_caps *caps, int i, unsigned attrs, short fg, char *buf,
                      size_t len, size_t *used)
{
    const char *bold = cap("bold"), *rev = cap("rev"), *sgr0 = cap("sgr0"), *op = cap("op");
    const char *col = colour_seq(fg);
    int has_attrs = (attrs & GT_TERM_BOLD && bold) || (attrs & GT_TERM_REVERSE && rev);
    char *on, *off;

    /* Attributes that cannot be turned off again are not turned on. */
    if (!sgr0)
        has_attrs = 0;
    if (!op && !sgr0)
        col = "";
    on = append(buf, len, used, "");
    if (!on)
        return -1;
    if (has_attrs && attrs & GT_TERM_BOLD && bold && !append(buf, len, used, bold))
        return -1;
    if (has_attrs && attrs & GT_TERM_REVERSE && rev && !append(buf, len, used, rev))
        return -1;
    if (col[0] && !append(buf, len, used, col))
        return -1;
    (*used)++;
    off = append(buf, len, used, "");
    if (!off)
        return -1;
    if ((has_attrs || (col[0] && !op)) && !append(buf, len, used, sgr0))
        return -1;
    if (col[0] && op && !append(buf, len, used, op))
        return -1;
    (*used)++;
    caps->style_on[i] = on;
    caps->style_off[i] = off;
    return 0;
}

int gt_termout_caps_from_terminfo(struct gt_termout_caps *caps, const unsigned *attrs,
                                  const short *fg, int nstyles, int utf8, char *buf,
                                  size_t len)
{
    size_t used = 0;
    const char *cup = cap("cup");
    int i;

    memset(caps, 0, sizeof(*caps));
    if (!cup || nstyles < 1 || nstyles > GT_CELL_STYLES)
        return -1;
    caps->cup = append(buf, len, &used, cup);
    if (!caps->cup)
        return -1;
    used++;
    for (i = 1; i < nstyles; i++)
        if (style_caps(caps, i, attrs[i], fg[i], buf, len, &used) < 0)
            return -1;
    caps->nstyles = nstyles;
    caps->utf8 = utf8;
    return 0;
}
