/* Error messages: every control byte a hostile file can put in one (a CSV
 * header, a capture's strings, /dev/urandom) is escaped before it can
 * reach a terminal, and the caret still sits under the fault. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/diag.h"

/* No byte under 0x20 but the line ends, and no DEL. */
static void assert_printable(const char *s)
{
    for (const char *p = s; *p; p++)
        cr_assert(((unsigned char)*p >= 0x20 && *p != 0x7f) || *p == '\n',
                  "raw byte 0x%02x at %zu in '%s'", (unsigned char)*p, (size_t)(p - s), s);
}

/* Expected strings written out by hand: ESC is \x1b, BEL \x07. */
Test(diag, control_bytes_in_a_message_are_escaped)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    gt_diag_set(&d, "column '%s'", "\x1b]0;PWN\x07Mali\x7f\t\r\n\x01");
    cr_assert_str_eq(d.msg, "column '\\x1b]0;PWN\\x07Mali\\x7f\\t\\r\\n\\x01'");
    /* Escaping is idempotent: a message passed on is not escaped twice. */
    gt_diag_set(&d, "again: %s", "\\x1b");
    cr_assert_str_eq(d.msg, "again: \\x1b");
    /* UTF-8 is left alone. */
    gt_diag_set(&d, "caf\xc3\xa9");
    cr_assert_str_eq(d.msg, "caf\xc3\xa9");
}

Test(diag, a_long_message_is_cut_between_escapes)
{
    char big[2 * GT_DIAG_MSG];
    struct gt_diag d;
    size_t n;

    memset(big, 0x1b, sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gt_diag_set(&d, "%s", big);
    n = strlen(d.msg);
    /* 127 whole "\x1b" of 4 bytes fit in 511 */
    cr_assert_eq(n, 4 * ((GT_DIAG_MSG - 1) / 4));
    cr_assert_eq(strncmp(d.msg + n - 4, "\\x1b", 4), 0, "%s", d.msg + n - 8);
}

/* The file name and source line are escaped too; the caret counts the
 * columns the escapes take: "\t" two, "\x1b" four. */
Test(diag, file_and_source_line_are_escaped_with_the_caret_in_place)
{
    struct gt_diag d;
    char buf[1024];

    gt_diag_clear(&d);
    gt_diag_at(&d, "f\x1b[2J.csv", 1, 4, "\ta\x1b" "bc", 5);
    gt_diag_set(&d, "bad");
    gt_diag_format(&d, buf, sizeof(buf));
    cr_assert_str_eq(buf, "f\\x1b[2J.csv:1:4: error: bad\n"
                          "  \\ta\\x1bbc\n"
                          "         ^\n");
    assert_printable(buf);
    /* A column past the end of the line: plain spaces after it. */
    gt_diag_at(&d, "f", 1, 6, "\tab", 3);
    gt_diag_format(&d, buf, sizeof(buf));
    cr_assert_str_eq(buf, "f:1:6: error: bad\n  \\tab\n        ^\n");
}
