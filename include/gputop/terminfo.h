/* Built-in terminal descriptions for systems without a terminfo database. */
#ifndef GPUTOP_TERMINFO_H
#define GPUTOP_TERMINFO_H

#include <stddef.h>

/* 1 if name is one of the built-in entries. */
int gt_terminfo_builtin(const char *name);
/* Writes the built-in entries to a private directory under $TMPDIR (else
 * /data/local/tmp, else /tmp) and points TERMINFO at it. Returns 0, or -1
 * with a reason in why. */
int gt_terminfo_install(char *dir, size_t len, char *why, size_t whylen);

#endif
