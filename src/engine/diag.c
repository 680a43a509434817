/* Error reports with file:line:column, the source line and a caret. Every
 * message is escaped here, once: its text may come from a hostile file
 * (a CSV header, a capture, /dev/urandom), and a raw ESC or BEL on stderr
 * would drive the user's terminal. */
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

/* The escape of one byte (its length, 0 when it needs none). */
static size_t escape_byte(unsigned char c, char out[5])
{
    static const char hex[] = "0123456789abcdef";

    if (c >= 0x20 && c != 0x7f)
        return 0;
    out[0] = '\\';
    if (c == '\n' || c == '\t' || c == '\r') {
        out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        return 2;
    }
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

size_t gt_escape(char *dst, size_t len, const char *src)
{
    size_t n = 0, k;
    char e[5];

    if (!len)
        return 0;
    for (; *src; src++) {
        k = escape_byte((unsigned char)*src, e);
        if (!k) {
            e[0] = *src;
            k = 1;
        }
        if (n + k >= len)
            break;
        memcpy(dst + n, e, k);
        n += k;
    }
    dst[n] = '\0';
    return n;
}

/* The one place a message is formatted, and so escaped. */
static void set_message(struct gt_diag *d, const char *fmt, va_list ap)
{
    char raw[GT_DIAG_MSG];

    vsnprintf(raw, sizeof(raw), fmt, ap);
    gt_escape(d->msg, sizeof(d->msg), raw);
}

void gt_diag_set(struct gt_diag *d, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    va_start(ap, fmt);
    set_message(d, fmt, ap);
    va_end(ap);
}

void gt_diag_fail(struct gt_diag *d, enum gt_err code, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    d->code = code;
    va_start(ap, fmt);
    set_message(d, fmt, ap);
    va_end(ap);
}

void gt_diag_errno(struct gt_diag *d, int err, const char *fmt, ...)
{
    va_list ap;

    if (!d)
        return;
    d->code = gt_err_from_errno(err);
    va_start(ap, fmt);
    set_message(d, fmt, ap);
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
    gt_escape(d->file, sizeof(d->file), file ? file : "");
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

/* The source line escaped like the message, and the caret under column
 * col of the raw line, past as many columns as the escapes before it
 * take (a tab shows as the two columns of "\\t"). */
static void source_and_caret(const struct gt_diag *d, char *src, char *caret, size_t len)
{
    size_t n = 0, i, w, raw = strlen(d->src);
    char e[5];

    gt_escape(src, len, d->src);
    for (i = 0; i + 1 < (size_t)d->col; i++) {
        w = i < raw ? escape_byte((unsigned char)d->src[i], e) : 0;
        for (w = w ? w : 1; w-- && n + 2 < len;)
            caret[n++] = ' ';
    }
    caret[n++] = '^';
    caret[n] = '\0';
}

const char *gt_diag_format(const struct gt_diag *d, char *buf, size_t len)
{
    char src[GT_DIAG_SRC * 4], caret[GT_DIAG_SRC * 4];
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
    source_and_caret(d, src, caret, sizeof(src));
    snprintf(buf + n, len - (size_t)n, "  %s\n  %s\n", src, caret);
    return buf;
}
