/* The Processes view as a person uses it: the real binary in tmux with
 * --proc-root on a fake /proc, P to open it, o to change the sort, and
 * processes appearing and exiting while it runs; each driver's profiling
 * advice, engine time past 100 %, containers, APU memory, and a tree with
 * no processes at all. fdinfo texts follow each driver's show_fdinfo
 * (panfrost_drv.c, panthor_drv.c, amdgpu_fdinfo.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_proc.h"
#include "fakes/tmux.h"

#define WAIT_MS 8000         /* a bound for a slow machine, not a timing claim */

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
    /* two GPUs' clients: a DEVICE column (drm-pdev; panfrost prints none) */
    expect(&t, "4242  glmark2         -            panfrost", WAIT_MS);
    expect(&t, "777  zgame           0000:c3:00.0 amdgpu", WAIT_MS);
    expect(&t, "GPU%\u25bc", WAIT_MS);            /* the sort column marked */
    /* RES: drm-resident-memory 3072 KiB; amdgpu's drm-memory-vram + gtt */
    expect(&t, "3.0M", WAIT_MS);
    expect(&t, "2.0M", WAIT_MS);
    /* no section tab highlighted (ST_TAB is bold reverse) under the view:
     * only its own, the Processes tab at the end (issue 43 item 10) */
    s = tmux_capture_styled(&t);
    {
        char *l1 = strchr(s, '\n'), *l2 = l1 ? strchr(l1 + 1, '\n') : NULL, *pt, *last;
        cr_assert_not_null(l2);
        *l2 = '\0';
        pt = strstr(l1, "P Procs");
        cr_assert_not_null(pt, "no Processes tab: %s", l1);
        cr_assert(strstr(pt - 12 > l1 ? pt - 12 : l1, "7m"), "the Processes tab not current: %s",
                  l1);
        /* the sections' tabs end with the last one's label, "i Config" */
        last = strstr(l1, "Config");
        cr_assert_not_null(last, "%s", l1);
        last[6] = '\0';
        cr_assert_null(strstr(l1, "[7m"), "a tab still highlighted: %s", l1);
        cr_assert_null(strstr(l1, ";7m"), "a tab still highlighted: %s", l1);
    }
    free(s);
    /* Equal use: by pid, so zgame (777) comes first; by name, glmark2. */
    s = wait_for(&t, "zgame", WAIT_MS);
    cr_assert_lt(strstr(s, "zgame") - s, strstr(s, "glmark2") - s, "%s", s);
    free(s);
    tmux_literal(&t, "o");
    expect(&t, "sorted by memory", WAIT_MS);
    expect(&t, "RES\u25bc", WAIT_MS);
    s = wait_for(&t, "sorted by memory", WAIT_MS);
    cr_assert_lt(strstr(s, "glmark2") - s, strstr(s, "zgame") - s, "3 MiB before 2 MiB:\n%s", s);
    free(s);
    /* A process starting is found at the next update (its pid is the last
     * one /proc/loadavg names); one exiting goes at the next re-read. */
    fproc_add_process(p, 5000, "late");
    fproc_add_fd(p, 5000, 3, "/dev/dri/renderD128",
                 "drm-driver:\tpanfrost\ndrm-client-id:\t13\ndrm-engine-fragment:\t0 ns\n");
    expect(&t, "Processes: 3 GPU clients", WAIT_MS);
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
    /* panthor with 'profiling' at 1 (a mask: bit 0 cycles, bit 1 time):
     * cycles and clocks but no drm-engine-panthor (panthor_drv.c) */
    fproc_add_process(p, 301, "vkmark");
    fproc_add_fd(p, 301, 4, "/dev/dri/renderD129",
                 "drm-driver:\tpanthor\ndrm-client-id:\t3\ndrm-cycles-panthor:\t90000\n"
                 "drm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t500000000 Hz\n"
                 "drm-total-memory:\t64 KiB\n");
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "panfrost prints no engine time", WAIT_MS);
    expect(&t, "echo 1 | sudo tee /sys/bus/platform/drivers/panfrost/*/profiling", WAIT_MS);
    expect(&t, "panthor prints cycles but no engine time", WAIT_MS);
    expect(&t, "echo 3 | sudo tee /sys/bus/platform/drivers/panthor/*/profiling", WAIT_MS);
    expect(&t, "kmscube", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

static void amdgpu_compute(struct fake_proc *p, unsigned long long ns)
{
    char text[512];

    snprintf(text, sizeof(text),
             "pasid:\t32771\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\n"
             "drm-client-id:\t8\ndrm-memory-vram:\t1024 KiB\ndrm-memory-gtt: \t0 KiB\n"
             "drm-memory-cpu: \t0 KiB\ndrm-engine-compute:\t%llu ns\n", ns);
    fproc_add_fd(p, 600, 5, "/dev/dri/renderD128", text);
}

/* amdgpu sums its rings' and contexts' time (amdgpu_ctx_mgr_usage): 100 s
 * of compute within about a second is shown as >100 % with why, never as
 * a figure in the thousands. */
Test(tui_processes, engine_time_past_capacity_is_shown_as_such, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;

    fproc_add_process(p, 600, "rocm-job");
    amdgpu_compute(p, 1000000000ull);
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "rocm-job", WAIT_MS);
    amdgpu_compute(p, 101000000000ull);
    expect(&t, ">100%", WAIT_MS);
    expect(&t, "compute >100%", WAIT_MS);
    expect(&t, ">100%: the driver counted more engine time than passed", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

/* A Strix Halo style APU (amdgpu_fdinfo.c since 6.10: drm-total/shared/
 * resident per placement, then the legacy aliases): VRAM and GTT columns;
 * PRIV leaves out the GTT shared with the compositor. And each process's
 * container or service from /proc/PID/cgroup, sortable. */
Test(tui_processes, apu_memory_columns_and_containers, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    char *s;

    fproc_add_process(p, 700, "llama-server");
    fproc_add_fd(p, 700, 9, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t70\n"
                 "drm-total-vram:\t512 MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t512 MiB\n"
                 "drm-total-gtt:\t6144 MiB\ndrm-shared-gtt:\t1024 MiB\n"
                 "drm-resident-gtt:\t6144 MiB\n"
                 "drm-memory-vram:\t524288 KiB\ndrm-memory-gtt: \t6291456 KiB\n"
                 "drm-engine-compute:\t0 ns\n");
    fproc_write(p, "/proc/700/cgroup",
                "0::/system.slice/docker-3f1c0a2b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7"
                "b6c5d4e3f2a.scope\n");
    fproc_add_process(p, 710, "kwin_wayland");
    fproc_add_fd(p, 710, 3, "/dev/dri/renderD128",
                 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c3:00.0\ndrm-client-id:\t71\n"
                 "drm-total-vram:\t64 MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t64 MiB\n"
                 "drm-total-gtt:\t1024 MiB\ndrm-shared-gtt:\t1024 MiB\n"
                 "drm-resident-gtt:\t1024 MiB\ndrm-engine-gfx:\t0 ns\n");
    fproc_write(p, "/proc/710/cgroup",
                "0::/user.slice/user-1000.slice/user@1000.service/session.slice/"
                "plasma-kwin_wayland.service\n");
    start(&t, p);
    tmux_literal(&t, "P");
    /* RES 512 + 6144 MiB = 6.5G; PRIV 512 + 5120 MiB = 5.5G */
    expect(&t, "CONTAINER", WAIT_MS);
    expect(&t, "VRAM    GTT", WAIT_MS);
    expect(&t, "llama-server    docker:3f1c0a2b9d8e", WAIT_MS);
    expect(&t, "6.5G   5.5G 512.0M   6.0G", WAIT_MS);
    /* the compositor's GTT is all shared: PRIV is its VRAM alone */
    expect(&t, "kwin_wayland    plasma-kwin_wayland.", WAIT_MS);
    expect(&t, "1.1G  64.0M  64.0M   1.0G", WAIT_MS);
    tmux_literal(&t, "oooo");
    expect(&t, "sorted by container", WAIT_MS);
    s = wait_for(&t, "sorted by container", WAIT_MS);
    cr_assert_lt(strstr(s, "llama-server") - s, strstr(s, "kwin_wayland") - s,
                 "docker:... sorts before plasma-...:\n%s", s);
    free(s);
    tmux_stop(&t);
    fproc_free(p);
}

/* --proc-root at a directory with no pid directories (a typo, a
 * container's empty /proc) says so instead of "no process has a GPU". */
Test(tui_processes, a_proc_root_without_processes_is_named, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    char want[256];

    start(&t, p);
    tmux_literal(&t, "P");
    snprintf(want, sizeof(want), "no process directories below %s/proc", fproc_root(p));
    expect(&t, want, WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

/* A phone's Mali runs Arm's kbase (/dev/mali0), which prints no fdinfo:
 * the empty list says why. */
Test(tui_processes, kbase_prints_no_fdinfo_and_the_view_says_so, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;

    fproc_add_process(p, 1, "init");
    fproc_write(p, "/dev/mali0", "");
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "no process has a GPU open", WAIT_MS);
    expect(&t, "driven by Arm's kbase", WAIT_MS);
    expect(&t, "GPU time per app (power/gpu_work_period): no tracefs", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

/* Where tracefs is readable (root), kbase's power/gpu_work_period events
 * give GPU time per app uid (TP_printk of the tracepoint): one row a uid,
 * named as Android names app uids. */
Test(tui_processes, kbase_gpu_time_per_app_uid, .timeout = 60)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    char path[512];
    FILE *f;

    fproc_add_process(p, 1, "init");
    fproc_write(p, "/dev/mali0", "");
    fproc_write(p, "/sys/kernel/tracing/events/power/gpu_work_period/format", "name: x\n");
    fproc_write(p, "/sys/kernel/tracing/instances/gputop/events/power/gpu_work_period/enable",
                "0\n");
    fproc_write(p, "/sys/kernel/tracing/instances/gputop/trace_pipe", "");
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "no process has a GPU open", WAIT_MS);
    snprintf(path, sizeof(path), "%s/sys/kernel/tracing/instances/gputop/trace_pipe",
             fproc_root(p));
    f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("   android.hwui-4321  [003] ..... 81234.567890: gpu_work_period: gpu_id=0 "
          "uid=10123 start_time_ns=81233567890000 end_time_ns=81234567890000 "
          "total_active_duration_ns=400000000\n", f);
    fclose(f);
    expect(&t, "-  u0_a123         kbase", WAIT_MS);
    expect(&t, "gpu_work_period", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

/* Issue 43 item 15: the whole command line (comm is the kernel's 15
 * characters: "glmark2-es2-way"), sorting by any column (o goes on past
 * the five it had, to driver and command), and a filter ('/'). */
Test(tui_processes, whole_command_lines_any_sort_and_a_filter, .timeout = 120)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;
    char *s;
    int i;

    cr_assert_not_null(p);
    fproc_add_process(p, 4242, "glmark2-es2-way");
    fproc_set_cmdline(p, 4242, (const char *const[]){ "glmark2-es2-wayland", "--fullscreen",
                                                      "-b", "build", NULL });
    fproc_add_fd(p, 4242, 5, "/dev/dri/renderD128", glmark_fdinfo);
    fproc_add_process(p, 777, "zgame");
    fproc_add_fd(p, 777, 9, "/dev/dri/renderD129", amd_fdinfo);
    start(&t, p);
    tmux_resize(&t, 200, 24);
    tmux_literal(&t, "P");
    expect(&t, "COMMAND", WAIT_MS);
    expect(&t, "glmark2-es2-wayland --fullscreen -b build", WAIT_MS);
    for (i = 0; i < 9; i++)                      /* GPU%, memory, ..., driver */
        tmux_literal(&t, "o");
    expect(&t, "sorted by driver", WAIT_MS);
    tmux_literal(&t, "o");
    expect(&t, "sorted by command", WAIT_MS);
    tmux_literal(&t, "/");
    tmux_literal(&t, "zga");
    s = wait_for(&t, "1 of 2 GPU clients match 'zga'", WAIT_MS);
    cr_expect_null(strstr(s, "glmark2-es2-wayland"), "filtered out, yet shown:\n%s", s);
    free(s);
    tmux_keys(&t, "Escape");
    expect(&t, "2 GPU clients", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}

/* Issue 43 item 15: the arrows select a row, which keeps its place by pid,
 * and the line above the key hints shows that row's GPU% history. */
Test(tui_processes, a_selected_rows_history, .timeout = 120)
{
    struct fake_proc *p = fproc_new();
    struct tmux t;

    cr_assert_not_null(p);
    fproc_add_process(p, 4242, "glmark2");
    fproc_add_fd(p, 4242, 5, "/dev/dri/renderD128", glmark_fdinfo);
    fproc_add_process(p, 777, "zgame");
    fproc_add_fd(p, 777, 9, "/dev/dri/renderD129", amd_fdinfo);
    start(&t, p);
    tmux_literal(&t, "P");
    expect(&t, "2 GPU clients", WAIT_MS);
    /* equal use: by pid, so 777 is the first row, selected at first */
    expect(&t, "pid 777 zgame: GPU%", WAIT_MS);
    tmux_keys(&t, "Down");
    expect(&t, "pid 4242 glmark2: GPU%", WAIT_MS);
    expect(&t, "min 0.0 max 0.0", WAIT_MS);
    tmux_stop(&t);
    fproc_free(p);
}
