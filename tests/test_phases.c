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

Test(phases, the_bench_build_times_every_phase_of_the_dashboard, .timeout = 60)
{
    static const struct { const char *name; long least; } want[] = {
        /* 1.5 s at 10 Hz sampling and 4 Hz refresh; the display is woken
         * for a refresh, and the last frame is drawn as q is read. */
        { "sample", 8 }, { "publish", 8 }, { "wake", 2 },  { "take", 3 },
        { "compose", 3 }, { "render", 3 },  { "write", 3 },
    };
    char path[] = "/tmp/gputop-phases-XXXXXX", env[64], cmd[1024];
    struct tmux t;
    unsigned long min_ns;
    size_t i;
    int found;
    char *s;

    fresh_path(path);
    snprintf(env, sizeof(env), "GPUTOP_PHASES=%s", path);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu --interval 100 --refresh 250",
             phases_bin());
    cr_assert_eq(tmux_start(&t, 80, 24, env, cmd), 0, "tmux did not start");
    s = tmux_wait_for(&t, "GPU usage", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear (%s):\n%s", phases_bin(), s);
    free(s);
    sleep_ms(1500);
    tmux_literal(&t, "q");
    cr_assert(wait_file(path, WAIT_MS), "no phase timings in %s after q", path);
    tmux_stop(&t);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        long n = phase_count(path, want[i].name, &min_ns);
        cr_expect_geq(n, want[i].least, "phase %s: %ld calls timed, %ld expected at least",
                      want[i].name, n, want[i].least);
        /* A clock read around real work cannot give 0 ns. */
        if (n > 0)
            cr_expect_gt(min_ns, 0, "phase %s: a duration of 0 ns", want[i].name);
    }
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
