/* Error reports with file:line:column, the source line and a caret. */
#include "gputop/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gt_diag_clear(struct gt_diag *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof(*d));
}

void gt_diag_set(struct gt_diag *d, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
    va_end(ap);
}

void gt_diag_fail(struct gt_diag *d, enum gt_err code, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    d->code = code;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
    va_end(ap);
}

void gt_diag_errno(struct gt_diag *d, int err, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    d->code = gt_err_from_errno(err);
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
    va_end(ap);
}

enum gt_err gt_err_from_errno(int err)
{
    switch (err) {
    case 0: return GT_ERR_NONE;
    case ENOMEM: return GT_ERR_NOMEM;
    case ENOENT: case ENODEV: case ENXIO: return GT_ERR_NODEV;
    case EACCES: case EPERM: return GT_ERR_PERM;
    case EBUSY: return GT_ERR_BUSY;
    case EAGAIN: case EINTR: case ETIMEDOUT: return GT_ERR_AGAIN;
    case EINVAL: case ERANGE: return GT_ERR_INVAL;
    case ENOTTY: case ENOSYS: case EOPNOTSUPP: return GT_ERR_UNSUPPORTED;
    default: return GT_ERR_IO;
    }
}

const char *gt_err_name(enum gt_err code)
{
    static const char *const names[] = {
        [GT_ERR_NONE] = "NONE", [GT_ERR_NOMEM] = "NOMEM", [GT_ERR_NODEV] = "NODEV",
        [GT_ERR_PERM] = "PERM", [GT_ERR_BUSY] = "BUSY", [GT_ERR_AGAIN] = "AGAIN",
        [GT_ERR_INVAL] = "INVAL", [GT_ERR_UNSUPPORTED] = "UNSUPPORTED", [GT_ERR_IO] = "IO",
        [GT_ERR_DATA] = "DATA",
    };

    return (unsigned)code < sizeof(names) / sizeof(names[0]) ? names[code] : "?";
}

void gt_diag_at(struct gt_diag *d, const char *file, int line, int col,
                const char *line_text, size_t line_len)
{
    if (!d)
        return;
    snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
    d->line = line;
    d->col = col;
    d->src[0] = '\0';
    if (!line_text)
        return;
    if (line_len >= sizeof(d->src))
        line_len = sizeof(d->src) - 1;
    memcpy(d->src, line_text, line_len);
    d->src[line_len] = '\0';
}

/* The caret sits under column col; tabs in the source are copied so the
 * caret lines up whatever the tab width. */
static size_t caret_line(const struct gt_diag *d, char *buf, size_t len)
{
    size_t n = 0;
    int c;

    for (c = 1; c < d->col && n + 2 < len; c++) {
        size_t i = (size_t)(c - 1);
        buf[n++] = (i < strlen(d->src) && d->src[i] == '\t') ? '\t' : ' ';
    }
    if (n + 1 < len)
        buf[n++] = '^';
    buf[n] = '\0';
    return n;
}

const char *gt_diag_format(const struct gt_diag *d, char *buf, size_t len)
{
    char caret[GT_DIAG_SRC + 2];
    int n;

    if (!buf || len == 0)
        return buf;
    if (d->file[0] && d->line > 0)
        n = snprintf(buf, len, "%s:%d:%d: error: %s\n", d->file, d->line, d->col, d->msg);
    else if (d->line > 0)
        n = snprintf(buf, len, "%d:%d: error: %s\n", d->line, d->col, d->msg);
    else if (d->file[0])
        n = snprintf(buf, len, "%s: error: %s\n", d->file, d->msg);
    else
        n = snprintf(buf, len, "error: %s\n", d->msg);
    if (n < 0 || (size_t)n >= len || !d->src[0] || d->col <= 0)
        return buf;
    caret_line(d, caret, sizeof(caret));
    snprintf(buf + n, len - (size_t)n, "  %s\n  %s\n", d->src, caret);
    return buf;
}
