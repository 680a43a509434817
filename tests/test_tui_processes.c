/* The Processes view as a person uses it: the real binary in tmux with
 * --proc-root on a fake /proc, P to open it, o to change the sort, and
 * processes appearing and exiting while it runs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_proc.h"
#include "fakes/tmux.h"

#define WAIT_MS 8000
#define WALK_WAIT_MS 30000   /* new processes show at the next full walk (every 5 s) */

static const char glmark_fdinfo[] =
    "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t512\n"
    "drm-driver:\tpanfrost\ndrm-client-id:\t12\n"
    "drm-engine-fragment:\t0 ns\ndrm-cycles-fragment:\t0\n"
    "drm-maxfreq-fragment:\t800000000 Hz\n"
    "drm-engine-vertex-tiler:\t0 ns\n"
    "drm-total-memory:\t3072 KiB\ndrm-resident-memory:\t3072 KiB\n";

static const char amd_fdinfo[] =
    "drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\n"
    "drm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t1024 KiB\n"
    "drm-engine-gfx:\t0 ns\ndrm-engine-compute:\t0 ns\n";

static char *wait_for(struct tmux *t, const char *text, int ms)
{
    int found;
    char *s = tmux_wait_for(t, text, ms, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    return s;
}

static void expect(struct tmux *t, const char *text, int ms)
{
    free(wait_for(t, text, ms));
}

static void start(struct tmux *t, struct fake_proc *p)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu --proc-root %s",
             gputop_bin(), fproc_root(p));
    cr_assert_eq(tmux_start(t, 100, 24, "", cmd), 0, "tmux did not start");
    expect(t, "gputop", WAIT_MS);
}

Test(tui_processes, p_lists_gpu_clients_sorted_and_follows_them, .timeout = 120)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    char *s;

    cr_assert_not_null(p);
    fproc_add_process(p, 4242, "glmark2");
    fproc_add_fd(p, 4242, 0, "/dev/null", "pos:\t0\nflags:\t02\n");
    fproc_add_fd(p, 4242, 5, "/dev/dri/renderD128", glmark_fdinfo);
    fproc_add_fd(p, 4242, 6, "/dev/dri/renderD128", glmark_fdinfo);   /* dup */
    fproc_add_process(p, 777, "zgame");
    fproc_add_fd(p, 777, 9, "/dev/dri/renderD129", amd_fdinfo);
    fproc_add_process(p, 99, "bash");
    fproc_add_fd(p, 99, 1, "/dev/pts/0", "pos:\t0\nflags:\t02\n");
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "Processes: 2 GPU clients, sorted by GPU%", WAIT_MS);
    expect(&t, "4242  glmark2         panfrost", WAIT_MS);
    expect(&t, "3.0M", WAIT_MS);
    expect(&t, "777  zgame           amdgpu", WAIT_MS);
    /* Equal use: by pid, so zgame (777) comes first; by name, glmark2. */
    s = wait_for(&t, "zgame", WAIT_MS);
    cr_assert_lt(strstr(s, "zgame") - s, strstr(s, "glmark2") - s, "%s", s);
    free(s);
    tmux_literal(&t, "o");
    expect(&t, "sorted by memory", WAIT_MS);
    s = wait_for(&t, "sorted by memory", WAIT_MS);
    cr_assert_lt(strstr(s, "glmark2") - s, strstr(s, "zgame") - s, "3 MiB before 2 MiB:\n%s", s);
    free(s);
    /* A process starting is found by the next walk; one exiting goes at
     * the next re-read. */
    fproc_add_process(p, 5000, "late");
    fproc_add_fd(p, 5000, 3, "/dev/dri/renderD128",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t13\ndrm-engine-fragment:\t0 ns\n");
    expect(&t, "Processes: 3 GPU clients", WALK_WAIT_MS);
    fproc_exit(p, 4242);
    expect(&t, "Processes: 2 GPU clients", WAIT_MS);
    tmux_literal(&t, "P");
    expect(&t, "GPU usage", WAIT_MS);
    tmux_literal(&t, "P");
    expect(&t, "Processes: 2 GPU clients", WAIT_MS);
    tmux_literal(&t, "3");                       /* a section key leaves it too */
    expect(&t, "Geometry usage", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

Test(tui_processes, says_how_to_turn_panfrost_profiling_on, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;

    fproc_add_process(p, 300, "kmscube");
    fproc_add_fd(p, 300, 4, "/dev/dri/renderD128",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t2\n"
                 "drm-maxfreq-fragment:\t800000000 Hz\ndrm-total-memory:\t64 KiB\n");
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "panfrost/panthor print no engine time", WAIT_MS);
    expect(&t, "echo 1 | sudo tee /sys/bus/platform/drivers/{panfrost,panthor}/*/profiling",
           WAIT_MS);
    expect(&t, "kmscube", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}
