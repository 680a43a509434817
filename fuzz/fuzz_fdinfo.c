/* libFuzzer target: DRM fdinfo text. The parser alone on the whole input
 * (and the same text as /proc/PID/cgroup and as gpu_work_period trace
 * lines, the other kernel text the Processes view reads),
 * then the reader end to end over a fake /proc whose fdinfo files are
 * pieces of the input, rewritten between updates (values going back,
 * keys vanishing, NUL bytes, no newline, lines past the read buffer). */
#include "fuzz_common.h"
#include "gputop/fdinfo.h"

#define NPROCS 3
#define NFDS 3
#define ROUNDS 3
#define SEP "\xff\xfe"   /* splits the input into fdinfo files */

struct piece {
    const uint8_t *p;
    size_t n;
};

static size_t split(const uint8_t *data, size_t size, struct piece *out, size_t max)
{
    size_t k = 0, start = 0;

    for (size_t i = 0; i + 1 < size && k + 1 < max; i++)
        if (data[i] == 0xff && data[i + 1] == 0xfe) {
            out[k].p = data + start;
            out[k++].n = i - start;
            start = i + 2;
            i++;
        }
    out[k].p = data + start;
    out[k++].n = size - start;
    return k;
}

/* The fake /proc, as tests/fakes/fake_proc.c lays it out (comm, fd
 * links, fdinfo files) but on tmpfs and made once per process: the
 * per-input work is a few writes. Fd 5 of each process is not DRM. */
static const char *tree(void)
{
    static const char *const dirs[] = {
        "/proc/100/fd", "/proc/100/fdinfo", "/proc/101/fd", "/proc/101/fdinfo",
        "/proc/102/fd", "/proc/102/fdinfo", NULL,
    };
    static const char *root;
    char rel[64], path[512];

    if (root)
        return root;
    root = fuzz_tree(dirs);
    for (int pid = 100; pid < 100 + NPROCS; pid++) {
        snprintf(rel, sizeof(rel), "/proc/%d/comm", pid);
        fuzz_put(root, rel, "app\n", 4);
        for (int fd = 3; fd < 3 + NFDS; fd++) {
            snprintf(path, sizeof(path), "%s/proc/%d/fd/%d", root, pid, fd);
            if (symlink(fd == 5 ? "/dev/null" : "/dev/dri/renderD128", path) != 0)
                abort();
        }
    }
    return root;
}

static void write_fdinfo(const char *root, int pid, int fd, const struct piece *pc)
{
    char rel[64];

    snprintf(rel, sizeof(rel), "/proc/%d/fdinfo/%d", pid, fd);
    fuzz_put(root, rel, pc->p, pc->n);
}

static void parse_alone(const uint8_t *data, size_t size)
{
    struct gt_fdinfo_client c;
    char *text = malloc(size + 1), container[48];
    unsigned uid;
    uint64_t ns;

    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    gt_fdinfo_parse(text, &c);
    gt_fdinfo_container(text, container, sizeof(container));
    if (!memchr(container, '\0', sizeof(container)))
        abort();
    gt_gpu_work_parse(text, &uid, &ns);
    free(text);
}

static void check_clients(const struct gt_fdinfo *f)
{
    const struct gt_fdinfo_client *const *cl;
    size_t n = gt_fdinfo_clients(f, &cl);

    for (size_t i = 0; i < n; i++)
        if (cl[i]->nengines < 0 || cl[i]->nengines > GT_FDINFO_ENGINES ||
            !memchr(cl[i]->driver, '\0', sizeof(cl[i]->driver)) ||
            !memchr(cl[i]->comm, '\0', sizeof(cl[i]->comm)))
            abort();
    gt_fdinfo_profiling_off(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct piece pc[NPROCS * NFDS * ROUNDS];
    const char *root = tree();
    struct gt_sys sys = *gt_sys_real();
    struct gt_fdinfo *f;
    size_t np;
    uint64_t now = 1000000000ull;

    parse_alone(data, size);
    np = split(data, size, pc, sizeof(pc) / sizeof(pc[0]));
    sys.root = root;
    f = gt_fdinfo_new(&sys, 2);
    if (!f)
        abort();
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < NPROCS * NFDS; i++)
            write_fdinfo(root, 100 + i / NFDS, 3 + i % NFDS,
                      &pc[((size_t)r * NPROCS * NFDS + (size_t)i) % np]);
        /* The clock steps back on the last round too. */
        now = r == ROUNDS - 1 ? now - 500000000ull : now + 1000000000ull;
        gt_fdinfo_update(f, now, r == 0);
        check_clients(f);
    }
    gt_fdinfo_free(f);
    return 0;
}
