/* Threads and signals, through the real binary: only the main thread takes
 * process-wide signals (every worker starts with all of them blocked), so
 * a burst of resizes, suspends and continues never lands a handler on the
 * sampler or the Processes watcher, and SIGTERM ends the dashboard at once
 * rather than at its next refresh. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* The dashboard in a pane, the pane's process being gputop itself. */
static int start_dashboard(struct tmux *t, const char *args)
{
    char cmd[1024], *s;
    int found, pid;

    snprintf(cmd, sizeof(cmd), "exec %s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, 100, 30, "", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "GPU usage", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
    pid = tmux_pane_pid(t);
    cr_assert_gt(pid, 0);
    return pid;
}

/* A thread's blocked-signal mask from /proc (the SigBlk line, in hex). */
static unsigned long long blocked(int pid, const char *tid)
{
    char path[96], line[256];
    unsigned long long mask = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid, tid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "SigBlk: %llx", &mask) == 1)
            break;
    fclose(f);
    return mask;
}

/* A thread's name from /proc (comm), "" when unreadable. */
static void thread_name(int pid, const char *tid, char *name, size_t len)
{
    char path[320];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, tid);
    name[0] = '\0';
    f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(name, (int)len, f))
        name[0] = '\0';
    name[strcspn(name, "\n")] = '\0';
    fclose(f);
}

/* The worker threads of pid (every task but the main one): their ids,
 * up to max of them; returns how many. */
static size_t workers_of(int pid, char ids[][16], size_t max)
{
    char task[64];
    struct dirent *e;
    size_t n = 0;
    DIR *d;

    snprintf(task, sizeof(task), "/proc/%d/task", pid);
    d = opendir(task);
    cr_assert_not_null(d, "%s: %s", task, strerror(errno));
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == pid)
            continue;
        snprintf(ids[n++], sizeof(ids[0]), "%.15s", e->d_name);
    }
    closedir(d);
    return n;
}

static unsigned long long bit(int sig)
{
    return 1ull << (sig - 1);
}

/* The process's state letter from /proc/PID/stat ('T' stopped), 0 gone. */
static char state_of(int pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

Test(threads, workers_block_every_signal_the_main_thread_takes, .timeout = 60)
{
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT, SIGPIPE };
    unsigned long long want = 0, main_mask;
    struct tmux t;
    char task[64], ids[16][16];
    int pid;
    size_t i, w, workers;

    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        want |= bit(sigs[i]);
    /* The sim beside the cpu source, the Processes watcher, and --serve:
     * the sampler, the watcher and the HTTP server are threads. */
    pid = start_dashboard(&t, "--source sim:mali-g720 --serve 127.0.0.1:0 -r 10s");
    sleep_ms(300);
    workers = workers_of(pid, ids, 16);
    for (w = 0; w < workers; w++) {
        cr_expect_eq(blocked(pid, ids[w]) & want, want,
                     "thread %s of gputop does not block SIGINT/TERM/HUP/WINCH/TSTP/CONT/PIPE "
                     "(SigBlk %llx)", ids[w], blocked(pid, ids[w]));
        /* A fault blocked on the thread that raised it kills the process
         * without its crash handler (kernel/signal.c force_sig_info_to_task). */
        cr_expect_eq(blocked(pid, ids[w]) & (bit(SIGBUS) | bit(SIGSEGV) | bit(SIGFPE)), 0,
                     "thread %s blocks a fault signal (SigBlk %llx)", ids[w],
                     blocked(pid, ids[w]));
    }
    snprintf(task, sizeof(task), "%d", pid);
    main_mask = blocked(pid, task);
    cr_expect_eq(main_mask & (bit(SIGINT) | bit(SIGTERM) | bit(SIGWINCH) | bit(SIGTSTP)), 0,
                 "the main thread blocks a signal it handles (SigBlk %llx)", main_mask);
    cr_expect_geq(workers, 3, "sampler, Processes watcher and HTTP server: %zu workers", workers);
    tmux_stop(&t);
}

/* Each worker carries its name, so top -H and ps -T say which costs what
 * (pthread_setname_np writes /proc/PID/task/TID/comm). */
Test(threads, workers_are_named_for_what_they_do, .timeout = 60)
{
    static const char *const want[] = { "gputop-sampler", "gputop-procs", "gputop-serve" };
    char ids[16][16], name[32], seen[256] = "";
    struct tmux t;
    size_t i, w, workers;
    int pid;

    pid = start_dashboard(&t, "--source sim:mali-g720 --serve 127.0.0.1:0 -r 10s");
    sleep_ms(300);
    workers = workers_of(pid, ids, 16);
    for (w = 0; w < workers; w++) {
        thread_name(pid, ids[w], name, sizeof(name));
        strncat(seen, name, sizeof(seen) - strlen(seen) - 2);
        strcat(seen, " ");
    }
    tmux_stop(&t);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        cr_expect(strstr(seen, want[i]) != NULL, "no thread named %s among the workers: %s",
                  want[i], seen);
}

/* Resizes, Ctrl-Z and fg in a burst, then SIGTERM: the dashboard, which
 * refreshes only every 10 s here, is gone within one sampling period
 * (1 s) of the SIGTERM, because the signal interrupts the main thread's
 * wait rather than landing on a worker. */
Test(threads, sigterm_after_a_signal_burst_ends_within_a_sampling_period, .timeout = 90)
{
    struct tmux t;
    double t0, waited;
    int pid, i;
    char st;

    pid = start_dashboard(&t, "--source sim:mali-g720 -i 1s -r 10s");
    for (i = 0; i < 40; i++) {
        kill(pid, SIGWINCH);
        kill(pid, SIGTSTP);
        kill(pid, SIGCONT);
        kill(pid, SIGWINCH);
    }
    /* A suspend handled after the last SIGCONT stops gputop as asked:
     * continue it until it stays running. */
    for (i = 0; i < 50; i++) {
        sleep_ms(100);
        st = state_of(pid);
        cr_assert_neq(st, 0, "gputop died during the burst");
        if (st == 'T') {
            kill(pid, SIGCONT);
            i = 0;
        } else if (i >= 5) {
            break;
        }
    }
    cr_assert(tmux_alive(&t), "gputop ended during the burst");
    t0 = now_s();
    kill(pid, SIGTERM);
    while (tmux_alive(&t) && now_s() - t0 < 15)
        sleep_ms(10);
    waited = now_s() - t0;
    cr_assert(!tmux_alive(&t), "gputop still running 15 s after SIGTERM");
    cr_expect_lt(waited, 1.0, "gputop took %.2f s to end after SIGTERM (sampling period 1 s, "
                 "refresh 10 s)", waited);
    tmux_stop(&t);
}
