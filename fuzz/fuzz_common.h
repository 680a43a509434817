/* Shared by the libFuzzer targets: inputs that the code under test reads
 * from a path are written to one private file per process. */
#ifndef GPUTOP_FUZZ_COMMON_H
#define GPUTOP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gputop/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to this process's scratch file and returns its path. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *ext)
{
    static char path[128];
    const char *tmp = getenv("TMPDIR");
    FILE *f;

    snprintf(path, sizeof(path), "%s/gputop-fuzz-%ld%s", tmp && *tmp ? tmp : "/tmp",
             (long)getpid(), ext);
    f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();
    return path;
}

#endif
