/* The csv source's fields: comma-separated, blanks trimmed, quotes as
 * spreadsheets write them removed; unsigned decimal numbers. */
#ifndef GPUTOP_CSV_FIELDS_H
#define GPUTOP_CSV_FIELDS_H

#include <stddef.h>
#include <stdint.h>

struct field {
    const char *p;
    size_t len;
    size_t col;      /* 1-based */
    const char *bad; /* why the field is malformed (a quote left open), or NULL */
};

/* Steps through the fields of p[0..len); 0 after the last one. *pos
 * starts at 0. A field's quote left open is in f->bad. */
int gt_csv_next_field(const char *p, size_t len, size_t *pos, struct field *f);
/* Fields on the line (commas outside quotes, plus one). */
size_t gt_csv_count_fields(const char *p, size_t len);
/* An unsigned decimal up to 2^64-1: NULL, or why the field is not one. */
const char *gt_csv_parse_u64(const struct field *f, uint64_t *v);

/* Longest counter name a header may hold. */
#define GT_CSV_MAX_NAME 255
/* Edit distance between two names, letters' case ignored, for suggesting
 * the closest known name; SIZE_MAX when one is longer than GT_CSV_MAX_NAME. */
size_t gt_csv_distance(const char *a, const char *b);

/* csv_values.c: gputop's own CSV read back. 1 when path's header starts
 * "time_s," (gputop wrote it); the csv source then hands it this type. */
struct gt_source_type;
extern const struct gt_source_type gt_source_csv_values;
int gt_csv_values_file(const char *path);

#endif
