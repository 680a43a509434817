/* The capture format's catalogue check, shared by its writer and reader. */
#ifndef GPUTOP_CAPTURE_CHECK_H
#define GPUTOP_CAPTURE_CHECK_H

#include <stddef.h>
#include "gputop/capture.h"

/* NULL when c fits the format and is self-consistent; else why, in why[len]. */
const char *gt_capture_check_catalog(const struct gt_catalog *c, char *why, size_t len);

#endif
