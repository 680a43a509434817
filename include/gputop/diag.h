/* Error reports that name the file, line and column at fault, with the
 * offending source line and a caret under the fault. */
#ifndef GPUTOP_DIAG_H
#define GPUTOP_DIAG_H

#include <stddef.h>

#define GT_DIAG_MSG 512
#define GT_DIAG_SRC 256

struct gt_diag {
    char file[256];          /* "" when the text did not come from a file */
    int  line;               /* 1-based; 0 when unknown */
    int  col;                /* 1-based; 0 when unknown */
    char msg[GT_DIAG_MSG];
    char src[GT_DIAG_SRC];   /* the source line, "" when unknown */
};

void gt_diag_clear(struct gt_diag *d);
/* Copies src into dst[len] with every byte under 0x20 and 0x7f written as
 * \n, \t, \r or \xHH, cut short rather than overflowing or splitting an
 * escape; returns the length written. */
size_t gt_escape(char *dst, size_t len, const char *src);
/* Sets the message (printf-style, then escaped as gt_escape does);
 * position and source line untouched. */
void gt_diag_set(struct gt_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records a position and the source line it falls on. */
void gt_diag_at(struct gt_diag *d, const char *file, int line, int col,
                const char *line_text, size_t line_len);
/* "file:line:col: msg\n  source\n  ^\n" into buf; returns buf. */
const char *gt_diag_format(const struct gt_diag *d, char *buf, size_t len);

#endif
