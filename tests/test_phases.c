/* The phase timers behind bench/phase_cost.sh (include/gputop/phase.h):
 * the bench's build of gputop times every phase of the dashboard's
 * wake-ups, and gputop itself has none of them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000

static const char *phases_bin(void)
{
    const char *b = getenv("GPUTOP_PHASES_BIN");

    return b && *b ? b : "build/native/bench/gputop-phases";
}

/* A path of a file that does not exist yet, for gputop to write. */
static void fresh_path(char *path)
{
    int fd = mkstemp(path);

    cr_assert_geq(fd, 0, "%s", path);
    close(fd);
    unlink(path);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* Waits until path exists and is not empty (the timers are written at
 * exit); 1 when it does. */
static int wait_file(const char *path, int timeout_ms)
{
    FILE *f;
    long size = 0;

    for (; timeout_ms > 0; timeout_ms -= 50) {
        f = fopen(path, "r");
        if (f) {
            fseek(f, 0, SEEK_END);
            size = ftell(f);
            fclose(f);
            if (size > 0)
                return 1;
        }
        sleep_ms(50);
    }
    return 0;
}

/* From the file's line "name count d1 d2 ...": the count, and the
 * smallest duration in *min_ns (0 when there are none); -1 when the
 * phase is not listed. */
static long phase_count(const char *path, const char *name, unsigned long *min_ns)
{
    FILE *f = fopen(path, "r");
    char word[32];
    long n = -1, i;
    unsigned long d;

    cr_assert_not_null(f, "%s", path);
    *min_ns = 0;
    while (fscanf(f, "%31s %ld", word, &n) == 2) {
        int want = strcmp(word, name) == 0;
        for (i = 0; i < n; i++) {
            cr_assert_eq(fscanf(f, "%lu", &d), 1, "%s: %s has fewer than %ld durations", path,
                         word, n);
            if (want && (i == 0 || d < *min_ns))
                *min_ns = d;
        }
        if (want) {
            fclose(f);
            return n;
        }
        n = -1;
    }
    fclose(f);
    return -1;
}

/* Runs bench's build of the dashboard for 1.5 s with `env` (variables
 * for its environment besides GPUTOP_PHASES) and quits it; path then holds
 * its timings. */
static void run_dashboard(char *path, const char *env)
{
    char vars[256], cmd[1024];
    struct tmux t;
    int found;
    char *s;

    fresh_path(path);
    snprintf(vars, sizeof(vars), "GPUTOP_PHASES=%s %s", path, env);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu --interval 100 --refresh 250",
             phases_bin());
    cr_assert_eq(tmux_start(&t, 80, 24, vars, cmd), 0, "tmux did not start");
    s = tmux_wait_for(&t, "GPU usage", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear (%s):\n%s", phases_bin(), s);
    free(s);
    sleep_ms(1500);
    tmux_literal(&t, "q");
    cr_assert(wait_file(path, WAIT_MS), "no phase timings in %s after q", path);
    tmux_stop(&t);
}

struct expected {
    const char *name;
    long least;
};

/* Each listed line has at least `least` records, none of 0 ns. */
static void expect_records(const char *path, const struct expected *want, size_t n)
{
    unsigned long min_ns;
    size_t i;

    for (i = 0; i < n; i++) {
        long got = phase_count(path, want[i].name, &min_ns);
        cr_expect_geq(got, want[i].least, "%s: %ld records, %ld expected at least", want[i].name,
                      got, want[i].least);
        /* A clock read around real work cannot give 0 ns. */
        if (got > 0)
            cr_expect_gt(min_ns, 0, "%s: a record of 0 ns", want[i].name);
    }
}

Test(phases, the_bench_build_times_every_phase_of_the_dashboard, .timeout = 60)
{
    static const struct expected want[] = {
        /* 1.5 s at 10 Hz sampling and 4 Hz refresh; the display is woken
         * for a refresh, and the last frame is drawn as q is read. */
        { "sample", 8 }, { "publish", 8 }, { "wake", 2 },  { "take", 3 },
        { "compose", 3 }, { "render", 3 },  { "write", 3 },
    };
    char path[] = "/tmp/gputop-phases-XXXXXX";
    unsigned long min_ns;

    run_dashboard(path, "");
    expect_records(path, want, sizeof(want) / sizeof(want[0]));
    /* Not asked for: the CPU clock is not read, so the phases are timed
     * without its system calls. */
    cr_expect_eq(phase_count(path, "sampler-awake", &min_ns), -1,
                 "wake-up CPU times logged without GPUTOP_PHASES_CPU");
    unlink(path);
}

Test(phases, asked_for_it_logs_each_wake_ups_cpu_time_awake_and_asleep, .timeout = 60)
{
    static const struct expected want[] = {
        { "sampler-awake", 8 }, { "sampler-asleep", 8 },
        { "display-awake", 3 }, { "display-asleep", 3 },
    };
    char path[] = "/tmp/gputop-phases-XXXXXX";
    unsigned long min_ns;
    long awake, asleep;

    run_dashboard(path, "GPUTOP_PHASES_CPU=1");
    expect_records(path, want, sizeof(want) / sizeof(want[0]));
    /* The marks alternate, so a thread's stretches awake and asleep
     * differ by one at most (the first mark is the first sleep's). */
    awake = phase_count(path, "sampler-awake", &min_ns);
    asleep = phase_count(path, "sampler-asleep", &min_ns);
    cr_expect(labs(awake - asleep) <= 1, "sampler: %ld stretches awake, %ld asleep", awake, asleep);
    awake = phase_count(path, "display-awake", &min_ns);
    asleep = phase_count(path, "display-asleep", &min_ns);
    cr_expect(labs(awake - asleep) <= 1, "display: %ld stretches awake, %ld asleep", awake, asleep);
    unlink(path);
}

Test(phases, gputop_itself_has_no_timers, .timeout = 30)
{
    char path[] = "/tmp/gputop-phases-XXXXXX", cmd[1024];
    FILE *f;

    fresh_path(path);
    /* Batch output for three samples, with the variable the bench build
     * writes its timings to. */
    snprintf(cmd, sizeof(cmd),
             "GPUTOP_PHASES=%s %s --source sim:mali-t8xx --no-cpu --batch -i 50 -n 3 >/dev/null 2>&1",
             path, gputop_bin());
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    f = fopen(path, "r");
    cr_assert_null(f, "gputop wrote phase timings to %s", path);
}
