/* Durations with units for every time option (-i, -r, -d): one grammar, and
 * a bare number keeps the unit each option always had. */
#include "gputop/duration.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
    const char *name;
    uint64_t ns;
};

static const struct unit units[] = {
    { "ns", 1 },
    { "us", 1000 },
    { "ms", GT_NS_PER_MS },
    { "s", GT_NS_PER_S },
    { "m", 60 * GT_NS_PER_S },
    { "min", 60 * GT_NS_PER_S },
    { "h", 3600 * GT_NS_PER_S },
    { "d", 86400 * GT_NS_PER_S },
};

static int unit_ns(const char *name, uint64_t bare, uint64_t *ns)
{
    size_t i;

    if (!*name) {
        *ns = bare;
        return 0;
    }
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(name, units[i].name) == 0) {
            *ns = units[i].ns;
            return 0;
        }
    return -1;
}

int gt_parse_duration(const char *text, uint64_t bare_unit_ns, uint64_t *ns)
{
    char *end;
    double v;
    uint64_t scale;

    /* strtod would also take "inf", "nan", hex numbers and leading blanks. */
    if (!text || !(*text == '.' || (*text >= '0' && *text <= '9')))
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || strspn(text, "0123456789.eE+-") < (size_t)(end - text) ||
        unit_ns(end, bare_unit_ns, &scale) < 0)
        return -1;
    v *= (double)scale;
    if (!(v < 9.2e18))
        return -1;
    *ns = (uint64_t)llround(v);
    return 0;
}

void gt_format_duration(char *buf, size_t len, uint64_t ns)
{
    static const struct unit out[] = {
        { "d", 86400 * GT_NS_PER_S }, { "h", 3600 * GT_NS_PER_S }, { "m", 60 * GT_NS_PER_S }, { "s", GT_NS_PER_S }, { "ms", GT_NS_PER_MS },
        { "us", 1000 }, { "ns", 1 },
    };
    size_t i;

    for (i = 0; i < sizeof(out) / sizeof(out[0]) - 1; i++)
        if (ns && ns % out[i].ns == 0)
            break;
    snprintf(buf, len, "%llu%s", (unsigned long long)(ns / out[i].ns), out[i].name);
}
