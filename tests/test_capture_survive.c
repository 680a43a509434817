/* Captures survive whatever stops the recording: gputop --record killed
 * with SIGKILL at random points, the file-size limit reached mid-run (disk
 * full), a target that cannot be written. The file must always read back
 * up to its last complete record, and the user must be told. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fakes/loopback.h"
#include "gputop/capture.h"

#define KILL_TRIALS 200

static const char *bin(void)
{
    const char *b = getenv("GPUTOP_BIN");
    return b ? b : "./gputop";
}

static void tmp_path(char *buf, size_t len, const char *what)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/gputop-survive-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(),
             what);
}

/* Starts gputop recording to path from the sim at 1 ms; stderr to errpath.
 * fsize_limit > 0 sets RLIMIT_FSIZE (bytes) in the child. */
static pid_t record(const char *path, const char *errpath, rlim_t fsize_limit, const char *dur)
{
    pid_t pid = fork();

    cr_assert_neq(pid, -1);
    if (pid)
        return pid;
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_WRONLY);
    if (fd < 0 || null < 0)
        _exit(126);
    dup2(null, 1);
    dup2(fd, 2);
    if (fsize_limit) {
        struct rlimit rl = { fsize_limit, fsize_limit };
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    execl(bin(), bin(), "--source", "sim", "--batch", "--interval", "1ms", "--duration", dur,
          "--record", path, (char *)NULL);
    _exit(127);
}

/* Reads the whole capture: the number of complete records, and the last
 * gt_capture_read result (1 clean end, 2 cut short); -1 when it did not
 * open (msg says why). Corrupt records fail the test. */
static long read_back(const char *path, int *last, char *msg, size_t len)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *r;
    struct gt_diag d;
    long n = 0;
    int rc;

    memset(&info, 0, sizeof(info));
    gt_catalog_init(&cat);
    gt_diag_clear(&d);
    r = gt_capture_open(path, &info, &cat, &d);
    if (!r) {
        snprintf(msg, len, "%s", d.msg);
        gt_catalog_free(&cat);
        return -1;
    }
    cr_assert_eq(gt_snapshot_init(&s, cat.nslots), 0);
    while ((rc = gt_capture_read(r, &s, &d)) == 0)
        n++;
    cr_assert_neq(rc, -1, "%s: corrupt after %ld records: %s", path, n, d.msg);
    *last = rc;
    snprintf(msg, len, "%s", d.msg);
    gt_snapshot_free(&s);
    gt_capture_close(r);
    gt_catalog_free(&cat);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[4096];
    size_t n;

    cr_assert_not_null(f, "%s", path);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Polls (1 ms steps, up to 20 s) until path holds bytes: gputop is
 * recording. No time is asserted; a slow start (sanitizers) just waits. */
static void wait_for_bytes(const char *path, pid_t pid)
{
    struct timespec ms = { 0, 1000000 };
    struct stat st;

    for (int i = 0; i < 20000; i++) {
        if (stat(path, &st) == 0 && st.st_size > 0)
            return;
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        nanosleep(&ms, NULL);
    }
}

Test(capture_survive, kill_9_at_random_points, .timeout = 900)
{
    char path[256], errpath[256], msg[GT_DIAG_MSG];
    unsigned seed = 18;
    int opened = 0, cut = 0;

    tmp_path(path, sizeof(path), "kill.gtcap");
    tmp_path(errpath, sizeof(errpath), "kill.err");
    for (int t = 0; t < KILL_TRIALS; t++) {
        int last = 0, status;
        /* 0..40 ms after the file appears (the header, the first records,
         * mid-run); every tenth trial counts from exec instead, so some
         * kills land before or inside the header. */
        struct timespec ts = { 0, (long)(rand_r(&seed) % 40000) * 1000 };
        unlink(path);
        pid_t pid = record(path, errpath, 0, "10s");

        if (t % 10)
            wait_for_bytes(path, pid);
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        long n = read_back(path, &last, msg, sizeof(msg));
        if (n < 0) {
            /* Killed before the header was whole: the reader says so. */
            cr_assert(msg[0], "trial %d: no reason given", t);
            continue;
        }
        opened++;
        cut += last == 2;
    }
    cr_log_info("%d trials: %d captures opened, %d cut inside a record", KILL_TRIALS, opened,
                cut);
    cr_assert_gt(opened, 0, "no kill came after the header");
    unlink(path);
    unlink(errpath);
}

/* Issue 44 item 3: a real --record run killed with SIGKILL. Its records
 * are written whole, so the cut nearly always falls between two of them,
 * and only the missing end record tells; the replay says so, with how
 * many whole records there are, and fails. */
Test(capture_survive, a_killed_recording_is_reported_on_replay, .timeout = 120)
{
    char path[256], errpath[256], msg[GT_DIAG_MSG], cmd[1024], want[128], out[4096] = "";
    int last = 0, status;
    struct timespec ts = { 0, 300 * 1000000L };
    FILE *p;
    long n;

    tmp_path(path, sizeof(path), "killed.gtcap");
    tmp_path(errpath, sizeof(errpath), "killed.err");
    unlink(path);
    pid_t pid = record(path, errpath, 0, "30s");
    wait_for_bytes(path, pid);
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    n = read_back(path, &last, msg, sizeof(msg));
    cr_assert_gt(n, 0, "%s", msg);
    snprintf(cmd, sizeof(cmd), "%s --source replay:%s,speed=max -b -f csv 2>&1 >/dev/null",
             bin(), path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(msg, sizeof(msg), p))
        strncat(out, msg, sizeof(out) - strlen(out) - 1);
    status = pclose(p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status 0x%x: %s", status, out);
    if (last == 2) {
        cr_assert(strstr(out, "cut short"), "%s", out);
    } else {
        snprintf(want, sizeof(want), "no end record: the recording did not finish");
        cr_assert(strstr(out, path) && strstr(out, want), "%s", out);
        snprintf(want, sizeof(want), "; %ld whole sample records, the last ending at t=", n);
        cr_assert(strstr(out, want), "%s", out);
    }
    unlink(path);
    unlink(errpath);
}

/* Disk full: the file-size limit stops the writes. gputop says so, naming
 * the file, keeps sampling to the end, and exits normally; the capture
 * reads back up to its last complete record. */
Test(capture_survive, file_size_limit_mid_run)
{
    char path[256], errpath[256], msg[GT_DIAG_MSG];
    int status, last = 0;
    pid_t pid;
    long n;

    tmp_path(path, sizeof(path), "full.gtcap");
    tmp_path(errpath, sizeof(errpath), "full.err");
    pid = record(path, errpath, 64 * 1024, "1s");
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "gputop was killed by signal %d, nothing said",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    const char *err = slurp(errpath);
    cr_assert(strstr(err, "gputop:") && strstr(err, path) && strstr(err, strerror(EFBIG)),
              "stderr: %s", err);
    n = read_back(path, &last, msg, sizeof(msg));
    cr_assert_gt(n, 0, "%s", msg);
    unlink(path);
    unlink(errpath);
}

/* A target that cannot be written: refused at once, naming the file. */
Test(capture_survive, unwritable_target)
{
    char errpath[256];
    const char *target = "/sys/kernel/gputop-test.gtcap";
    struct stat st;
    int status;
    pid_t pid;

    if (stat("/sys/kernel", &st) < 0)
        cr_skip_test("no /sys/kernel here");
    tmp_path(errpath, sizeof(errpath), "ro.err");
    pid = record(target, errpath, 0, "1s");
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    const char *err = slurp(errpath);
    cr_assert(strstr(err, "gputop:") && strstr(err, target), "stderr: %s", err);
    unlink(errpath);
}

/* A full disk: /dev/full takes the open and fails every write with
 * ENOSPC. gputop says so, naming the file, and keeps sampling to the end
 * of the run, then exits 1 (the recording was lost). */
Test(capture_survive, disk_full)
{
    char errpath[256];
    int status;
    pid_t pid;

    if (access("/dev/full", W_OK) < 0)
        cr_skip_test("no writable /dev/full here");
    tmp_path(errpath, sizeof(errpath), "devfull.err");
    pid = record("/dev/full", errpath, 0, "200ms");
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "gputop was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cr_assert_eq(WEXITSTATUS(status), 1);
    const char *err = slurp(errpath);
    cr_assert(strstr(err, "gputop:") && strstr(err, "/dev/full") &&
              strstr(err, strerror(ENOSPC)), "stderr: %s", err);
    unlink(errpath);
}

/* ---- a full disk, said when it happens (issue 44 item 4) ---- */

/* The value of the first sample of family name on the page, or -1. */
static double scraped(int port, const char *name)
{
    char key[128], *body, *at;
    double v = -1;
    int status;

    body = loopback_get(port, "/metrics", &status);
    if (!body)
        return -1;
    snprintf(key, sizeof(key), "\n%s", name);
    at = strstr(body, key);
    if (at) {
        at += strlen(key);
        if (*at == '{')
            at = strchr(at, '}');       /* label values hold blanks */
        if (at)
            sscanf(at + (*at == '}'), " %lf", &v);
    }
    free(body);
    return v;
}

/* Runs a long recording (20 s, served on loopback) to path through sh,
 * in wrap (a shell line with %s where the command goes). While it still
 * runs, stderr must already say that the recording stopped, with why,
 * and /metrics must count the error; the sampler's rounds must go on.
 * Then SIGINT ends it, with status 1. */
static void said_while_running(const char *wrap, const char *path, const char *why)
{
    char cmd[512], script[1024];
    struct bg_proc p;
    int port, status;
    double before, now = -1;

    snprintf(cmd, sizeof(cmd), "%s --source sim --batch -i 5ms -d 20s -f csv --record %s "
             "--serve 127.0.0.1:0", bin(), path);
    snprintf(script, sizeof(script), wrap, cmd);
    char *const argv[] = { "/bin/sh", "-c", script, NULL };
    cr_assert_eq(bg_start(&p, argv), 0);
    port = bg_served_port(&p, 20000);
    cr_assert_gt(port, 0, "no address on stderr: %s", p.err);
    cr_assert(bg_wait_err(&p, "recording stopped, sampling goes on\n", 20000),
              "not said within 20 s: %s", p.err);
    cr_assert_eq(waitpid(p.pid, &status, WNOHANG), 0, "said only at exit: %s", p.err);
    cr_assert(strstr(p.err, path) && strstr(p.err, why), "%s", p.err);
    cr_assert_eq(scraped(port, "gputop_capture_errors_total"), 1.0);
    before = scraped(port, "gputop_sampler_samples_total");
    for (int i = 0; i < 200 && (now = scraped(port, "gputop_sampler_samples_total")) <= before; i++)
        usleep(50000);
    cr_assert_gt(now, before, "sampling stopped with the recording");
    status = bg_stop(&p, SIGINT, 20000);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status 0x%x: %s", status, p.err);
}

/* A 64 KiB tmpfs in a mount namespace of its own, where one can be made
 * (root): the real ENOSPC. The mount goes away with the namespace. */
Test(capture_survive, full_tmpfs_is_said_when_it_happens, .timeout = 120)
{
    char dir[256], wrap[512], path[300];

    if (system("unshare -m --propagation private true 2>/dev/null") != 0)
        cr_skip_test("no mount namespace here (needs root); the file-size limit test covers it");
    tmp_path(dir, sizeof(dir), "tinyfs");
    cr_assert(mkdir(dir, 0700) == 0 || errno == EEXIST, "%s", strerror(errno));
    snprintf(path, sizeof(path), "%s/x.gtcap", dir);
    snprintf(wrap, sizeof(wrap), "exec unshare -m --propagation private /bin/sh -c "
             "'mount -t tmpfs -o size=64k tmpfs %s || exit 77; exec %%s'", dir);
    said_while_running(wrap, path, strerror(ENOSPC));
    rmdir(dir);
}

/* The same through the file-size limit (EFBIG), which needs no privilege. */
Test(capture_survive, file_size_limit_is_said_when_it_happens, .timeout = 120)
{
    char path[256];

    tmp_path(path, sizeof(path), "limit.gtcap");
    said_while_running("ulimit -f 128; exec %s", path, strerror(EFBIG));
    unlink(path);
}
