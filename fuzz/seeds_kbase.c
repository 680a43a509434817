/* Writes seed inputs for fuzz_props from the fake kbase kernel: the
 * GET_GPUPROPS buffer of each fake GPU, and the pre-r21 GET_PROPS struct.
 * Usage: seeds_kbase DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "gputop/kbase_uapi.h"

static void save(const char *dir, const char *name, const void *p, size_t n)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static struct fake_kbase *open_fake(enum fk_gpu gpu, enum fk_api api, unsigned major,
                                    unsigned minor, int *fd)
{
    struct fk_config c;
    struct fake_kbase *fk;

    memset(&c, 0, sizeof(c));
    c.gpu = gpu;
    c.api = api;
    c.major = major;
    c.minor = minor;
    c.new_gate = 1;
    fk = fk_new(&c);
    if (!fk)
        exit(1);
    *fd = fk_sys(fk)->open(fk_sys(fk)->ctx, "/dev/mali0", O_RDWR);
    return fk;
}

static void new_props(const char *dir, const char *name, enum fk_gpu gpu, enum fk_api api,
                      unsigned major, unsigned minor)
{
    int fd;
    struct fake_kbase *fk = open_fake(gpu, api, major, minor, &fd);
    const struct gt_sys *s = fk_sys(fk);
    struct gt_kbase_get_gpuprops g = { 0, 0, 0 };
    int n = s->ioctl(s->ctx, fd, GT_KBASE_IOCTL_GET_GPUPROPS, &g);
    void *buf = n > 0 ? calloc(1, (size_t)n) : NULL;

    if (buf) {
        g.buffer = (uint64_t)(uintptr_t)buf;
        g.size = (uint32_t)n;
        if (s->ioctl(s->ctx, fd, GT_KBASE_IOCTL_GET_GPUPROPS, &g) == n)
            save(dir, name, buf, (size_t)n);
    }
    free(buf);
    s->close(s->ctx, fd);
    fk_free(fk);
}

static void old_props(const char *dir)
{
    int fd;
    struct fake_kbase *fk = open_fake(FK_T830, FK_PRE_R21, 10, 6, &fd);
    const struct gt_sys *s = fk_sys(fk);
    struct gt_uk_version_check v;
    struct gt_uk_gpuprops p;

    memset(&v, 0, sizeof(v));
    v.header.id = GT_UK_FUNC_VERSION_CHECK;
    v.major = 10;
    v.minor = 6;
    (void)s->ioctl(s->ctx, fd, GT_UK_IOCTL_VERSION_CHECK, &v);
    memset(&p, 0, sizeof(p));
    p.header.id = GT_UK_FUNC_GPU_PROPS;
    if (s->ioctl(s->ctx, fd, GT_UK_IOCTL_GPU_PROPS, &p) == 0 && p.header.ret == 0)
        save(dir, "t830-pre-r21", &p, sizeof(p));
    s->close(s->ctx, fd);
    fk_free(fk);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seeds_kbase DIR\n");
        return 2;
    }
    new_props(argv[1], "t830-jm", FK_T830, FK_JM, 11, 40);
    new_props(argv[1], "g715-csf", FK_G715, FK_CSF, 1, 21);
    new_props(argv[1], "g720-csf", FK_G720, FK_CSF, 1, 24);
    old_props(argv[1]);
    return 0;
}
