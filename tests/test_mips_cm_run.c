/* The coherency manager beside a GPU, through the real binary: the Mali
 * layout plus the CM sections in batch records and on the dashboard,
 * estimates marked, the layout's qualifier options reaching the source. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000
#define BESIDE "--source sim:mali-g720,step=100000000 --source sim:mips-cm,step=100000000 --no-cpu"

/* prog ARGS with stdout returned and stderr in *err. */
static char *run_prog(const char *prog, const char *args, int *status, char **err)
{
    char cmd[2048], errpath[256], chunk[4096], *buf = NULL;
    const char *dir = getenv("TMPDIR");
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len), *e;
    int fd;

    snprintf(errpath, sizeof(errpath), "%s/gputop-err-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(errpath);
    cr_assert_geq(fd, 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s %s 2>%s", prog, args, errpath);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    *status = pclose(p);
    fclose(m);
    e = fopen(errpath, "r");
    cr_assert_not_null(e);
    m = open_memstream(err, &len);
    while ((n = fread(chunk, 1, sizeof(chunk), e)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(m);
    fclose(e);
    unlink(errpath);
    return buf;
}

static char *run(const char *args, int *status, char **err)
{
    return run_prog(gputop_bin(), args, status, err);
}

/* The text record line of a metric holds value (with its unit). */
static void expect_line(const char *out, const char *title, const char *value)
{
    const char *at = strstr(out, title), *end;
    char line[256];

    cr_assert_not_null(at, "no '%s' in:\n%s", title, out);
    end = strchr(at, '\n');
    snprintf(line, sizeof(line), "%.*s", (int)(end ? end - at : (long)strlen(at)), at);
    cr_expect_not_null(strstr(line, value), "'%s' should show '%s'", line, value);
}

Test(mips_cm_run, beside_a_gpu_in_text_records, .timeout = 60)
{
    int status;
    char *err, *out = run(BESIDE " -b -n 2", &status, &err);

    cr_expect_eq(status, 0, "%s", err);
    cr_expect_not_null(strstr(out, "GPU activity"), "the GPU's sections are there:\n%s", out);
    cr_expect_not_null(strstr(out, "Coherency manager / Bus utilisation"), "%s", out);
    cr_expect_not_null(strstr(out, "CM registers / Event select"), "%s", out);
    /* 100 ms at the model's 800 MHz; the cycle counter is never an estimate */
    expect_line(out, "CM cycles", " 80000000 cycles");
    cr_expect_not_null(strstr(out, "~"), "multiplexed values marked:\n%s", out);
    /* the simulated CM2.5 has one IOCU: the second's event is not there */
    expect_line(out, "2nd IOCU Requests", " n/a ");
    free(out);
    free(err);
}

/* CSV marks estimates in the column name, values stay numbers; the
 * cycle counter is exact; the absent 2nd IOCU is an empty field. */
Test(mips_cm_run, csv_marks_estimated_columns, .timeout = 60)
{
    int status;
    char *err, *out = run(BESIDE " -b -f csv -n 1", &status, &err);
    char *row;

    cr_expect_eq(status, 0, "%s", err);
    cr_expect_not_null(strstr(out, ",~CM Read Data Usage [%],"), "%s", out);
    cr_expect_not_null(strstr(out, ",CM cycles [cycles],"), "%s", out);
    cr_expect_null(strstr(out, "~CM cycles"), "%s", out);
    row = strchr(out, '\n');
    cr_assert_not_null(row);
    cr_expect_null(strchr(row, '~'), "values stay numbers: %s", row);
    free(out);
    free(err);
}

Test(mips_cm_run, json_header_marks_estimates, .timeout = 60)
{
    int status;
    char *err, *out = run(BESIDE " -b -f json -n 1", &status, &err);
    char *at;

    cr_expect_eq(status, 0, "%s", err);
    at = strstr(out, "\"title\":\"CM Read Data Usage\"");
    cr_assert_not_null(at, "%s", out);
    cr_expect_not_null(strstr(at, "\"estimated\":true"), "%s", at);
    at = strstr(out, "\"title\":\"CM cycles\"");
    cr_assert_not_null(at, "%s", out);
    /* the cycle counter is exact: no flag before its entry closes */
    cr_expect_lt(strchr(at, '}'), strstr(at, "\"estimated\""), "%s", at);
    free(out);
    free(err);
}

static void write_layout(char *path, size_t len, const char *option)
{
    const char *dir = getenv("TMPDIR");
    FILE *f;
    int fd;

    snprintf(path, len, "%s/gputop-cm-XXXXXX.layout", dir && dir[0] ? dir : "/tmp");
    fd = mkstemps(path, 7);
    cr_assert_geq(fd, 0);
    f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fprintf(f, "gputop-layout 1\nname cm-test\ntitle test\nfamily mips-cm\n%s\n"
               "section CM\n  key m\n  group Bus\n    metric Read\n"
               "      expr $CMReadDataUsage / $CMCycles * 100\n      unit %%\n      show percent\n"
               "    metric Sharing\n      expr $CMSharingMiss\n      show count\n", option);
    fclose(f);
}

/* Two events only: exact counts, no '~'; the qualifier set in the layout
 * shows in the source's detail (JSON header). */
Test(mips_cm_run, layout_option_sets_a_qualifier_and_two_events_are_exact, .timeout = 60)
{
    char path[256], args[512], *err, *out;
    int status;

    write_layout(path, sizeof(path), "option mips-cm qual.CMSharingMiss=0x0000000f");
    snprintf(args, sizeof(args), "--source sim:mips-cm,step=100000000 --no-cpu --layout %s "
                                 "-b -f json -n 1", path);
    out = run(args, &status, &err);
    cr_expect_eq(status, 0, "%s", err);
    cr_expect_not_null(strstr(out, "2 events, exact; CMSharingMiss qual 0x0000000f"), "%s", out);
    cr_expect_null(strstr(out, "\"estimated\""), "%s", out);
    free(out);
    free(err);
    unlink(path);
}

Test(mips_cm_run, bad_layout_option_names_file_and_line, .timeout = 60)
{
    char path[256], args[512], want[512], *err, *out;
    int status;

    write_layout(path, sizeof(path), "option mips-cm qual.CMSharingMiss=lots");
    snprintf(args, sizeof(args), "--source sim:mips-cm,step=100000000 --no-cpu --layout %s -b -n 1",
             path);
    out = run(args, &status, &err);
    cr_expect_neq(status, 0);
    snprintf(want, sizeof(want), "gputop: layout %s, line 5: sim: mips-cm: qual.CMSharingMiss=lots: "
                                 "a qualifier is a 32-bit number or 'reset'", path);
    cr_expect_not_null(strstr(err, want), "%s", err);
    free(out);
    free(err);
    unlink(path);
}

/* The dashboard with both: the GPU's sections as before, and 'm' shows the
 * coherency manager with its bus bars and '~' on the estimates, 'g' the
 * register view. */
Test(mips_cm_run, dashboard_beside_a_gpu, .timeout = 120)
{
    struct tmux t;
    char cmd[1024], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g720 --source sim:mips-cm --no-cpu",
             gputop_bin());
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "gputop", WAIT_MS, &found);
    cr_assert(found, "no dashboard:\n%s", s);
    free(s);
    tmux_literal(&t, "2");
    s = tmux_wait_for(&t, "GPU usage", WAIT_MS, &found);
    cr_expect(found, "the GPU's section:\n%s", s);
    free(s);
    tmux_literal(&t, "m");
    s = tmux_wait_for(&t, "CM Read Data Usage", WAIT_MS, &found);
    cr_expect(found, "the CM section:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "~", WAIT_MS, &found);
    cr_expect(found, "estimates marked:\n%s", s);
    cr_expect_not_null(strstr(s, "Bus utilisation"), "%s", s);
    free(s);
    tmux_literal(&t, "g");
    s = tmux_wait_for(&t, "Event pairs rotated", WAIT_MS, &found);
    cr_expect(found, "the register view:\n%s", s);
    free(s);
    /* each estimate's age, further down the register view */
    s = tmux_wait_for(&t, "Request Count age", WAIT_MS, &found);
    if (!found) {
        free(s);
        tmux_keys(&t, "NPage");
        s = tmux_wait_for(&t, "Request Count age", WAIT_MS, &found);
    }
    cr_expect(found, "ages in the register view:\n%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}

static void write_file(char *path, size_t len, const char *suffix, const char *text)
{
    const char *dir = getenv("TMPDIR");
    FILE *f;
    int fd;

    snprintf(path, len, "%s/gputop-cm-XXXXXX%s", dir && dir[0] ? dir : "/tmp", suffix);
    fd = mkstemps(path, (int)strlen(suffix));
    cr_assert_geq(fd, 0);
    f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Recorded counts replayed by name: read-data bus 40e6 of 80e6 cycles is
 * 50 %, write data 20e6 of 80e6 is 25 %; 2e6 requests per 80e6 cycles are
 * 0.025 per cycle. Counts from a file are what they are: no '~'. */
Test(mips_cm_run, csv_import_by_event_names, .timeout = 60)
{
    char path[256], args[512], *err, *out;
    int status;

    write_file(path, sizeof(path), ".csv",
               "interval_ns,CMCycles,CMReadDataUsage,CMWriteDataUsage,CMRequests\n"
               "100000000,80000000,40000000,20000000,2000000\n");
    snprintf(args, sizeof(args), "--source csv:%s,gpu=mips-cm -b -n 1", path);
    out = run(args, &status, &err);
    cr_expect_eq(status, 0, "%s", err);
    expect_line(out, "CM Read Data Usage", " 50 %");
    expect_line(out, "CM Write Data Usage", " 25 %");
    expect_line(out, "Request Count per cycle", " 0.025 ");
    cr_expect_null(strstr(out, "~"), "%s", out);
    free(out);
    free(err);
    unlink(path);
}

Test(mips_cm_run, csv_misspelled_event_is_named, .timeout = 60)
{
    char path[256], args[512], *err, *out;
    int status;

    write_file(path, sizeof(path), ".csv", "interval_ns,CMCycles,CMReadDataUsge\n1,2,3\n");
    snprintf(args, sizeof(args), "--source csv:%s,gpu=mips-cm -b -n 1", path);
    out = run(args, &status, &err);
    cr_expect_neq(status, 0);
    cr_expect_not_null(strstr(err, "unknown counter 'CMReadDataUsge' (did you mean "
                                   "'CMReadDataUsage'?)"), "%s", err);
    free(out);
    free(err);
    unlink(path);
}

/* A capture of both: the replay shows the CM sections again, marks the
 * estimates, and its detail says how the CM was counted. */
Test(mips_cm_run, capture_keeps_layout_multiplexing_and_detail, .timeout = 60)
{
    char path[256], args[512], *err, *out;
    int status;

    write_file(path, sizeof(path), ".gtc", "");
    snprintf(args, sizeof(args), BESIDE " -b -n 3 --record %s", path);
    out = run(args, &status, &err);
    cr_assert_eq(status, 0, "%s", err);
    free(out);
    free(err);
    snprintf(args, sizeof(args), "--source replay:%s -b -f json -n 1", path);
    out = run(args, &status, &err);
    cr_expect_eq(status, 0, "%s", err);
    cr_expect_not_null(strstr(out, "; mips-cm: simulated CM2.5 at 800 MHz, seed 1; 10 events over "
                                   "2 counters (multiplexed, estimates)"), "%s", out);
    cr_expect_not_null(strstr(out, "\"title\":\"CM Read Data Usage\",\"ref\":null,\"unit\":\"%\","
                                   "\"show\":\"percent\",\"section\":\"Coherency manager\","
                                   "\"group\":\"Bus utilisation\",\"estimated\":true"), "%s", out);
    free(out);
    free(err);
    unlink(path);
}

static const char *fake_gcr_bin(void)
{
    const char *b = getenv("GPUTOP_FAKE_GCR_BIN");

    return b && b[0] ? b : "build/native/tests/gputop-fake-gcr";
}

static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len = 0, n;
    char chunk[4096];
    FILE *m = open_memstream(&buf, &len), *f = fopen(path, "r");

    cr_assert_not_null(m);
    while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    if (f)
        fclose(f);
    fclose(m);
    return buf;
}

static int count_of(const char *s, const char *what)
{
    int n = 0;

    while ((s = strstr(s, what)) != NULL) {
        n++;
        s += strlen(what);
    }
    return n;
}

/* The real binary counting on the fake CM, stopped by sig after three
 * records: it exits normally and the perf registers hold again what the
 * "debugger" had left in them (gputop_fake_gcr.c's starting values). */
static void stopped_by(int sig)
{
    char out[256], err[256], *o = NULL, *e;
    const char *dir = getenv("TMPDIR");
    int fd, status, tries;
    pid_t pid;

    snprintf(out, sizeof(out), "%s/gputop-cm-out-XXXXXX", dir && dir[0] ? dir : "/tmp");
    snprintf(err, sizeof(err), "%s/gputop-cm-err-XXXXXX", dir && dir[0] ? dir : "/tmp");
    cr_assert_geq(fd = mkstemp(out), 0);
    close(fd);
    cr_assert_geq(fd = mkstemp(err), 0);
    close(fd);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
            _exit(127);
        execl(fake_gcr_bin(), fake_gcr_bin(), "0x0701", "--", "--source", "sim:mali-g720",
              "--source", "mips-cm:gcr-base=default", "--no-cpu", "-b", "-i", "50ms",
              (char *)NULL);
        _exit(127);
    }
    /* poll for three records, generously */
    for (tries = 0; tries < 600; tries++) {
        free(o);
        o = slurp(out);
        if (count_of(o, "Coherency manager / Bus utilisation") >= 3)
            break;
        usleep(50000);
    }
    cr_assert_geq(count_of(o, "Coherency manager / Bus utilisation"), 3, "%s", o);
    kill(pid, sig);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    e = slurp(err);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, e);
    cr_expect_not_null(strstr(e, "gcr-final: ctl=0x60000002 ov=0x0 event=0x0309 qual0=0x12345678 "
                                 "qual1=0x9abcdef0 cycle=1000 cnt0=77 cnt1=5 protocol_errors=0 "
                                 "open_fds=0"), "%s", e);
    /* event 4 at 50 per 1000 cycles: 5 % of the cycles, estimated */
    expect_line(o, "CM Read Data Usage", "~5 %");
    free(o);
    free(e);
    unlink(out);
    unlink(err);
}

Test(mips_cm_run, registers_restored_after_sigterm, .timeout = 90)
{
    stopped_by(SIGTERM);
}

Test(mips_cm_run, registers_restored_after_sigint, .timeout = 90)
{
    stopped_by(SIGINT);
}

/* gputop --probe --source mips-cm, the binary on the fake CM: the report,
 * and the registers untouched afterwards. */
Test(mips_cm_run, probe_through_the_binary, .timeout = 60)
{
    char *out, *err;
    int status;

    out = run_prog(fake_gcr_bin(), "0x0701 -- --probe --source mips-cm:gcr-base=default",
                   &status, &err);
    cr_expect_eq(status, 0, "%s%s", out, err);
    cr_expect_not_null(strstr(out, "coherency manager: GCR at 0x1fbf8000 (built-in default)"),
                       "%s", out);
    cr_expect_not_null(strstr(out, "GCR_REV 0x0701: CM2.5 (major 7, minor 1)"), "%s", out);
    cr_expect_not_null(strstr(out, "GCR_DB_PC_CTL:    0x60000002  Perf_Int_En 1, Perf_Ovf_Stop 1, "
                                   "counting: none"), "%s", out);
    cr_expect_not_null(strstr(err, "gcr-final: ctl=0x60000002 ov=0x0 event=0x0309 qual0=0x12345678 "
                                   "qual1=0x9abcdef0 cycle=1000 cnt0=77 cnt1=5 protocol_errors=0"),
                       "%s", err);
    free(out);
    free(err);
}

/* The dashboard on the fake CM whose request event has qualifier groups,
 * with a layout qualifier (0x1) that matches one group but not the other:
 * requests count 0 while the write-data bus is busy, and the header says
 * the qualifier may select nothing. */
Test(mips_cm_run, dashboard_flags_a_qualifier_that_selects_nothing, .timeout = 120)
{
    char path[256], cmd[1024], *s;
    struct tmux t;
    int found;

    write_file(path, sizeof(path), ".layout",
               "gputop-layout 1\nname cm-qual\ntitle test\nfamily mips-cm\n"
               "option mips-cm qual.CMRequests=0x1\n"
               "section CM\n  key m\n  group Bus\n    metric Requests\n"
               "      expr $CMRequests\n      show count\n"
               "    metric Write data\n      expr $CMWriteDataUsage / $CMCycles * 100\n"
               "      unit %\n      show percent\n");
    snprintf(cmd, sizeof(cmd), "%s 0x0701 -- --source mips-cm:gcr-base=default --no-cpu "
             "--layout %s -i 200ms", fake_gcr_bin(), path);
    cr_assert_eq(tmux_start(&t, 120, 30, "GPUTOP_FAKE_GCR_QUAL=0", cmd), 0);
    s = tmux_wait_for(&t, "qualifier 0x1 may select nothing", WAIT_MS, &found);
    cr_expect(found, "no flag on the dashboard:\n%s", s);
    cr_expect_not_null(strstr(s, "CMRequests 0"), "%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
    unlink(path);
}

/* The real binary on the fake CM whose request event has qualifier groups:
 * the start measures all ones for it, and the text record's register view
 * says so per event (4294967295 = 0xffffffff), 0 for an event without
 * groups. */
Test(mips_cm_run, measured_qualifier_shows_per_event, .timeout = 60)
{
    char *out, *err;
    int status;

    setenv("GPUTOP_FAKE_GCR_QUAL", "0", 1);
    out = run_prog(fake_gcr_bin(), "0x0701 -- --source mips-cm:gcr-base=default --no-cpu -b -n 2",
                   &status, &err);
    unsetenv("GPUTOP_FAKE_GCR_QUAL");
    cr_expect_eq(status, 0, "%s", err);
    expect_line(out, "Request Count qualifier", " 4294967295");
    expect_line(out, "CM Write Data Usage qualifier", " 0");
    free(out);
    free(err);
}

/* Nothing answers at the address: the first load raises a real SIGBUS.
 * The binary survives it, says there is no CM there, exits 1, and wrote
 * nothing (the registers hold the "debugger's" values). */
Test(mips_cm_run, bus_error_at_the_address_exits_1_with_nothing_written, .timeout = 60)
{
    char *out, *err;
    int status;

    setenv("GPUTOP_FAKE_GCR_NOTHING", "1", 1);
    out = run_prog(fake_gcr_bin(), "0x0701 -- --source mips-cm:gcr-base=default --no-cpu -b -n 1",
                   &status, &err);
    unsetenv("GPUTOP_FAKE_GCR_NOTHING");
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, err);
    cr_expect_not_null(strstr(err, "no CM at 0x1fbf8000 (built-in default): reading GCR_BASE "
                                   "raised a bus error (SIGBUS)"), "%s", err);
    cr_expect_not_null(strstr(err, "gcr-final: ctl=0x60000002 ov=0x0 event=0x0309 "
                                   "qual0=0x12345678"), "%s", err);
    free(out);
    free(err);
}

/* Mid-run, the block goes away: the bus error comes on the sampler
 * thread, whose other signals are blocked. The run lives on, says which
 * register faulted and what may be left programmed, and ends normally. */
Test(mips_cm_run, bus_error_mid_run_on_the_sampler_thread, .timeout = 60)
{
    char *out, *err;
    int status;

    setenv("GPUTOP_FAKE_GCR_CUT_MS", "600", 1);
    out = run_prog(fake_gcr_bin(), "0x0701 -- --source mips-cm:gcr-base=default --no-cpu -b "
                   "-i 50ms -d 1500ms", &status, &err);
    unsetenv("GPUTOP_FAKE_GCR_CUT_MS");
    cr_expect(WIFEXITED(status), "killed by a signal: status %d: %s", status, err);
    cr_expect_not_null(strstr(err, "bus error (SIGBUS) reading GCR_DB_PC_"), "%s", err);
    cr_expect_not_null(strstr(err, "may be left as gputop programmed them"), "%s", err);
    cr_expect_not_null(strstr(out, "Coherency manager"), "samples before the fault:\n%s", out);
    free(out);
    free(err);
}
