/* Times given on the command line or typed in the dashboard: one parser for
 * every option, so "-i 100ms" and "-d 10s" read alike. */
#ifndef GPUTOP_DURATION_H
#define GPUTOP_DURATION_H

#include <stddef.h>
#include <stdint.h>

#define GT_NS_PER_MS 1000000ull
#define GT_NS_PER_S  1000000000ull

/* Parses a decimal number with an optional unit, ns, us, ms, s, m or min,
 * h or d ("100ms", "0.5s", "2m", "1h"); a bare number is in units of bare_unit_ns, which
 * keeps each option's old meaning. Returns 0 with *ns set (rounded to the
 * nearest nanosecond), or -1 when the text is not a duration (no number,
 * an unknown unit, negative, or beyond 2^63 ns). */
int gt_parse_duration(const char *text, uint64_t bare_unit_ns, uint64_t *ns);

/* "1ms", "10s", "500us", "2m", "1h": the shortest exact spelling of ns, for
 * messages that state a range in the units the user types. */
void gt_format_duration(char *buf, size_t len, uint64_t ns);

#endif
