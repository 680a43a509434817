/* Hardware left as found: the real binary on each fake kernel (Mali kbase
 * with kinstr_prfcnt and the legacy reader, amdgpu as root, the MIPS CM,
 * panfrost) is stopped at seeded random points — a call through the seam,
 * chosen log-uniformly so that opening and the first samples get their
 * share — by SIGINT, SIGTERM or SIGHUP (the call itself going on or failing
 * with EINTR, as an interrupted blocking call would), by its terminal
 * closing under the dashboard (tmux kill-session), and by its reader going
 * away (gputop -f csv | head -1, --serve scrapers resetting mid-reply).
 * Each time the fake's final state, printed
 * as the process exits, must be what it was before the run. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fakes/tmux.h"

#define TRIALS 30          /* per source and signal */
#define TERM_TRIALS 30     /* per source, half kill-session, half kill-pane */
#define SEED 20261123u

/* A source on its fake, and the final-state line it must print. */
struct hw {
    const char *name;
    const char *bin_env, *bin_default;
    const char *fake_args;     /* before "--" */
    const char *gputop_args;   /* after "--", without -b */
    const char *prefix;        /* the final line starts with it */
    const char *expect[3];     /* and holds each of these */
};

static const struct hw kinstr = {
    "kbase kinstr_prfcnt (G715 CSF)", "GPUTOP_FAKE_BIN", "build/native/tests/gputop-fake",
    "G715 csf 1.20", "--no-cpu -i 10ms", "kbase-final:",
    { "open_fds=0 mapped=0 ", "protocol_errors=0 ", NULL } };
static const struct hw legacy = {
    "kbase legacy reader (T830 JM)", "GPUTOP_FAKE_BIN", "build/native/tests/gputop-fake",
    "T830 jm 11.20", "--no-cpu -i 10ms", "kbase-final:",
    { "open_fds=0 mapped=0 ", "protocol_errors=0 ", NULL } };
static const struct hw amd_gfxoff = {
    "amdgpu counters, GFXOFF held off", "GPUTOP_AMDFAKE_BIN", "build/native/tests/gputop-amdfake",
    "root", "--no-cpu -i 10ms --source amdgpu:polls=2,keepon=gfxoff", "fake-amdgpu:",
    { "0 not restored, 0 GFXOFF requests held, 0 fds open, woken 0 times, stable pstate 0, "
      "0 protocol errors", NULL } };
static const struct hw amd_pstate = {
    "amdgpu counters, stable pstate held", "GPUTOP_AMDFAKE_BIN", "build/native/tests/gputop-amdfake",
    "root", "--no-cpu -i 10ms --source amdgpu:polls=2,keepon=pstate", "fake-amdgpu:",
    { "0 not restored, 0 GFXOFF requests held, 0 fds open, woken 0 times, stable pstate 0, "
      "0 protocol errors", NULL } };
static const struct hw amd_perfclk = {
    "amdgpu counters, perfmon clock ungated", "GPUTOP_AMDFAKE_BIN",
    "build/native/tests/gputop-amdfake",
    "root", "--no-cpu -i 10ms --source amdgpu:polls=2", "fake-amdgpu:",
    { "0 not restored, 0 GFXOFF requests held, 0 fds open, woken 0 times, stable pstate 0, "
      "0 protocol errors", NULL } };
static const struct hw mips = {
    "MIPS CM perf registers", "GPUTOP_FAKE_GCR_BIN", "build/native/tests/gputop-fake-gcr",
    "0x0701", "--no-cpu -i 10ms --source sim:mali-g720 --source mips-cm:gcr-base=default",
    "gcr-final:",
    /* gputop_fake_gcr.c's starting values, as a debugger left them */
    { "ctl=0x60000002 ov=0x0 event=0x0309 qual0=0x12345678 qual1=0x9abcdef0 cycle=1000 "
      "cnt0=77 cnt1=5 protocol_errors=0 open_fds=0 ", NULL } };
static const struct hw panfrost = {
    "panfrost PERFCNT_ENABLE", "GPUTOP_FAKE_PANFROST_BIN", "build/native/tests/gputop-fake-panfrost",
    "", "--no-cpu -i 10ms --source panfrost", "panfrost-final:",
    { "owner_fd=-1 closed_enabled=0 open_fds=0 ", "protocol_errors=0 ", NULL } };

static const char *bin_of(const struct hw *h)
{
    const char *b = getenv(h->bin_env);

    return b && *b ? b : h->bin_default;
}

static const char *tmpdir(void)
{
    const char *d = getenv("TMPDIR");

    return d && *d ? d : "/tmp";
}

static char *slurp(const char *path)
{
    char *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *m = open_memstream(&buf, &len), *f = fopen(path, "r");

    cr_assert_not_null(m);
    while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    if (f)
        fclose(f);
    fclose(m);
    return buf;
}

/* Splits "a b c" into argv (at most max-1 words, in place). */
static int split(char *s, char **argv, int max)
{
    int n = 0;
    char *w;

    for (w = strtok(s, " "); w && n < max - 1; w = strtok(NULL, " "))
        argv[n++] = w;
    argv[n] = NULL;
    return n;
}

/* The fake's command line: BIN FAKE_ARGS -- GPUTOP_ARGS EXTRA (a shell
 * word list, for tmux), into buf. */
static void command_line(const struct hw *h, const char *extra, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s -- %s %s", bin_of(h), h->fake_args, h->gputop_args, extra);
}

/* Starts the fake with stdout to out_fd (-1: /dev/null), stderr to err,
 * and GPUTOP_KILL_AT=kill_at (NULL: not set). */
static pid_t start(const struct hw *h, const char *extra, const char *kill_at, int out_fd,
                   const char *err)
{
    char line[1024], *argv[64];
    pid_t pid;
    int fd;

    command_line(h, extra, line, sizeof(line));
    split(line, argv, 64);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid > 0)
        return pid;
    if (kill_at)
        setenv("GPUTOP_KILL_AT", kill_at, 1);
    else
        unsetenv("GPUTOP_KILL_AT");
    unsetenv("GPUTOP_KILL_MARK");
    fd = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
    dup2(fd, STDOUT_FILENO);
    fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        _exit(127);
    dup2(fd, STDERR_FILENO);
    /* nothing else of ours: a pipe's read end kept here would never break */
    for (fd = 3; fd < 1024; fd++)
        close(fd);
    execv(argv[0], argv);
    _exit(127);
}

/* Waits for pid, generously (a stuck process fails the test instead of
 * hanging it); returns its wait status. */
static int finish(pid_t pid, const char *what)
{
    int status, i;

    for (i = 0; i < 60000; i++) {   /* 60 s in 1 ms steps */
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        cr_assert_eq(r, 0, "waitpid: %s", strerror(errno));
        usleep(1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("%s: still running after 60 s", what);
    return status;
}

/* The final-state line in the fake's stderr (malloc'd), or NULL. */
static char *final_line(const struct hw *h, const char *err_text)
{
    const char *p = strstr(err_text, h->prefix), *e;

    if (!p)
        return NULL;
    e = strchr(p, '\n');
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static void expect_as_found(const struct hw *h, const char *err_text, const char *what)
{
    char *line = final_line(h, err_text);
    int i;

    cr_assert_not_null(line, "%s, %s: no '%s' line, so it did not exit through its end:\n%s",
                       h->name, what, h->prefix, err_text);
    for (i = 0; h->expect[i]; i++)
        cr_assert_not_null(strstr(line, h->expect[i]), "%s, %s: left as\n  %s\nnot\n  ...%s",
                           h->name, what, line, h->expect[i]);
    free(line);
    /* under make asan, a report in the binary fails the trial too */
    cr_assert_null(strstr(err_text, "Sanitizer"), "%s, %s:\n%s", h->name, what, err_text);
    cr_assert_null(strstr(err_text, "runtime error"), "%s, %s:\n%s", h->name, what, err_text);
}

static long seam_calls(const char *line)
{
    const char *p = strstr(line, "seam_calls=");

    if (p)
        return atol(p + strlen("seam_calls="));
    p = strstr(line, " seam calls");   /* the amdgpu fake's prose */
    if (!p)
        return -1;
    while (p > line && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return atol(p);
}

/* Calls through the seam in a run of three records: the kill points are
 * drawn from these, so each lands while opening, starting or sampling. */
static long calibrate(const struct hw *h, const char *err)
{
    char *text, *line;
    int status;
    long n;

    status = finish(start(h, "-b -n 3", NULL, -1, err), h->name);
    text = slurp(err);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d\n%s", h->name,
              status, text);
    expect_as_found(h, text, "a run of 3 records");
    line = final_line(h, text);
    n = seam_calls(line);
    cr_assert_gt(n, 10, "%s: %s", h->name, line);
    free(line);
    free(text);
    return n;
}

/* Log-uniform in [1, max]: early calls (opening, the first sample) are as
 * likely, decade for decade, as the sampling that follows. */
static long draw_point(unsigned *seed, long max)
{
    double u = (double)rand_r(seed) / RAND_MAX;
    long n = (long)exp(u * log((double)max)) ;

    return n < 1 ? 1 : n > max ? max : n;
}

static void signals_at_random_points(const struct hw *h, unsigned seed)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    char err[256], at[64], what[160], *text;
    long calls, n;
    int s, i, status;

    snprintf(err, sizeof(err), "%s/gputop-laf-%d.err", tmpdir(), (int)getpid());
    calls = calibrate(h, err);
    for (s = 0; s < 3; s++)
        for (i = 0; i < TRIALS; i++) {
            n = draw_point(&seed, calls);
            snprintf(at, sizeof(at), "%ld:%d:%c", n, sigs[s], i % 2 ? 'i' : 'r');
            snprintf(what, sizeof(what), "%s at seam call %ld of %ld (%s)", strsignal(sigs[s]),
                     n, calls, i % 2 ? "EINTR if the kernel sleeps there" : "the call going on");
            status = finish(start(h, "-b", at, -1, err), what);
            text = slurp(err);
            cr_assert(WIFEXITED(status), "%s, %s: killed (status %d):\n%s", h->name, what,
                      status, text);
            expect_as_found(h, text, what);
            free(text);
        }
    unlink(err);
}

Test(left_as_found, kbase_kinstr_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&kinstr, SEED);
}

Test(left_as_found, kbase_legacy_reader_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&legacy, SEED + 1);
}

Test(left_as_found, amdgpu_gfxoff_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&amd_gfxoff, SEED + 2);
}

Test(left_as_found, amdgpu_pstate_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&amd_pstate, SEED + 3);
}

Test(left_as_found, amdgpu_perfclk_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&amd_perfclk, SEED + 7);
}

Test(left_as_found, mips_cm_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&mips, SEED + 4);
}

Test(left_as_found, panfrost_signals_at_random_points, .timeout = 300)
{
    signals_at_random_points(&panfrost, SEED + 5);
}

/* Polls for path (up to 30 s); 1 once it exists. */
static int appears(const char *path)
{
    struct stat st;
    int i;

    for (i = 0; i < 3000; i++) {
        if (stat(path, &st) == 0)
            return 1;
        usleep(10000);
    }
    return 0;
}

/* Polls the fake's stderr file for its final line (up to 60 s). */
static char *final_text(const struct hw *h, const char *err)
{
    char *text = NULL;
    int i;

    for (i = 0; i < 6000; i++) {
        free(text);
        text = slurp(err);
        if (strstr(text, h->prefix))
            return text;
        usleep(10000);
    }
    return text;
}

/* The dashboard in a tmux pane (refreshing every 10 ms, so a frame is
 * often being drawn), its terminal closed when the fake reaches the seam
 * call drawn: kill-session or kill-pane, so the pty goes away, the kernel
 * sends SIGHUP and writes to the terminal fail with EIO. */
static void terminal_closes_at_random_points(const struct hw *h, unsigned seed)
{
    char err[256], mark[256], line[1024], cmd[1400], env[400], kill[200], *text;
    struct tmux t;
    long calls, n;
    int i;

    snprintf(err, sizeof(err), "%s/gputop-laft-%d.err", tmpdir(), (int)getpid());
    snprintf(mark, sizeof(mark), "%s/gputop-laft-%d.mark", tmpdir(), (int)getpid());
    calls = calibrate(h, err);
    for (i = 0; i < TERM_TRIALS; i++) {
        n = draw_point(&seed, calls);
        unlink(mark);
        unlink(err);
        command_line(h, "-r 10ms", line, sizeof(line));
        snprintf(cmd, sizeof(cmd), "exec %s 2>%s", line, err);
        snprintf(env, sizeof(env), "GPUTOP_KILL_AT=%ld GPUTOP_KILL_MARK=%s", n, mark);
        cr_assert_eq(tmux_start(&t, 100, 30, env, cmd), 0);
        /* a run that ends by itself (an error while opening) never gets
         * there: its final line is there instead */
        if (!appears(mark)) {
            text = final_text(h, err);
            cr_assert(strstr(text, h->prefix), "%s: seam call %ld of %ld never reached:\n%s",
                      h->name, n, calls, text);
            free(text);
        }
        snprintf(kill, sizeof(kill), "tmux -L %s %s >/dev/null 2>&1", t.socket,
                 i % 2 ? "kill-pane -t 0" : "kill-session");
        cr_assert_eq(system(kill), 0, "%s", kill);
        text = final_text(h, err);
        tmux_stop(&t);
        snprintf(line, sizeof(line), "terminal closed (%s) at seam call %ld of %ld",
                 i % 2 ? "kill-pane" : "kill-session", n, calls);
        expect_as_found(h, text, line);
        free(text);
    }
    unlink(mark);
    unlink(err);
}

Test(left_as_found, kbase_kinstr_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&kinstr, SEED + 10);
}

Test(left_as_found, kbase_legacy_reader_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&legacy, SEED + 11);
}

Test(left_as_found, amdgpu_gfxoff_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&amd_gfxoff, SEED + 12);
}

Test(left_as_found, amdgpu_pstate_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&amd_pstate, SEED + 13);
}

Test(left_as_found, mips_cm_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&mips, SEED + 14);
}

Test(left_as_found, panfrost_terminal_closes, .timeout = 300)
{
    terminal_closes_at_random_points(&panfrost, SEED + 15);
}

/* Reads from fd until `lines` newlines have come (or EOF). */
static void read_lines(int fd, int lines)
{
    char c;

    while (lines > 0 && read(fd, &c, 1) == 1)
        if (c == '\n')
            lines--;
}

/* gputop -b -f csv | head -N: the reader goes away after N lines, the
 * next write fails with EPIPE (SIGPIPE is ignored) and the run ends
 * through the sources' close. */
static void reader_goes_away(const struct hw *h)
{
    char err[256], what[96], *text;
    int p[2], lines, status;
    pid_t pid;

    snprintf(err, sizeof(err), "%s/gputop-lafp-%d.err", tmpdir(), (int)getpid());
    for (lines = 1; lines <= 3; lines++) {
        cr_assert_eq(pipe(p), 0);
        pid = start(h, "-b -f csv", NULL, p[1], err);
        close(p[1]);
        read_lines(p[0], lines);
        close(p[0]);
        snprintf(what, sizeof(what), "the reader gone after %d line(s) of CSV", lines);
        status = finish(pid, what);
        text = slurp(err);
        cr_assert(WIFEXITED(status), "%s, %s: killed (status %d):\n%s", h->name, what, status,
                  text);
        expect_as_found(h, text, what);
        /* gputop(1): a reader that goes away ends the run quietly, status 0 */
        cr_expect_eq(WEXITSTATUS(status), 0, "%s, %s: exit status %d:\n%s", h->name, what,
                     WEXITSTATUS(status), text);
        cr_expect_null(strstr(text, "gputop: \n"), "%s, %s: an empty message:\n%s", h->name,
                       what, text);
        free(text);
    }
    unlink(err);
}

Test(left_as_found, csv_reader_goes_away, .timeout = 300)
{
    const struct hw *all[] = { &kinstr, &legacy, &amd_gfxoff, &amd_pstate, &mips, &panfrost };
    size_t i;

    for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        reader_goes_away(all[i]);
}

/* One scrape of http://127.0.0.1:port/metrics; the reply's first `keep`
 * bytes are read, then the connection is reset (SO_LINGER 0) while the
 * server may still be writing — or with keep 0, read to its end. Returns
 * the bytes read. */
static size_t scrape(int port, size_t keep, char *buf, size_t len)
{
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    struct linger lg = { 1, 0 };
    size_t n = 0;
    ssize_t r;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    cr_assert_geq(fd, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0, "connect: %s", strerror(errno));
    cr_assert_eq(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
    while (n + 1 < len && (!keep || n < keep) && (r = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    if (keep)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
    return n;
}

/* The port gputop --serve 127.0.0.1:0 says it serves on, polled from its
 * stderr (up to 30 s). */
static int served_port(const char *err)
{
    const char *key = "metrics at http://127.0.0.1:";
    char *text = NULL, *p;
    int i, port = -1;

    for (i = 0; i < 3000 && port < 0; i++) {
        free(text);
        text = slurp(err);
        if ((p = strstr(text, key)) != NULL)
            port = atoi(p + strlen(key));
        else
            usleep(10000);
    }
    cr_assert_gt(port, 0, "no 'serving' line:\n%s", text);
    free(text);
    return port;
}

/* --serve whose scrapers go away mid-reply (reset after a few bytes, so
 * the server's writes fail with EPIPE or ECONNRESET): gputop goes on
 * serving, and SIGTERM afterwards still puts everything back. */
static void scrapers_go_away(const struct hw *h)
{
    static char body[1 << 20];
    char err[256], *text;
    int port, i, status;
    pid_t pid;

    snprintf(err, sizeof(err), "%s/gputop-lafs-%d.err", tmpdir(), (int)getpid());
    pid = start(h, "-b -f none --serve 127.0.0.1:0", NULL, -1, err);
    port = served_port(err);
    for (i = 0; i < 20; i++)
        scrape(port, (size_t)(1 + i * 7), body, sizeof(body));
    scrape(port, 0, body, sizeof(body));
    cr_expect(strstr(body, "200 OK") && strstr(body, "gputop_info"),
              "%s: no whole reply after the resets:\n%.300s", h->name, body);
    kill(pid, SIGTERM);
    status = finish(pid, "SIGTERM after the scrapers went away");
    text = slurp(err);
    cr_assert(WIFEXITED(status), "%s: killed (status %d):\n%s", h->name, status, text);
    expect_as_found(h, text, "--serve, scrapers gone mid-reply, then SIGTERM");
    free(text);
    unlink(err);
}

Test(left_as_found, serve_scrapers_go_away, .timeout = 300)
{
    const struct hw *all[] = { &kinstr, &legacy, &amd_gfxoff, &amd_pstate, &mips, &panfrost };
    size_t i;

    for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        scrapers_go_away(all[i]);
}
