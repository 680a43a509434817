/* --record as a user runs it: the binary through the shell, the capture
 * file before and after, and what stderr says. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakes/tmux.h"

/* Runs gputop ARGS with stderr into a string; returns the exit status. */
static int run_err(const char *args, char *err, size_t len)
{
    char cmd[2048], path[256];
    const char *dir = getenv("TMPDIR");
    FILE *f;
    size_t n;
    int fd, status;

    snprintf(path, sizeof(path), "%s/gputop-err-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>%s", gputop_bin(), args, path);
    status = system(cmd);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    n = fread(err, 1, len - 1, f);
    err[n] = '\0';
    fclose(f);
    unlink(path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static off_t size_of(const char *path)
{
    struct stat st;

    cr_assert_eq(stat(path, &st), 0, "%s", path);
    return st.st_size;
}

static void temp_path(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, len, "%s/gputop-rec-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
}

/* Issue 43 item 8: a second --record with the same name kept the new
 * 45 KB and lost the 1.4 MB capture. Now it is refused, the capture
 * untouched, unless --force; an empty file (mktemp's) is written to. */
Test(cli_record, an_existing_capture_is_kept_unless_force, .timeout = 60)
{
    char path[256], args[600], err[2048];
    off_t first;

    temp_path(path, sizeof(path));
    snprintf(args, sizeof(args), "--source sim:mali-t8xx,step=10000000 --no-cpu -b -f none "
             "-i 10ms -n 20 --record %s", path);
    cr_assert_eq(run_err(args, err, sizeof(err)), 0, "%s", err);
    first = size_of(path);
    cr_assert_gt(first, 0);

    snprintf(args, sizeof(args), "--source sim:mali-t8xx,step=10000000 --no-cpu -b -f none "
             "-i 10ms -n 2 --record %s", path);
    cr_expect_eq(run_err(args, err, sizeof(err)), 1, "%s", err);
    cr_expect(strstr(err, path) && strstr(err, "exists") && strstr(err, "--force"), "%s", err);
    cr_expect_eq(size_of(path), first, "the capture was touched");

    strcat(args, " --force");
    cr_expect_eq(run_err(args, err, sizeof(err)), 0, "%s", err);
    cr_expect_lt(size_of(path), first, "--force did not replace it");
    unlink(path);
}

/* Issue 43 item 8: how fast the capture grew, on stderr at the end, from
 * its size and the time recorded: a rate and a minute's worth. */
Test(cli_record, says_how_fast_the_capture_grew, .timeout = 60)
{
    char path[256], args[600], err[2048], want[300];

    temp_path(path, sizeof(path));
    snprintf(args, sizeof(args), "--source sim:mali-t8xx --no-cpu -b -f none -i 1ms -d 300ms "
             "--record %s", path);
    cr_assert_eq(run_err(args, err, sizeof(err)), 0, "%s", err);
    snprintf(want, sizeof(want), "gputop: recorded %s: ", path);
    cr_expect(strstr(err, want), "%s", err);
    cr_expect(strstr(err, "B/s (") && strstr(err, "a minute)"), "%s", err);
    unlink(path);
}

/* Reads a whole stream into a string (malloc'd). */
static char *slurp(FILE *p)
{
    char *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *m = open_memstream(&buf, &len);

    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(m);
    return buf;
}

/* A CSV line without its third field (time_unix: the wall clock of the
 * run that wrote it, empty when read back). */
static void drop_third(char *line)
{
    char *a = strchr(line, ','), *b = a ? strchr(a + 1, ',') : NULL, *c = b ? strchr(b + 1, ',') : NULL;

    if (c)
        memmove(b, c, strlen(c) + 1);
}

/* Issue 43 item 13: gputop's own CSV read back with csv: ("bad header:
 * the first column must be 'interval_ns'" before) gives the same
 * columns and the same values, row for row. */
Test(cli_record, its_own_csv_reads_back, .timeout = 60)
{
    char path[256], cmd[700], *first, *again, *save1 = NULL, *save2 = NULL, *a, *b;
    FILE *p;
    int rows = 0;

    temp_path(path, sizeof(path));
    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-g715,scene=game,seed=3 --no-cpu -b -f csv "
             "-n 5 > %s", gputop_bin(), path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    p = fopen(path, "r");
    first = slurp(p);
    fclose(p);
    snprintf(cmd, sizeof(cmd), "%s --source csv:%s -b -f csv 2>&1", gputop_bin(), path);
    p = popen(cmd, "r");
    again = slurp(p);
    cr_expect_eq(pclose(p), 0, "%s", again);
    for (a = strtok_r(first, "\n", &save1), b = strtok_r(again, "\n", &save2); a && b;
         a = strtok_r(NULL, "\n", &save1), b = strtok_r(NULL, "\n", &save2), rows++) {
        /* the last two columns, the triage verdicts, are the writer's
         * judgement, not values: the read-back has none */
        *strrchr(a, ',') = '\0';
        *strrchr(a, ',') = '\0';
        drop_third(a);
        drop_third(b);
        cr_expect_str_eq(b, a, "row %d", rows);
    }
    cr_expect_eq(rows, 6, "%s", again);
    free(first);
    free(again);
    unlink(path);
}
