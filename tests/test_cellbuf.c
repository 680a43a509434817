/* The dashboard's cell buffer and terminal output: composing, comparing
 * frames, and the exact bytes sent for a change. */
#include <criterion/criterion.h>
#include <curses.h>
#include <string.h>
#include <term.h>

#include "gputop/cellbuf.h"
#include "gputop/termout.h"

static struct gt_cellbuf *frame(int rows, int cols, int ascii)
{
    struct gt_cellbuf *b = gt_cellbuf_new(ascii);

    cr_assert_not_null(b);
    cr_assert_eq(gt_cellbuf_begin(b, rows, cols), 0);
    return b;
}

Test(cellbuf, text_is_clipped_to_the_row_and_width)
{
    struct gt_cellbuf *b = frame(2, 6, 0);

    cr_assert_eq(gt_cellbuf_text(b, 0, 3, "abcdef", -1, 1), 3);
    cr_assert_eq(gt_cellbuf_char(b, 0, 5), 'c');
    cr_assert_eq(gt_cellbuf_style(b, 0, 5), 1);
    cr_assert_eq(gt_cellbuf_text(b, 1, 0, "abcdef", 2, 0), 2);
    cr_assert_eq(gt_cellbuf_char(b, 1, 2), ' ');
    cr_assert_eq(gt_cellbuf_text(b, 2, 0, "x", -1, 0), 0, "below the frame");
    cr_assert_eq(gt_cellbuf_text(b, 0, -1, "x", -1, 0), 0, "left of the frame");
    cr_assert_eq(gt_cellbuf_text(b, 0, 6, "x", -1, 0), 0, "right of the frame");
    cr_assert_eq(gt_cellbuf_char(b, 5, 5), 0);
    cr_assert_eq(gt_cellbuf_style(b, 5, 5), -1);
    gt_cellbuf_free(b);
}

Test(cellbuf, utf8_decoded_and_bad_bytes_replaced)
{
    struct gt_cellbuf *b = frame(1, 10, 0);

    /* A block, a middle dot, a truncated sequence, a control, a stray continuation. */
    cr_assert_eq(gt_cellbuf_text(b, 0, 0, "\u2588\u00b7\xe2\x96x\t\x80y", -1, 0), 7);
    cr_assert_eq(gt_cellbuf_char(b, 0, 0), 0x2588);
    cr_assert_eq(gt_cellbuf_char(b, 0, 1), 0xb7);
    cr_assert_eq(gt_cellbuf_char(b, 0, 2), '?', "the truncated sequence");
    cr_assert_eq(gt_cellbuf_char(b, 0, 3), 'x', "the byte that cut it short is kept");
    cr_assert_eq(gt_cellbuf_char(b, 0, 4), '?', "the control character");
    cr_assert_eq(gt_cellbuf_char(b, 0, 5), '?', "the stray continuation byte");
    cr_assert_eq(gt_cellbuf_char(b, 0, 6), 'y');
    gt_cellbuf_free(b);
}

Test(cellbuf, ascii_mode_stores_only_ascii)
{
    struct gt_cellbuf *b = frame(1, 4, 1);

    gt_cellbuf_text(b, 0, 0, "a\u2588b", -1, 0);
    gt_cellbuf_fill(b, 0, 3, 1, 0x2191, 0);
    cr_assert_eq(gt_cellbuf_char(b, 0, 1), '?');
    cr_assert_eq(gt_cellbuf_char(b, 0, 3), '?');
    gt_cellbuf_free(b);
}

/* All runs of the current frame against the one committed. */
static int runs(struct gt_cellbuf *b, struct gt_cell_run *out, int max, int join)
{
    struct gt_cell_run r = { 0, 0, 0 };
    int n = 0;

    while (n < max && gt_cellbuf_next_run(b, &r, join))
        out[n++] = r;
    return n;
}

/* A line kept from one frame is put back in the next with its styles,
 * clipped to the frame as text is. */
Test(cellbuf, cells_of_an_earlier_frame_are_put_back_with_their_styles)
{
    struct gt_cellbuf *b = frame(2, 5, 0);
    uint32_t kept[5];

    gt_cellbuf_text(b, 1, 0, "ab", -1, 3);
    gt_cellbuf_text(b, 1, 2, "cde", -1, 4);
    memcpy(kept, gt_cellbuf_row(b, 1), sizeof(kept));
    cr_assert_eq(gt_cellbuf_begin(b, 2, 5), 0);
    cr_assert_eq(gt_cellbuf_char(b, 1, 0), ' ', "a new frame starts blank");
    gt_cellbuf_put_cells(b, 1, 0, kept, 5);
    cr_assert_eq(gt_cellbuf_char(b, 1, 1), 'b');
    cr_assert_eq(gt_cellbuf_style(b, 1, 1), 3);
    cr_assert_eq(gt_cellbuf_char(b, 1, 4), 'e');
    cr_assert_eq(gt_cellbuf_style(b, 1, 4), 4);
    gt_cellbuf_put_cells(b, 0, 3, kept, 5);
    cr_assert_eq(gt_cellbuf_char(b, 0, 4), 'b', "clipped at the right edge");
    gt_cellbuf_put_cells(b, 2, 0, kept, 5);
    gt_cellbuf_put_cells(b, 0, -1, kept, 5);
    cr_assert_eq(gt_cellbuf_char(b, 0, 0), ' ', "nothing outside the frame");
    gt_cellbuf_free(b);
}

Test(cellbuf, only_changed_cells_are_reported)
{
    struct gt_cellbuf *b = frame(3, 20, 0);
    struct gt_cell_run r[8];

    gt_cellbuf_text(b, 1, 0, "steady text", -1, 0);
    cr_assert_eq(runs(b, r, 8, 4), 3, "a new frame is reported whole, row by row");
    cr_assert_eq(r[0].n, 20);
    gt_cellbuf_commit(b);

    gt_cellbuf_begin(b, 3, 20);
    gt_cellbuf_text(b, 1, 0, "steady text", -1, 0);
    cr_assert_eq(runs(b, r, 8, 4), 0, "nothing changed");
    gt_cellbuf_commit(b);

    gt_cellbuf_begin(b, 3, 20);
    gt_cellbuf_text(b, 1, 0, "steady test", -1, 0);   /* column 9 */
    gt_cellbuf_text(b, 2, 2, "ab", -1, 0);
    gt_cellbuf_text(b, 2, 15, "z", -1, 0);
    cr_assert_eq(runs(b, r, 8, 4), 3);
    cr_assert(r[0].y == 1 && r[0].x == 9 && r[0].n == 1);
    cr_assert(r[1].y == 2 && r[1].x == 2 && r[1].n == 2);
    cr_assert(r[2].y == 2 && r[2].x == 15 && r[2].n == 1);
    cr_assert_eq(runs(b, r, 8, 16), 2, "a wide join bridges the gap on row 2");
    cr_assert(r[1].x == 2 && r[1].n == 14);
    gt_cellbuf_commit(b);

    gt_cellbuf_begin(b, 3, 20);
    gt_cellbuf_text(b, 1, 0, "steady test", -1, 0);
    gt_cellbuf_text(b, 2, 2, "ab", -1, 0);
    gt_cellbuf_text(b, 2, 15, "z", -1, 0);
    gt_cellbuf_restyle(b, 1, 0, 6, 3);
    cr_assert_eq(runs(b, r, 8, 4), 1, "a new style is a change");
    cr_assert(r[0].y == 1 && r[0].x == 0 && r[0].n == 6);
    gt_cellbuf_free(b);
}

Test(cellbuf, invalidate_and_resize_report_everything)
{
    struct gt_cellbuf *b = frame(2, 5, 0);
    struct gt_cell_run r[8];

    gt_cellbuf_commit(b);
    gt_cellbuf_begin(b, 2, 5);
    cr_assert_eq(runs(b, r, 8, 4), 0);
    gt_cellbuf_invalidate(b);
    cr_assert_eq(runs(b, r, 8, 4), 2);
    gt_cellbuf_commit(b);
    gt_cellbuf_begin(b, 3, 7);
    cr_assert_eq(runs(b, r, 8, 4), 3);
    cr_assert_eq(r[2].n, 7);
    cr_assert_eq(gt_cellbuf_begin(b, 0, 0), 0);
    cr_assert_eq(runs(b, r, 8, 4), 0, "an empty frame has nothing to send");
    gt_cellbuf_free(b);
}

/* ---- terminal output ---- */

static struct gt_termout *ansi_out(int utf8)
{
    struct gt_termout_caps caps;
    struct gt_termout *o;

    memset(&caps, 0, sizeof(caps));
    caps.cup = "\033[%i%p1%d;%p2%dH";
    caps.nstyles = 3;
    caps.style_on[1] = "\033[1m";
    caps.style_off[1] = "\033[m";
    caps.style_on[2] = "\033[31m";
    caps.style_off[2] = "\033[39m";
    caps.utf8 = utf8;
    o = gt_termout_new(&caps);
    cr_assert_not_null(o);
    return o;
}

static void expect_bytes(struct gt_termout *o, struct gt_cellbuf *b, const char *want)
{
    const char *got;
    size_t n = gt_termout_render(o, b, &got);

    cr_assert_eq(n, strlen(want), "got %zu bytes '%.*s', want '%s'", n, (int)n, got, want);
    cr_assert_eq(memcmp(got, want, n), 0, "got '%.*s', want '%s'", (int)n, got, want);
}

Test(termout, first_frame_then_only_the_change)
{
    struct gt_termout *o = ansi_out(1);
    struct gt_cellbuf *b = frame(2, 4, 0);

    gt_cellbuf_text(b, 0, 0, "ab", -1, 1);
    gt_cellbuf_text(b, 1, 0, "\u2588", -1, 2);
    /* Row 0 whole; row 1 but its last cell, which could scroll the screen. */
    expect_bytes(o, b, "\033[1;1H\033[1mab\033[m  \033[2;1H\033[31m\xe2\x96\x88\033[39m  ");
    gt_cellbuf_begin(b, 2, 4);
    gt_cellbuf_text(b, 0, 0, "ac", -1, 1);
    gt_cellbuf_text(b, 1, 0, "\u2588", -1, 2);
    expect_bytes(o, b, "\033[1;2H\033[1mc");
    gt_cellbuf_begin(b, 2, 4);
    gt_cellbuf_text(b, 0, 0, "ac", -1, 1);
    gt_cellbuf_text(b, 1, 0, "\u2588", -1, 2);
    expect_bytes(o, b, "");
    gt_termout_free(o);
    gt_cellbuf_free(b);
}

Test(termout, release_returns_to_normal_at_home)
{
    struct gt_termout *o = ansi_out(1);
    struct gt_cellbuf *b = frame(2, 4, 0);
    const char *bytes;
    size_t n;

    gt_cellbuf_text(b, 1, 2, "x", -1, 2);
    gt_termout_render(o, b, &bytes);
    n = gt_termout_release(o, &bytes);
    cr_assert_eq(n, strlen("\033[39m\033[1;1H"));
    cr_assert_eq(memcmp(bytes, "\033[39m\033[1;1H", n), 0);
    gt_cellbuf_free(b);
    gt_termout_free(o);
}

Test(termout, without_utf8_only_ascii_is_sent)
{
    struct gt_termout *o = ansi_out(0);
    struct gt_cellbuf *b = frame(1, 3, 0);

    gt_cellbuf_text(b, 0, 0, "\u2588a", -1, 0);
    expect_bytes(o, b, "\033[1;1H?a");
    gt_cellbuf_free(b);
    gt_termout_free(o);
}

Test(termout, the_cursor_is_addressed_again_after_the_right_margin)
{
    struct gt_termout *o = ansi_out(1);
    struct gt_cellbuf *b = frame(3, 2, 0);

    gt_cellbuf_text(b, 0, 0, "ab", -1, 0);
    gt_cellbuf_text(b, 1, 0, "cd", -1, 0);
    expect_bytes(o, b, "\033[1;1Hab\033[2;1Hcd\033[3;1H ");
    gt_termout_free(o);
    gt_cellbuf_free(b);
}

Test(termout, no_cursor_addressing_no_output)
{
    struct gt_termout_caps caps;

    memset(&caps, 0, sizeof(caps));
    caps.nstyles = 1;
    cr_assert_null(gt_termout_new(&caps));
}

/* The terminfo entries of this machine's ncurses: a colour terminal and a
 * monochrome one. */
Test(termout, styles_from_terminfo)
{
    struct gt_termout_caps caps;
    unsigned attrs[3] = { 0, GT_TERM_BOLD, 0 };
    short fg[3] = { -1, 6, 1 };
    char buf[2048];
    int err;

    cr_assert_eq(setupterm("xterm-256color", 1, &err), OK, "no xterm-256color entry");
    cr_assert_eq(gt_termout_caps_from_terminfo(&caps, attrs, fg, 3, 1, buf, sizeof(buf)), 0);
    cr_assert_str_eq(caps.cup, "\033[%i%p1%d;%p2%dH");
    cr_assert_str_eq(caps.style_on[1], "\033[1m\033[36m");
    cr_assert(strstr(caps.style_off[1], "\033[39;49m"), "colour reset: %s", caps.style_off[1]);
    cr_assert_str_eq(caps.style_on[2], "\033[31m");
    cr_assert_str_eq(caps.style_off[2], "\033[39;49m", "a colour alone needs no sgr0");
    cr_assert_eq(gt_termout_caps_from_terminfo(&caps, attrs, fg, 3, 1, buf, 8), -1,
                 "too small a buffer is refused");
    del_curterm(cur_term);

    cr_assert_eq(setupterm("vt100", 1, &err), OK, "no vt100 entry");
    cr_assert_eq(gt_termout_caps_from_terminfo(&caps, attrs, fg, 3, 0, buf, sizeof(buf)), 0);
    cr_assert(strstr(caps.style_on[1], "\033[1m"), "bold on vt100: %s", caps.style_on[1]);
    cr_assert_str_eq(caps.style_on[2], "", "vt100 has no colours");
    del_curterm(cur_term);
}

Test(termout, terminfo_delays_are_not_sent)
{
    struct gt_termout_caps caps;
    struct gt_termout *o;
    struct gt_cellbuf *b = frame(1, 3, 0);

    memset(&caps, 0, sizeof(caps));
    caps.cup = "\033[%i%p1%d;%p2%dH$<5>";      /* vt100's, with its delay */
    caps.nstyles = 2;
    caps.style_on[1] = "\033[1m$<2>";
    caps.style_off[1] = "\033[m\017$<2*/>";
    o = gt_termout_new(&caps);
    cr_assert_not_null(o);
    gt_cellbuf_text(b, 0, 1, "x", -1, 1);
    expect_bytes(o, b, "\033[1;1H \033[1mx");
    gt_termout_free(o);
    gt_cellbuf_free(b);
}

Test(termout, after_lost_bytes_the_cursor_and_style_are_set_again)
{
    struct gt_termout *o = ansi_out(1);
    struct gt_cellbuf *b = frame(2, 4, 0);

    gt_cellbuf_text(b, 0, 0, "ab", -1, 1);
    gt_termout_render(o, b, &(const char *){ NULL });
    gt_cellbuf_begin(b, 2, 4);
    gt_cellbuf_text(b, 0, 0, "ab", -1, 1);
    gt_cellbuf_invalidate(b);
    gt_termout_forget(o);
    /* Every style's reset first, then style 1 again, then all cells. */
    expect_bytes(o, b, "\033[1;1H\033[m\033[39m\033[1mab\033[m  \033[2;1H   ");
    gt_cellbuf_free(b);
    gt_termout_free(o);
}
