/* --source drm-fdinfo as a person uses it: the real binary on a fake /proc
 * (root=), the dashboard in tmux with the engines named as the driver
 * names them and their bars, the profiling hint in the header, and batch
 * CSV columns named by the engines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_proc.h"
#include "fakes/tmux.h"

#define WAIT_MS 10000

static const char panfrost_fdinfo[] =
    "drm-driver:\tpanfrost\ndrm-client-id:\t12\n"
    "drm-engine-fragment:\t0 ns\ndrm-cycles-fragment:\t0\n"
    "drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t600000000 Hz\n"
    "drm-engine-vertex-tiler:\t0 ns\ndrm-cycles-vertex-tiler:\t0\n"
    "drm-maxfreq-vertex-tiler:\t800000000 Hz\ndrm-curfreq-vertex-tiler:\t600000000 Hz\n"
    "drm-total-memory:\t3072 KiB\n";

static void expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

/* Reads to the end, so that the writer never meets a closed pipe. */
static void drain(FILE *f)
{
    char rest[4096];

    while (fgets(rest, sizeof(rest), f))
        ;
    pclose(f);
}

static void start(struct tmux *t, struct fake_proc *p, const char *driver, int cols)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=%s,root=%s --no-cpu "
             "--no-processes", gputop_bin(), driver, fproc_root(p));
    cr_assert_eq(tmux_start(t, cols, 30, "", cmd), 0, "tmux did not start");
}

Test(tui_fdinfo, engines_named_by_the_driver_with_bars, .timeout = 90)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    int found;
    char *s;

    fproc_add_process(p, 4242, "glmark2");
    fproc_add_fd(p, 4242, 5, "/dev/dri/renderD128", panfrost_fdinfo);
    start(&t, p, "panfrost", 110);
    expect(&t, "GPU engines");
    expect(&t, "fragment busy");
    expect(&t, "vertex-tiler busy");
    expect(&t, "fragment clock");
    expect(&t, "panfrost: 1 client");
    s = tmux_wait_for(&t, "600 MHz", WAIT_MS, &found);
    cr_assert(found, "the clock from drm-curfreq:\n%s", s);
    cr_assert_null(strstr(s, "{hw:"), "placeholders all bound:\n%s", s);
    cr_assert_null(strstr(s, "rcs"), "no other driver's engines:\n%s", s);
    cr_assert_not_null(strstr(s, "%"), "bars with their share:\n%s", s);
    cr_assert_null(strstr(s, "0 cores"), "no shader-core count to show:\n%s", s);
    free(s);
    tmux_stop(&t);
    fproc_free(p);
}

Test(tui_fdinfo, profiling_off_is_named_with_the_command, .timeout = 90)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;

    fproc_write(p, "/sys/bus/platform/drivers/panfrost/ff9a0000.gpu/profiling", "0\n");
    fproc_add_process(p, 300, "kmscube");
    fproc_add_fd(p, 300, 4, "/dev/dri/renderD128",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t2\n"
                 "drm-maxfreq-fragment:\t800000000 Hz\ndrm-total-memory:\t64 KiB\n");
    start(&t, p, "panfrost", 170);   /* room for the header's activity */
    expect(&t, "panfrost: profiling off, no engine time");   /* the header */
    /* the footer's warning, with the command */
    expect(&t, "echo 1 | sudo tee /sys/bus/platform/drivers/panfrost/ff9a0000.gpu/prof");
    tmux_stop(&t);
    fproc_free(p);
}

Test(tui_fdinfo, batch_csv_columns_named_by_the_engines, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    char cmd[1024], line[4096];
    FILE *f;

    fproc_add_process(p, 777, "blender");
    fproc_add_fd(p, 777, 9, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-client-id:\t55\ndrm-pdev:\t0000:c3:00.0\n"
                 "drm-memory-vram:\t1024 KiB\ndrm-engine-gfx:\t0 ns\n"
                 "drm-engine-compute:\t0 ns\n");
    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=amdgpu,root=%s --no-cpu "
             "-i 50 --format csv --count 2", gputop_bin(), fproc_root(p));
    f = popen(cmd, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof(line), f));
    drain(f);
    cr_assert(strstr(line, ",gfx busy [%],compute busy [%],dma busy [%]"), "%s", line);
    cr_assert(strstr(line, "GPU clients [clients]"), "%s", line);
    cr_assert_null(strstr(line, "{hw:"), "%s", line);
    cr_assert_null(strstr(line, "clock"), "amdgpu prints no clocks: %s", line);
    fproc_free(p);
}

/* A capture keeps each counter's hw_name, so a replay names the engines. */
Test(tui_fdinfo, a_replay_knows_the_engine_names, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    char cmd[1024], line[4096], cap[256];
    FILE *f;

    snprintf(cap, sizeof(cap), "%s/run.gtc", fproc_root(p));
    fproc_add_process(p, 50, "sf");
    fproc_add_fd(p, 50, 8, "/dev/dri/renderD128",
                 "drm-driver:\tmsm\ndrm-client-id:\t3\ndrm-engine-gpu:\t0 ns\n"
                 "drm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t587 MHz\n");
    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=msm,root=%s --no-cpu -i 50 "
             "--format csv --count 2 --record %s >/dev/null", gputop_bin(), fproc_root(p), cap);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof(cmd), "%s --source replay:%s,speed=max --format csv", gputop_bin(), cap);
    f = popen(cmd, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof(line), f));
    drain(f);
    cr_assert(strstr(line, ",gpu busy [%],gpu cycles at max clock [%]"), "%s", line);
    fproc_free(p);
}

/* --proc-root, which points the Processes view at another /proc, points
 * drm-fdinfo there too when its spec has no root= of its own. */
Test(tui_fdinfo, proc_root_applies_to_the_source, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    char cmd[1024], line[4096];
    FILE *f;

    fproc_add_process(p, 4242, "glmark2");
    fproc_add_fd(p, 4242, 5, "/dev/dri/renderD128", panfrost_fdinfo);
    snprintf(cmd, sizeof(cmd), "%s --source drm-fdinfo:driver=panfrost --proc-root %s "
             "--no-cpu -i 50 --format csv --count 1 --metrics 'GPU clients'", gputop_bin(),
             fproc_root(p));
    f = popen(cmd, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof(line), f));
    cr_assert_not_null(fgets(line, sizeof(line), f));
    drain(f);
    cr_assert(strstr(line, ",1\n"), "one client below --proc-root: %s", line);
    fproc_free(p);
}
