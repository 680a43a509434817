/* A replay in the dashboard as a person uses it: the real binary in a tmux
 * pane playing a capture the test recorded with the real binary, keys sent
 * with send-keys, the header's "sample k/N" read with capture-pane. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fakes/capture_records.h"
#include "fakes/tmux.h"

#define WAIT_MS 10000

/* Records n samples of the simulated Mali-T830 at a virtual 100 ms each
 * (taken every 10 ms, so it is quick) into a fresh file at path. */
static void record(char *path, size_t len, int n)
{
    const char *dir = getenv("TMPDIR");
    char cmd[1024];
    int fd;

    snprintf(path, len, "%s/gputop-tui-replay-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=100000000 --no-cpu -i 10ms -n %d "
             "--record %s -b > /dev/null", gputop_bin(), n, path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The end record a clean close writes: its 17 bytes (u32 length 8, type
 * 0x80, u64 count, CRC-32) are the file's last. */
#define END_RECORD 17

/* Cuts the end record and then the last 3 bytes: the last sample record
 * is cut short. */
static void damage(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;

    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    fclose(f);
    cr_assert_eq(truncate(path, n - END_RECORD - 3), 0);
}

/* Flips a bit 10 bytes before the end record: inside the last sample
 * record, whose checksum then fails. */
static void flip_last_record(const char *path)
{
    FILE *f = fopen(path, "r+b");
    int c;

    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, -10 - END_RECORD, SEEK_END), 0);
    c = getc(f);
    cr_assert_eq(fseek(f, -10 - END_RECORD, SEEK_END), 0);
    putc(c ^ 1, f);
    cr_assert_eq(fclose(f), 0);
}

/* Keeps exactly n sample records and drops the end record: what a
 * recording killed between two records leaves. */
static void drop_end(const char *path, int n)
{
    struct stat st;

    cr_assert_eq(capture_keep_samples(path, n), 0, "fewer than %d records", n);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(truncate(path, st.st_size - END_RECORD), 0);
}

static void expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

/* A screen's "sample k/N": k, and N in *n; -1 when not shown. */
static long k_of(const char *screen, long *n)
{
    const char *p = strstr(screen, "sample ");
    long k = -1;

    *n = -1;
    if (p && sscanf(p, "sample %ld/%ld", &k, n) < 1)
        k = -1;
    return k;
}

/* The same, read from the pane now. */
static long shown_k(struct tmux *t, long *n)
{
    char *s = tmux_capture(t);
    long k = k_of(s, n);

    free(s);
    return k;
}

/* The shell stays a while after gputop: a pane that dies at once can
 * lose the last line written to it. */
static void start_replay(struct tmux *t, const char *path, const char *opts, const char *extra)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s --source replay:%s%s %s; echo EXIT=$?; sleep 30",
             gputop_bin(), path, opts, extra);
    cr_assert_eq(tmux_start(t, 100, 30, "", cmd), 0, "tmux did not start");
    expect(t, "sample ");
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* Everything but the first line (whose clock ticks). */
static const char *below_header(const char *s)
{
    const char *nl = strchr(s, '\n');

    return nl ? nl + 1 : s;
}

Test(tui_replay, header_shows_the_position_not_a_period, .timeout = 60)
{
    struct tmux t;
    char path[256], *s, *nl;

    record(path, sizeof(path), 100);
    start_replay(&t, path, ",speed=0.1", "");   /* 1 s a record: slow enough to read */
    expect(&t, "playing");
    expect(&t, "sample 1/");
    expect(&t, "t=0.1 s");
    s = tmux_capture(&t);
    nl = strchr(s, '\n');
    if (nl)
        *nl = '\0';
    cr_assert(strstr(s, "replay") && strstr(s, "sample "), "%s", s);
    cr_assert_null(strstr(s, " ms"), "a sampling period in a replay's header: %s", s);
    cr_assert_null(strstr(s, "live"), "%s", s);
    cr_assert_null(strstr(s, "ENDED"), "%s", s);
    free(s);
    tmux_literal(&t, "+");
    expect(&t, "replay speed 0.25");            /* + plays faster (issue 43 item 9) */
    tmux_literal(&t, "h");
    expect(&t, "pause / play the replay");
    expect(&t, "one sample forward / back");
    tmux_stop(&t);
    unlink(path);
}

Test(tui_replay, space_pauses_and_dot_comma_step, .timeout = 60)
{
    struct tmux t;
    char path[256], want[32], *a, *b;
    long k, k2, n;
    int found;

    record(path, sizeof(path), 100);
    start_replay(&t, path, ",speed=0.5", "");   /* 20 s to the end, however slow the test */
    expect(&t, "sample 2/");                  /* it plays */
    tmux_literal(&t, " ");
    a = tmux_wait_for(&t, "paused", WAIT_MS, &found);
    cr_assert(found, "'paused' not on screen:\n%s", a);
    k = k_of(a, &n);
    free(a);
    sleep_ms(1500);                           /* 7 records, were it playing */
    k2 = shown_k(&t, &n);
    /* The sampler reads one record ahead: one read before the pause may
     * still be shown after it (when is up to the machine), none later. */
    cr_assert(k2 == k || k2 == k + 1, "paused at sample %ld, yet sample %ld shown", k, k2);
    /* From a known record: Home while paused shows the first (the one
     * read ahead, if any, dropped) and nothing after it. */
    tmux_keys(&t, "Home");
    snprintf(want, sizeof(want), "sample 1/%ld", n);
    a = tmux_wait_for(&t, want, WAIT_MS, &found);
    cr_assert(found, "'%s' not on screen:\n%s", want, a);
    sleep_ms(1500);
    b = tmux_capture(&t);
    cr_assert_eq(k_of(b, &n), 1, "paused, yet sample 1 became another:\n%s", b);
    cr_assert_str_eq(below_header(a), below_header(b), "paused, yet the screen changed");
    free(a);
    free(b);
    tmux_literal(&t, ".");
    snprintf(want, sizeof(want), "sample 2/%ld", n);
    expect(&t, want);
    tmux_literal(&t, ".");
    snprintf(want, sizeof(want), "sample 3/%ld", n);
    expect(&t, want);
    tmux_literal(&t, ",");
    snprintf(want, sizeof(want), "sample 2/%ld", n);
    expect(&t, want);
    expect(&t, "paused");
    tmux_literal(&t, " ");
    expect(&t, "playing");
    tmux_stop(&t);
    unlink(path);
}

/* A capture read from a pipe has no index: '.' says it cannot step and
 * leaves the replay playing, as the source's own step did (the dashboard
 * now steps from the record shown, by a pause and a seek). */
Test(tui_replay, a_piped_capture_cannot_step_and_plays_on, .timeout = 60)
{
    struct tmux t;
    char path[256], cmd[1024];

    record(path, sizeof(path), 100);
    /* A pipe by name (bash's process substitution): the keys still come
     * from the terminal. */
    snprintf(cmd, sizeof(cmd), "bash -c '%s --source replay:<(cat %s),speed=0.5'; sleep 30",
             gputop_bin(), path);
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0, "tmux did not start");
    expect(&t, "sample 2");
    tmux_literal(&t, ".");
    expect(&t, "cannot be stepped or sought");
    expect(&t, "playing");
    tmux_stop(&t);
    unlink(path);
}

Test(tui_replay, home_end_and_bracket_keys_seek, .timeout = 60)
{
    struct tmux t;
    char path[256], want[32];
    long n;

    record(path, sizeof(path), 50);
    start_replay(&t, path, ",speed=max", "");
    tmux_literal(&t, " ");
    expect(&t, "paused");
    shown_k(&t, &n);
    cr_assert_geq(n, 50);
    tmux_keys(&t, "Home");
    snprintf(want, sizeof(want), "sample 1/%ld", n);
    expect(&t, want);
    tmux_literal(&t, "]");                    /* + 10 % */
    snprintf(want, sizeof(want), "sample %ld/%ld", 1 + n / 10, n);
    expect(&t, want);
    tmux_literal(&t, "]");
    snprintf(want, sizeof(want), "sample %ld/%ld", 1 + 2 * (n / 10), n);
    expect(&t, want);
    tmux_keys(&t, "End");
    snprintf(want, sizeof(want), "sample %ld/%ld", n, n);
    expect(&t, want);
    tmux_literal(&t, "[");                    /* - 10 % */
    snprintf(want, sizeof(want), "sample %ld/%ld", n - n / 10, n);
    expect(&t, want);
    expect(&t, "paused");
    tmux_stop(&t);
    unlink(path);
}

/* speed=max in the dashboard: one record a refresh, never many at once,
 * and no slower than recorded (issue 28): records of 1 s under a 2.5 s
 * refresh come one a second. */
Test(tui_replay, speed_max_shows_the_records_one_by_one, .timeout = 90)
{
    struct tmux t;
    char path[256], cmd[1024];
    long k, last = -1, n, changes = 0;
    int polls;

    record(path, sizeof(path), 1);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=1000000000 --no-cpu -i 10ms -n 50 "
             "--record %s --force -b > /dev/null", gputop_bin(), path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    start_replay(&t, path, ",speed=max", "-r 2500ms");  /* slow, so no refresh is missed */
    for (polls = 0; polls < 1000 && changes < 3; polls++) {
        k = shown_k(&t, &n);
        cr_assert_geq(k, 0, "no position on screen");
        if (last < 0)
            cr_assert_leq(k, 1, "the first screen is at sample %ld", k);
        else if (k != last) {
            cr_assert_eq(k, last + 1, "sample %ld followed by %ld", last, k);
            changes++;
        }
        last = k;
        sleep_ms(50);
    }
    cr_assert_eq(changes, 3, "the replay did not advance");
    tmux_stop(&t);
    unlink(path);
}

Test(tui_replay, a_damaged_capture_says_why_on_screen_and_exits_1, .timeout = 60)
{
    struct tmux t;
    char path[256], want[300];

    record(path, sizeof(path), 100);
    damage(path);
    /* At the recorded pace: speed=max would play it out before "playing"
     * could be read (issue 28). */
    start_replay(&t, path, ",speed=1", "");
    /* Known from the start (the index found it). */
    snprintf(want, sizeof(want), "gputop: %s: cut short", path);
    expect(&t, want);
    expect(&t, "playing");
    tmux_keys(&t, "End");
    expect(&t, "ended: cut short");
    expect(&t, want);
    tmux_literal(&t, "q");
    expect(&t, "EXIT=1");
    tmux_stop(&t);
    unlink(path);
}

/* Quitting before the replay reaches the damage still fails the run. */
Test(tui_replay, a_damaged_capture_exits_1_even_if_quit_early, .timeout = 60)
{
    struct tmux t;
    char path[256], *screen;

    record(path, sizeof(path), 100);
    damage(path);
    start_replay(&t, path, ",speed=0.1", "");   /* 99 records: 99 s to the end */
    expect(&t, "playing");
    screen = tmux_capture(&t);
    cr_assert_null(strstr(screen, "ended"), "%s", screen);
    free(screen);
    tmux_literal(&t, "q");
    expect(&t, "EXIT=1");
    tmux_stop(&t);
    unlink(path);
}

Test(tui_replay, a_clean_end_says_so_and_exits_0, .timeout = 60)
{
    struct tmux t;
    char path[256];

    record(path, sizeof(path), 30);
    start_replay(&t, path, ",speed=max", "");
    tmux_keys(&t, "End");
    expect(&t, "ended: end of capture");
    tmux_literal(&t, " ");                    /* plays again from the start */
    /* At the recorded pace sample 1 shows for 100 ms only: the state says it. */
    expect(&t, "playing");
    tmux_literal(&t, "q");
    expect(&t, "EXIT=0");
    tmux_stop(&t);
    unlink(path);
}

/* Batch output of a replay: all of a damaged capture's good records, the
 * reason on stderr, and a failure status. */
static int batch(const char *path, char *err, size_t len)
{
    char cmd[1024], line[512];
    FILE *p;
    int status;

    snprintf(cmd, sizeof(cmd), "%s --source replay:%s,speed=max -f csv 2>&1 >/dev/null",
             gputop_bin(), path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    err[0] = '\0';
    while (fgets(line, sizeof(line), p))
        strncat(err, line, len - strlen(err) - 1);
    status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(tui_replay, batch_exit_status_says_whether_the_capture_was_whole, .timeout = 60)
{
    char path[256], err[4096], want[300];

    record(path, sizeof(path), 20);
    cr_assert_eq(batch(path, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(err, "");
    damage(path);
    cr_assert_eq(batch(path, err, sizeof(err)), 1, "%s", err);
    snprintf(want, sizeof(want), "gputop: %s: cut short", path);
    cr_assert(strstr(err, want), "%s", err);
    unlink(path);
    record(path, sizeof(path), 20);
    flip_last_record(path);
    cr_assert_eq(batch(path, err, sizeof(err)), 1, "%s", err);
    snprintf(want, sizeof(want), "gputop: %s: corrupt record at byte", path);
    cr_assert(strstr(err, want), "%s", err);
    unlink(path);
}

/* Issue 43 item 9: keys sent in a burst are each one step (ten '.' were
 * one sample on, five ',' one back); PgUp / PgDn page the section as when
 * live ([ ] seek); + and - change the speed while it plays. */
Test(tui_replay, each_key_of_a_burst_is_one_step, .timeout = 60)
{
    struct tmux t;
    char path[256], want[32], *s;
    long n, k;

    record(path, sizeof(path), 50);
    start_replay(&t, path, ",speed=0.5", "");
    tmux_literal(&t, " ");
    expect(&t, "paused");
    tmux_keys(&t, "Home");
    shown_k(&t, &n);
    snprintf(want, sizeof(want), "sample 1/%ld", n);
    expect(&t, want);
    tmux_literal(&t, "..........");
    snprintf(want, sizeof(want), "sample 11/%ld", n);
    expect(&t, want);
    tmux_literal(&t, ",,,,,");
    snprintf(want, sizeof(want), "sample 6/%ld", n);
    expect(&t, want);
    /* PgDn pages: the position stays (paused at 6) */
    tmux_keys(&t, "NPage");
    tmux_keys(&t, "NPage");
    tmux_literal(&t, ".");
    snprintf(want, sizeof(want), "sample 7/%ld", n);
    expect(&t, want);
    s = tmux_capture(&t);
    k = k_of(s, &n);
    cr_expect_eq(k, 7, "PgDn moved the replay:\n%s", s);
    cr_expect(strstr(s, "[ ] seek"), "the footer does not say the seek keys:\n%s", s);
    free(s);
    tmux_literal(&t, " ");
    expect(&t, "playing");
    tmux_literal(&t, "+");
    expect(&t, "replay speed 1");                  /* 0.5 -> 1 */
    tmux_literal(&t, "+");
    expect(&t, "replay speed 2");
    tmux_literal(&t, "-");
    tmux_literal(&t, "-");
    tmux_literal(&t, "-");
    expect(&t, "replay speed 0.25");
    tmux_stop(&t);
    unlink(path);
}

/* Issue 43 item 9: speed=max in the dashboard plays as fast as the screen
 * draws (a record a frame), not at the recorded pace: fifty records of
 * 10 s each reach the end long before the 500 s they were recorded in
 * (the bound is WAIT_MS, for a slow machine). */
Test(tui_replay, speed_max_plays_as_fast_as_it_draws, .timeout = 60)
{
    struct tmux t;
    char path[256], cmd[1024];

    record(path, sizeof(path), 1);
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=10000000000 --no-cpu -i 10ms "
             "-n 50 --record %s --force -b > /dev/null", gputop_bin(), path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    start_replay(&t, path, ",speed=max", "");
    expect(&t, "sample 50/50");
    tmux_stop(&t);
    unlink(path);
}

/* Issue 44 item 3: a recording killed between two records ends with a
 * whole record, so only the missing end record tells. 30 records of a
 * virtual 100 ms: the last ends 3.000 s after the first began. */
Test(tui_replay, a_capture_without_its_end_record_says_so, .timeout = 60)
{
    char path[256], err[4096], want[300];
    struct tmux t;

    record(path, sizeof(path), 30);
    drop_end(path, 30);
    cr_assert_eq(batch(path, err, sizeof(err)), 1, "%s", err);
    snprintf(want, sizeof(want), "gputop: %s: no end record", path);
    cr_assert(strstr(err, want), "%s", err);
    cr_assert(strstr(err, "30 whole sample records, the last ending at t=3.000 s"), "%s", err);
    start_replay(&t, path, ",speed=max", "");
    expect(&t, want);                       /* known from the index, at once */
    tmux_keys(&t, "End");
    expect(&t, "ended: no end record");
    tmux_literal(&t, "q");
    expect(&t, "EXIT=1");
    tmux_stop(&t);
    unlink(path);
}
