/* The dashboard's cell buffer: a frame is composed here (a character and a
 * style per cell), compared with the frame shown before, and only the runs
 * of cells that changed go to the terminal library. */
#ifndef GPUTOP_CELLBUF_H
#define GPUTOP_CELLBUF_H

#include <stddef.h>
#include <stdint.h>

#define GT_CELL_STYLES 256

struct gt_cellbuf;

/* Cells [x, x + n) of row y. */
struct gt_cell_run {
    int y, x, n;
};

/* ascii: every character outside ASCII is stored as '?'. */
struct gt_cellbuf *gt_cellbuf_new(int ascii);
void gt_cellbuf_free(struct gt_cellbuf *b);
/* Starts a frame of rows x cols, every cell a blank of style 0. A new size
 * makes the next comparison report every cell. Returns 0, or -1 out of
 * memory (the buffer is then empty, 0 x 0). */
int gt_cellbuf_begin(struct gt_cellbuf *b, int rows, int cols);
/* The frame shown is unknown (the terminal was cleared or resized): the
 * next comparison reports every cell. */
void gt_cellbuf_invalidate(struct gt_cellbuf *b);
int gt_cellbuf_rows(const struct gt_cellbuf *b);
int gt_cellbuf_cols(const struct gt_cellbuf *b);

/* Writes UTF-8 text from (y, x), one column per character, at most maxw
 * columns (maxw < 0: to the end of the row), clipped to the frame.
 * Malformed bytes become '?'. Returns the columns written. */
int gt_cellbuf_text(struct gt_cellbuf *b, int y, int x, const char *s, int maxw, int style);
/* n code points, one a cell, from (y, x), clipped (none of them controls). */
void gt_cellbuf_chars(struct gt_cellbuf *b, int y, int x, const uint32_t *cp, int n, int style);
/* n cells of ch from (y, x), clipped. */
void gt_cellbuf_fill(struct gt_cellbuf *b, int y, int x, int n, uint32_t ch, int style);
/* n cells as gt_cellbuf_row gives them (a code point and a style each)
 * from (y, x), clipped: a line composed in an earlier frame, put back. */
void gt_cellbuf_put_cells(struct gt_cellbuf *b, int y, int x, const uint32_t *cells, int n);
/* Re-styles n cells from (y, x), keeping their characters. */
void gt_cellbuf_restyle(struct gt_cellbuf *b, int y, int x, int n, int style);
/* The composed cells of row y (NULL outside the frame), each a code point
 * and a style as below, for code that walks a whole run. */
const uint32_t *gt_cellbuf_row(const struct gt_cellbuf *b, int y);
#define GT_CELL_CHAR(c)  ((c) & 0x1FFFFFu)
#define GT_CELL_STYLE(c) ((int)((c) >> 24))
/* A cell's code point and style; 0 and -1 outside the frame. */
uint32_t gt_cellbuf_char(const struct gt_cellbuf *b, int y, int x);
int gt_cellbuf_style(const struct gt_cellbuf *b, int y, int x);

/* The next run of cells that differ from the frame last committed, after
 * the run in *r (start with r->y = r->x = r->n = 0). Runs of one row closer
 * than join equal cells are reported as one (a cursor jump costs more
 * than a few repeated cells). Returns 1 with *r set, or 0 at the end. */
int gt_cellbuf_next_run(const struct gt_cellbuf *b, struct gt_cell_run *r, int join);
/* The composed frame is now on screen: later comparisons are against it. */
void gt_cellbuf_commit(struct gt_cellbuf *b);

#endif
