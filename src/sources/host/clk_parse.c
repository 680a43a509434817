/* Parsers for the sysfs files the GPU clocks companion reads; each gives
 * "not available" (-1) for what the kernel would not write: an empty file,
 * a negative frequency, a value past any GPU's range. */
#include "gputop/gpu_clocks.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HZ   100000000000ull   /* 100 GHz: past any GPU clock */
#define MIN_MC   (-60000)          /* -60 degC .. 200 degC: past any sensor's range */
#define MAX_MC   200000
#define MAX_STATE 1000000u         /* cooling states are small integers */

static const char *skip_blanks(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* One unsigned decimal field and where it ends; -1 on a sign or overflow. */
static int field_u64(const char *s, uint64_t *v, const char **end)
{
    char *e;

    s = skip_blanks(s);
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    *v = strtoull(s, &e, 10);
    if (errno)
        return -1;
    *end = e;
    return 0;
}

/* The whole text is one value with blanks around it. */
static int only_u64(const char *text, uint64_t *v)
{
    const char *end;

    if (field_u64(text, v, &end) < 0)
        return -1;
    return *skip_blanks(end) ? -1 : 0;
}

int gt_clk_parse_hz(const char *text, uint64_t *hz)
{
    uint64_t v;

    /* devfreq prints frequencies as %lu Hz (sysfs-class-devfreq) */
    if (only_u64(text, &v) < 0 || v == 0 || v > MAX_HZ)
        return -1;
    *hz = v;
    return 0;
}

int gt_clk_parse_mc(const char *text, int64_t *mc)
{
    const char *s = skip_blanks(text);
    int neg = *s == '-';
    uint64_t v;

    /* thermal sysfs-api.rst: temp is a signed int in millidegrees Celsius */
    if (only_u64(neg ? s + 1 : s, &v) < 0 || (neg && !isdigit((unsigned char)s[1])))
        return -1;
    if (v > (uint64_t)(neg ? -MIN_MC : MAX_MC))
        return -1;
    *mc = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int gt_clk_parse_state(const char *text, unsigned *state)
{
    uint64_t v;

    if (only_u64(text, &v) < 0 || v > MAX_STATE)
        return -1;
    *state = (unsigned)v;
    return 0;
}

/* A name made of letters, digits, '_' and '-' only. */
static int is_word_char(int c)
{
    return isalnum(c) || c == '_' || c == '-';
}

int gt_clk_parse_word(const char *text, char *out, size_t len)
{
    const char *s = skip_blanks(text), *e = s;
    size_t n;

    while (*e && is_word_char((unsigned char)*e))
        e++;
    n = (size_t)(e - s);
    if (n == 0 || n >= len || *skip_blanks(e))
        return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

int gt_clk_parse_top(const char *text, uint64_t *top)
{
    const char *s = text, *end;
    uint64_t v, best = 0;

    /* available_frequencies: blank-separated Hz, in the driver's order */
    for (s = skip_blanks(s); *s; s = skip_blanks(end)) {
        if (field_u64(s, &v, &end) < 0 || v == 0 || v > MAX_HZ ||
            (*end && !isspace((unsigned char)*end)))
            return -1;
        if (v > best)
            best = v;
    }
    if (best == 0)
        return -1;
    *top = best;
    return 0;
}

/* The next line of text after *s, NULL at the end. */
static const char *next_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? nl + 1 : NULL;
}

/* One row "*  400000000:  0  3  ...  12345": its frequency, how many
 * numbers follow the colon (the counts and the time) and the last (ms). */
static int trans_row(const char *line, uint64_t *hz, size_t *nums, uint64_t *ms)
{
    const char *s = skip_blanks(line), *end;
    uint64_t v = 0;

    if (*s == '*')
        s++;
    if (field_u64(s, hz, &end) < 0 || *end != ':' || *hz == 0 || *hz > MAX_HZ)
        return -1;
    *nums = 0;
    for (s = end + 1; *s != '\n' && *skip_blanks(s) && field_u64(s, &v, &end) == 0; s = end)
        ++*nums;
    *ms = v;
    return *nums ? 0 : -1;
}

int gt_clk_parse_trans_stat(const char *text, uint64_t *hz, uint64_t *ms, size_t max,
                            size_t *n)
{
    const char *line = next_line(text);
    size_t rows = 0, nums, first = 0;

    /* drivers/devfreq/devfreq.c trans_stat_show: "     From  :   To",
     * "           :" and the frequency table ("%10lu" each: from 1 GHz on
     * the columns run together, so the rows are what is read), "
     * time(ms)", then per frequency "%10lu:" ('*' marks the current one),
     * the transition counts and the time in ms, then "Total transition :
     * N". A device without a table prints "Not Supported." */
    if (!line || strncmp(skip_blanks(text), "From", 4) != 0)
        return -1;
    for (line = next_line(line); line && *line && strncmp(line, "Total", 5) != 0;
         line = next_line(line)) {
        if (rows >= max || trans_row(line, &hz[rows], &nums, &ms[rows]) < 0)
            return -1;
        if (rows == 0)
            first = nums;
        if (nums != first)
            return -1;
        rows++;
    }
    /* a count per frequency, then the time */
    if (rows == 0 || rows + 1 != first)
        return -1;
    *n = rows;
    return 0;
}

int gt_clk_parse_policy(const char *text, char *out, size_t len)
{
    const char *open = strchr(text, '['), *close;
    size_t n;

    /* kbase power_policy lists the policies with the current one in [] */
    if (!open || !(close = strchr(open, ']')))
        return -1;
    n = (size_t)(close - open - 1);
    if (n == 0 || n >= len)
        return -1;
    memcpy(out, open + 1, n);
    out[n] = '\0';
    return 0;
}

int gt_clk_parse_core_mask(const char *text, uint64_t *mask)
{
    const char *s = strstr(text, "0x");
    char *e;

    /* kbase core_mask: "Current core mask : 0xF" (job manager: also per
     * job slot, "(JS0)") then "Available core mask : 0xF"; the first
     * mask is the one in use. Some versions print the bare mask. */
    if (!s)
        s = strstr(text, "0X");
    if (!s || !isxdigit((unsigned char)s[2]))
        return -1;
    errno = 0;
    *mask = strtoull(s + 2, &e, 16);
    if (errno || *mask == 0)
        return -1;
    return 0;
}

static int names_gpu(const char *rail, size_t n)
{
    char up[64];
    size_t i;

    if (n >= sizeof(up))
        n = sizeof(up) - 1;
    for (i = 0; i < n; i++)
        up[i] = (char)toupper((unsigned char)rail[i]);
    up[n] = '\0';
    return strstr(up, "GPU") || strstr(up, "G3D");
}

int gt_clk_parse_odpm(const char *text, uint64_t *uws, uint64_t *ms)
{
    const char *line, *open, *close, *end;
    uint64_t t, e, sum = 0;
    int found = 0;

    /* Android's ODPM energy meter (an iio device's energy_value): a line
     * "t=<ms>", then per channel "CH<n>(T=<ms>)[<rail>], <uWs>". */
    if (strncmp(text, "t=", 2) != 0 || field_u64(text + 2, &t, &end) < 0)
        return -1;
    for (line = next_line(text); line && *line; line = next_line(line)) {
        open = strchr(line, '[');
        close = open ? strchr(open, ']') : NULL;
        if (!close || close[1] != ',' || field_u64(close + 2, &e, &end) < 0)
            return -1;
        if (names_gpu(open + 1, (size_t)(close - open - 1))) {
            sum += e;
            found = 1;
        }
    }
    if (!found)
        return -1;
    *uws = sum;
    *ms = t;
    return 0;
}
