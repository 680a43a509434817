/* The fake /proc tree (see fake_proc.h), built with plain file calls in a
 * temporary directory. */
#include "fakes/fake_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fake_proc {
    struct gt_sys sys;
    char root[64];
};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

struct fake_proc *fproc_new(void)
{
    struct fake_proc *p = calloc(1, sizeof(*p));
    char path[128];

    if (!p)
        return NULL;
    snprintf(p->root, sizeof(p->root), "/tmp/gputop-fakeproc-XXXXXX");
    if (!mkdtemp(p->root))
        abort();
    snprintf(path, sizeof(path), "%s/proc", p->root);
    mkdir(path, 0755);
    p->sys = *gt_sys_real();
    p->sys.root = p->root;
    return p;
}

void fproc_free(struct fake_proc *p)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p->root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", p->root);
    free(p);
}

const struct gt_sys *fproc_sys(struct fake_proc *p)
{
    return &p->sys;
}

const char *fproc_root(const struct fake_proc *p)
{
    return p->root;
}

void fproc_add_process(struct fake_proc *p, int pid, const char *comm)
{
    char path[256], text[64];

    snprintf(path, sizeof(path), "%s/proc/%d", p->root, pid);
    mkdir(path, 0555 | 0200);
    snprintf(path, sizeof(path), "%s/proc/%d/fd", p->root, pid);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/proc/%d/fdinfo", p->root, pid);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/proc/%d/comm", p->root, pid);
    snprintf(text, sizeof(text), "%s\n", comm);
    write_file(path, text);
    fproc_set_last_pid(p, pid);
}

/* fs/proc/loadavg.c: "%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d\n", the last
 * field the pid most recently handed out (idr_get_cursor() - 1). */
void fproc_set_last_pid(struct fake_proc *p, int pid)
{
    char path[256], text[96];

    snprintf(path, sizeof(path), "%s/proc/loadavg", p->root);
    snprintf(text, sizeof(text), "0.00 0.01 0.05 1/123 %d\n", pid);
    write_file(path, text);
}

void fproc_add_fd(struct fake_proc *p, int pid, int fd, const char *target, const char *fdinfo)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/proc/%d/fd/%d", p->root, pid, fd);
    unlink(path);
    if (symlink(target, path) != 0)
        abort();
    snprintf(path, sizeof(path), "%s/proc/%d/fdinfo/%d", p->root, pid, fd);
    write_file(path, fdinfo);
}

void fproc_close_fd(struct fake_proc *p, int pid, int fd)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/proc/%d/fd/%d", p->root, pid, fd);
    unlink(path);
    snprintf(path, sizeof(path), "%s/proc/%d/fdinfo/%d", p->root, pid, fd);
    unlink(path);
}

void fproc_exit(struct fake_proc *p, int pid)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s/proc/%d'", p->root, pid);
    if (system(cmd) != 0)
        abort();
}

/* A file anywhere below the root (a sysfs switch), directories made. */
void fproc_write(struct fake_proc *p, const char *path, const char *text)
{
    char full[512], *slash;

    snprintf(full, sizeof(full), "%s%s", p->root, path);
    for (slash = strchr(full + strlen(p->root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(full, 0755);
        *slash = '/';
    }
    write_file(full, text);
}

/* /proc/PID/cmdline as fs/proc/base.c shows it: the arguments, each
 * followed by a NUL (argv's own bytes). */
void fproc_set_cmdline(struct fake_proc *p, int pid, const char *const *argv)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/proc/%d/cmdline", p->root, pid);
    f = fopen(path, "w");
    if (!f)
        abort();
    for (; *argv; argv++)
        fwrite(*argv, 1, strlen(*argv) + 1, f);
    fclose(f);
}

int fproc_read(struct fake_proc *p, const char *path, char *buf, size_t len)
{
    if (gt_sys_read_file(&p->sys, path, buf, len) < 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}
