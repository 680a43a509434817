/* Error reports that name the file, line and column at fault, with the
 * offending source line and a caret under the fault, and a code that says
 * what kind of failure it was, so that callers act on the code and never
 * on the text (or on an errno read after the fact). */
#ifndef GPUTOP_DIAG_H
#define GPUTOP_DIAG_H

#include <stddef.h>

#define GT_DIAG_MSG 512
#define GT_DIAG_SRC 256

/* What kind of failure a diagnostic reports. */
enum gt_err {
    GT_ERR_NONE,             /* no code: a syntax error, a warning, ... */
    GT_ERR_NOMEM,            /* out of memory (ENOMEM) */
    GT_ERR_NODEV,            /* the device or file is not there, or went away
                                (ENOENT, ENODEV, ENXIO) */
    GT_ERR_PERM,             /* not allowed (EACCES, EPERM) */
    GT_ERR_BUSY,             /* someone else holds it (EBUSY) */
    GT_ERR_AGAIN,            /* not now; later may work (EAGAIN, EINTR,
                                ETIMEDOUT) */
    GT_ERR_INVAL,            /* the request or its argument is refused
                                (EINVAL, ERANGE) */
    GT_ERR_UNSUPPORTED,      /* the kernel or build has no such call
                                (ENOTTY, ENOSYS, EOPNOTSUPP) */
    GT_ERR_IO,               /* a read or write failed (EIO, any other errno) */
    GT_ERR_DATA,             /* what was read is not as documented (a
                                damaged file, a kernel that breaks its ABI) */
};

struct gt_diag {
    enum gt_err code;        /* GT_ERR_NONE unless the maker set one */
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
/* Sets the message (printf-style, then escaped as gt_escape does); code,
 * position and source line untouched. */
void gt_diag_set(struct gt_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets the code and the message. */
void gt_diag_fail(struct gt_diag *d, enum gt_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Sets the code from err, the errno of the failing call, and the message
 * (which says strerror(err) itself, where it fits best). */
void gt_diag_errno(struct gt_diag *d, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum gt_err gt_err_from_errno(int err);
/* "NOMEM", "NODEV", ...; "NONE" for GT_ERR_NONE. */
const char *gt_err_name(enum gt_err code);
/* Records a position and the source line it falls on. */
void gt_diag_at(struct gt_diag *d, const char *file, int line, int col,
                const char *line_text, size_t line_len);
/* "file:line:col: msg\n  source\n  ^\n" into buf; returns buf. */
const char *gt_diag_format(const struct gt_diag *d, char *buf, size_t len);

#endif
