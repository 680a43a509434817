/* bench/footprint.sh, which make bench runs: it finds the dashboard it
 * started, clears its accessed bits and reads back the pages of gputop's
 * own code, static data and private memory touched in a second. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);

    return v && *v ? v : fallback;
}

Test(footprint, counts_the_pages_of_each_kind_the_dashboard_touches, .timeout = 30)
{
    char cmd[1024], line[512];
    long code = -1, data = -1, other = -1, total = -1;
    FILE *p;
    int rc;

    snprintf(cmd, sizeof(cmd), "cd '%s' && BENCH_ROUNDS=1 BENCH_WARMUP=1 sh bench/footprint.sh '%s' 2>&1",
             env_or("GPUTOP_SRC", "."), env_or("GPUTOP_BIN", "build/native/gputop"));
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof(line), p)) {
        sscanf(line, "round 1: code %ld, static data %ld, heap and other private %ld pages", &code,
               &data, &other);
        if (strncmp(line, "summary: pages of its own memory the dashboard touches a second\t", 64) == 0)
            total = strtol(line + 64, NULL, 10);
    }
    rc = pclose(p);
    cr_assert_eq(rc, 0, "footprint.sh failed (run it by hand to see why)");
    /* Every wake-up runs code, reads the layout's static tables and
     * writes its snapshots: none of the three can be 0. */
    cr_assert_gt(code, 0, "no code pages counted");
    cr_assert_gt(data, 0, "no static data pages counted");
    cr_assert_gt(other, 0, "no heap pages counted");
    cr_assert_eq(total, code + data + other, "summary %ld is not the round's %ld + %ld + %ld", total,
                 code, data, other);
}
