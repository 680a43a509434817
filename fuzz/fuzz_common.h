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

/* Where scratch files go: TMPDIR if set, else /dev/shm (a tmpfs: on this
 * VM's disk each rewrite of a file costs ~2 ms, on tmpfs ~40 us), else /tmp. */
static inline const char *fuzz_tmpdir(void)
{
    const char *tmp = getenv("TMPDIR");

    if (tmp && *tmp)
        return tmp;
    return access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
}

/* Writes data to this process's scratch file and returns its path. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *ext)
{
    static char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/gputop-fuzz-%ld%s", fuzz_tmpdir(), (long)getpid(), ext);
    f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();
    return path;
}

/* Writes n bytes (NULs included) to root/rel; aborts on failure. */
static inline void fuzz_put(const char *root, const char *rel, const void *b, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s%s", root, rel);
    f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(b, 1, n, f) != n)
        abort();
    if (fclose(f) != 0)
        abort();
}

/* A private directory below fuzz_tmpdir(), made once per process with the
 * given subdirectories (mkdir -p) and removed at exit. */
static inline char *fuzz_tree_root(void)
{
    static char root[256];
    return root;
}

static inline void fuzz_tree_remove(void)
{
    char cmd[300];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_tree_root());
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", fuzz_tree_root());
}

static inline const char *fuzz_tree(const char *const *dirs)
{
    char *root = fuzz_tree_root(), cmd[1024];

    if (root[0])
        return root;
    snprintf(root, 256, "%s/gputop-fuzz-XXXXXX", fuzz_tmpdir());
    if (!mkdtemp(root))
        abort();
    atexit(fuzz_tree_remove);
    for (; dirs && *dirs; dirs++) {
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s%s'", root, *dirs);
        if (system(cmd) != 0)
            abort();
    }
    return root;
}

#endif
