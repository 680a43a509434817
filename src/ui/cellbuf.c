/* The dashboard's cell buffer: frames composed as one 32-bit word per cell
 * (code point and style), so that comparing a frame with the one on screen
 * is a memcmp per row and the terminal library sees only what changed. */
#include "gputop/cellbuf.h"

#include <stdlib.h>
#include <string.h>

#define CH_BITS   21u
#define CH_MASK   ((1u << CH_BITS) - 1)
#define STYLE_SHIFT 24u
#define BLANK     ((uint32_t)' ')

struct gt_cellbuf {
    int rows, cols;
    int ascii;
    int invalid;          /* the frame on screen is unknown */
    uint32_t *cur;        /* being composed */
    uint32_t *shown;      /* last committed */
};

static uint32_t cell(uint32_t ch, int style)
{
    return (ch & CH_MASK) | ((uint32_t)(style & 0xff) << STYLE_SHIFT);
}

struct gt_cellbuf *gt_cellbuf_new(int ascii)
{
    struct gt_cellbuf *b = calloc(1, sizeof(*b));

    if (b) {
        b->ascii = ascii;
        b->invalid = 1;
    }
    return b;
}

void gt_cellbuf_free(struct gt_cellbuf *b)
{
    if (!b)
        return;
    free(b->cur);
    free(b->shown);
    free(b);
}

static int resize(struct gt_cellbuf *b, int rows, int cols)
{
    size_t n = (size_t)rows * (size_t)cols;

    free(b->cur);
    free(b->shown);
    b->cur = calloc(n ? n : 1, sizeof(uint32_t));
    b->shown = calloc(n ? n : 1, sizeof(uint32_t));
    b->invalid = 1;
    if (!b->cur || !b->shown) {
        free(b->cur);
        free(b->shown);
        b->cur = b->shown = NULL;
        b->rows = b->cols = 0;
        return -1;
    }
    b->rows = rows;
    b->cols = cols;
    return 0;
}

int gt_cellbuf_begin(struct gt_cellbuf *b, int rows, int cols)
{
    size_t i, n;

    if (rows < 0)
        rows = 0;
    if (cols < 0)
        cols = 0;
    if ((rows != b->rows || cols != b->cols || !b->cur) && resize(b, rows, cols) < 0)
        return -1;
    n = (size_t)rows * (size_t)cols;
    if (!n)
        return 0;
    /* One row blanked cell by cell, the others copied from it: memcpy
     * moves whole vectors where this loop stores a cell at a time. */
    for (i = 0; i < (size_t)cols; i++)
        b->cur[i] = BLANK;
    for (i = (size_t)cols; i < n; i += (size_t)cols)
        memcpy(b->cur + i, b->cur, (size_t)cols * sizeof(*b->cur));
    return 0;
}

void gt_cellbuf_invalidate(struct gt_cellbuf *b) { b->invalid = 1; }
int gt_cellbuf_rows(const struct gt_cellbuf *b) { return b->rows; }
int gt_cellbuf_cols(const struct gt_cellbuf *b) { return b->cols; }

/* Next code point of UTF-8 text; a malformed sequence is one '?'. */
static uint32_t next_utf8(const char **sp)
{
    const unsigned char *p = (const unsigned char *)*sp;
    uint32_t c = *p++;
    int extra = c >= 0xF8 ? -1 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

    if ((c >= 0x80 && extra == 0) || extra < 0) {
        *sp = (const char *)p;
        return '?';
    }
    if (extra)
        c &= 0x3Fu >> extra;
    while (extra-- > 0) {
        if ((*p & 0xC0) != 0x80) {
            *sp = (const char *)p;
            return '?';
        }
        c = (c << 6) | (*p++ & 0x3Fu);
    }
    *sp = (const char *)p;
    /* Control characters would move the terminal's cursor. */
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) || c > 0x10FFFF ? '?' : c;
}

/* The cells left on row y from x, at most maxw; 0 when outside. */
static int room(const struct gt_cellbuf *b, int y, int x, int maxw)
{
    int r;

    if (y < 0 || y >= b->rows || x < 0 || x >= b->cols)
        return 0;
    r = b->cols - x;
    return maxw >= 0 && maxw < r ? maxw : r;
}

int gt_cellbuf_text(struct gt_cellbuf *b, int y, int x, const char *s, int maxw, int style)
{
    int n = 0, r = room(b, y, x, maxw);
    uint32_t *row;

    if (!r || !s)
        return 0;
    row = b->cur + (size_t)y * (size_t)b->cols + x;
    while (*s && n < r) {
        uint32_t c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7F)
            s++;          /* the common case: plain ASCII */
        else
            c = next_utf8(&s);
        if (b->ascii && c >= 0x80)
            c = '?';
        row[n++] = cell(c, style);
    }
    return n;
}

/* The composed cells from (y, x), at most n, clipped to the frame; *r is
 * how many there are (0: none, and NULL). */
static uint32_t *cells_at(struct gt_cellbuf *b, int y, int x, int n, int *r)
{
    *r = room(b, y, x, n < 0 ? 0 : n);
    return *r ? b->cur + (size_t)y * (size_t)b->cols + x : NULL;
}

void gt_cellbuf_chars(struct gt_cellbuf *b, int y, int x, const uint32_t *cp, int n, int style)
{
    int i, r;
    uint32_t *row = cells_at(b, y, x, n, &r);

    for (i = 0; i < r; i++)
        row[i] = cell(b->ascii && cp[i] >= 0x80 ? '?' : cp[i], style);
}

void gt_cellbuf_fill(struct gt_cellbuf *b, int y, int x, int n, uint32_t ch, int style)
{
    int i, r;
    uint32_t *row = cells_at(b, y, x, n, &r);
    uint32_t c = cell(b->ascii && ch >= 0x80 ? '?' : ch, style);

    for (i = 0; i < r; i++)
        row[i] = c;
}

void gt_cellbuf_put_cells(struct gt_cellbuf *b, int y, int x, const uint32_t *cells, int n)
{
    int r;
    uint32_t *row = cells_at(b, y, x, n, &r);

    if (r)
        memcpy(row, cells, (size_t)r * sizeof(*row));
}

void gt_cellbuf_restyle(struct gt_cellbuf *b, int y, int x, int n, int style)
{
    int i, r;
    uint32_t *row = cells_at(b, y, x, n, &r);

    for (i = 0; i < r; i++)
        row[i] = cell(row[i] & CH_MASK, style);
}

const uint32_t *gt_cellbuf_row(const struct gt_cellbuf *b, int y)
{
    return y >= 0 && y < b->rows ? b->cur + (size_t)y * (size_t)b->cols : NULL;
}

uint32_t gt_cellbuf_char(const struct gt_cellbuf *b, int y, int x)
{
    if (!room(b, y, x, 1))
        return 0;
    return b->cur[(size_t)y * (size_t)b->cols + x] & CH_MASK;
}

int gt_cellbuf_style(const struct gt_cellbuf *b, int y, int x)
{
    if (!room(b, y, x, 1))
        return -1;
    return (int)(b->cur[(size_t)y * (size_t)b->cols + x] >> STYLE_SHIFT);
}

/* First cell of row y at or after x that differs from the screen, or cols. */
static int first_change(const struct gt_cellbuf *b, const uint32_t *cur, const uint32_t *shown,
                        int x)
{
    if (b->invalid)
        return x;
    while (x < b->cols && cur[x] == shown[x])
        x++;
    return x;
}

int gt_cellbuf_next_run(const struct gt_cellbuf *b, struct gt_cell_run *r, int join)
{
    int y = r->y, x = r->x + r->n;

    if (join < 1)
        join = 1;
    for (; y < b->rows; y++, x = 0) {
        size_t off = (size_t)y * (size_t)b->cols;
        const uint32_t *cur = b->cur + off, *shown = b->shown + off;
        int start, end, i;
        if (x == 0 && !b->invalid && memcmp(cur, shown, (size_t)b->cols * sizeof(*cur)) == 0)
            continue;
        start = first_change(b, cur, shown, x);
        if (start >= b->cols)
            continue;
        end = start + 1;
        for (i = end; i < b->cols && i - end < join; i++)
            if (b->invalid || cur[i] != shown[i])
                end = i + 1;
        r->y = y;
        r->x = start;
        r->n = end - start;
        return 1;
    }
    r->y = b->rows;
    r->x = r->n = 0;
    return 0;
}

void gt_cellbuf_commit(struct gt_cellbuf *b)
{
    uint32_t *t = b->shown;

    b->shown = b->cur;
    b->cur = t;
    b->invalid = 0;
}
