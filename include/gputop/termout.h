/* Terminal output for the dashboard: the escape sequences and characters
 * that bring the screen from the frame last shown to the one composed in a
 * cell buffer, one buffer of bytes per refresh. ncurses still opens the
 * terminal, reads keys and supplies the terminfo strings; this replaces
 * only its screen update, which compares whole lines and formats every
 * cursor movement through tparm, at several times the cost. */
#ifndef GPUTOP_TERMOUT_H
#define GPUTOP_TERMOUT_H

#include <stddef.h>
#include "gputop/cellbuf.h"

struct gt_termout;

/* What the terminal understands. Strings are copied; NULL means absent. */
struct gt_termout_caps {
    const char *cup;          /* terminfo cursor_address, with %p1 row, %p2 column */
    const char *style_on[GT_CELL_STYLES];   /* normal -> style i */
    const char *style_off[GT_CELL_STYLES];  /* style i -> normal */
    int nstyles;              /* style 0 is normal */
    int utf8;                 /* 0: every character outside ASCII is sent as '?' */
};

/* NULL when out of memory or when caps has no cursor addressing. */
struct gt_termout *gt_termout_new(const struct gt_termout_caps *caps);
void gt_termout_free(struct gt_termout *o);

#define GT_TERM_BOLD    1u
#define GT_TERM_REVERSE 2u

/* Fills caps from the terminfo entry ncurses has loaded (set_term): style
 * i has the GT_TERM_* attributes attrs[i] and the ANSI foreground colour
 * fg[i] (0-7, -1 for the default colour). Strings point into buf, of len
 * bytes. Returns 0, or -1 when the terminal cannot address the cursor or
 * buf is too small. */
int gt_termout_caps_from_terminfo(struct gt_termout_caps *caps, const unsigned *attrs,
                                  const short *fg, int nstyles, int utf8, char *buf,
                                  size_t len);

/* The bytes for the changes in b (then committed as shown); *out stays
 * valid until the next call. The bottom-right cell is never written, so
 * that no terminal scrolls. */
size_t gt_termout_render(struct gt_termout *o, struct gt_cellbuf *b, const char **out);
/* The terminal's cursor and style are unknown (bytes were lost): the next
 * render addresses the cursor and resets the style before anything else. */
void gt_termout_forget(struct gt_termout *o);
/* The bytes that leave the terminal as ncurses last left it (cursor at
 * home, normal style), before ncurses writes again; forgets the cursor. */
size_t gt_termout_release(struct gt_termout *o, const char **out);

#endif
