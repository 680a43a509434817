/* Built-in terminal descriptions: phones have no terminfo database, so the
 * compiled entries embedded at build time are written to a private
 * directory and used through TERMINFO. */
#include "gputop/terminfo.h"
#include "gputop/embedded.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gt_terminfo_builtin(const char *name)
{
    size_t i;

    for (i = 0; name && i < gt_embedded_terminfo_count; i++) {
        const char *slash = strchr(gt_embedded_terminfo[i].path, '/');
        if (slash && strcmp(slash + 1, name) == 0)
            return 1;
    }
    return 0;
}

static const char *temp_root(void)
{
    const char *t = getenv("TMPDIR");
    struct stat st;

    if (t && *t && stat(t, &st) == 0 && S_ISDIR(st.st_mode))
        return t;
    if (stat("/data/local/tmp", &st) == 0 && S_ISDIR(st.st_mode))
        return "/data/local/tmp";
    return "/tmp";
}

/* A directory of ours: created 0700, or existing, owned by us, not a link. */
static int private_dir(const char *path, char *why, size_t whylen)
{
    struct stat st;

    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        snprintf(why, whylen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) {
        snprintf(why, whylen, "%s is not a directory of ours", path);
        return -1;
    }
    return 0;
}

static int write_entry(const char *dir, const struct gt_embedded_file *f, char *why, size_t whylen)
{
    char path[1024], tmp[1100], sub[1024];
    const char *slash = strchr(f->path, '/');
    struct stat st;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, f->path);
    if (stat(path, &st) == 0 && (size_t)st.st_size == f->len)
        return 0;
    snprintf(sub, sizeof(sub), "%s/%.*s", dir, slash ? (int)(slash - f->path) : 0, f->path);
    if (private_dir(sub, why, whylen) < 0)
        return -1;
    snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    n = write(fd, f->data, f->len);
    if (close(fd) < 0 || n != (ssize_t)f->len || rename(tmp, path) < 0) {
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int gt_terminfo_install(char *dir, size_t len, char *why, size_t whylen)
{
    size_t i;

    snprintf(dir, len, "%s/gputop-terminfo-%u", temp_root(), (unsigned)getuid());
    if (private_dir(dir, why, whylen) < 0)
        return -1;
    for (i = 0; i < gt_embedded_terminfo_count; i++)
        if (write_entry(dir, &gt_embedded_terminfo[i], why, whylen) < 0)
            return -1;
    if (setenv("TERMINFO", dir, 1) < 0) {
        snprintf(why, whylen, "cannot set TERMINFO");
        return -1;
    }
    return 0;
}
