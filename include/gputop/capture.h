/* Capture files: a source's description, counter catalogue and raw deltas
 * recorded sample by sample, in the portable format of gputop-capture(5). */
#ifndef GPUTOP_CAPTURE_H
#define GPUTOP_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/catalog.h"
#include "gputop/diag.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#define GT_CAPTURE_VERSION      1        /* newest format version written and read */
#define GT_CAPTURE_MAX_COUNTERS 65536
#define GT_CAPTURE_MAX_SLOTS    (1u << 20)
#define GT_CAPTURE_MAX_NAME     255      /* bytes in a counter, block or hardware name */

struct gt_capture_writer;
struct gt_capture_reader;

/* Creates (truncates) path and writes the file header and the header record
 * describing info and cat. NULL with d set (naming path) on an error,
 * including a catalogue the format cannot hold. */
struct gt_capture_writer *gt_capture_create(const char *path, const struct gt_source_info *info,
                                            const struct gt_catalog *cat, struct gt_diag *d);
/* Appends one sample record (s->nslots must be at least cat->nslots) and
 * flushes it, so a killed process loses at most the record being written.
 * Returns 0, or -1 with d naming path and the reason (e.g. ENOSPC); after
 * an error every later write fails the same way. */
int  gt_capture_write(struct gt_capture_writer *w, const struct gt_snapshot *s, struct gt_diag *d);
/* Writes the end record (unless a write failed before), flushes, closes
 * and frees w (NULL is fine); -1 with d set if the last bytes could not
 * be written. */
int  gt_capture_finish(struct gt_capture_writer *w, struct gt_diag *d);

/* Opens a capture and reads its header record into info and cat (which
 * must be empty, as left by gt_catalog_init; it is left empty on failure).
 * NULL with d set when the file is not a capture, is of a newer version,
 * or is cut short or corrupt before the first sample record. */
struct gt_capture_reader *gt_capture_open(const char *path, struct gt_source_info *info,
                                          struct gt_catalog *cat, struct gt_diag *d);
/* 0: a record was read into s (s must be gt_snapshot_init'ed with cat->nslots);
 * 1: clean end of file; 2: the file stops mid-record (cut short) — d says at which byte
 * offset and after how many complete records; -1: corrupt record (bad checksum, bad length,
 * bad type) — d names the byte offset. After 2 or -1 every later call
 * returns the same value with the same message. */
int  gt_capture_read(struct gt_capture_reader *r, struct gt_snapshot *s, struct gt_diag *d);
/* After gt_capture_read returned 1: 0 when the file ended with the end
 * record a clean close writes; 1 when it did not (the recording was
 * killed, or the file predates end records), with d naming the file, the
 * whole sample records and the time the last one ends, from the first's
 * start. */
int  gt_capture_unfinished(const struct gt_capture_reader *r, struct gt_diag *d);
void gt_capture_close(struct gt_capture_reader *r);

/* One checking scan of the rest of the file, which keeps the offset of
 * every sample record for gt_capture_seek and then comes back; call it
 * right after gt_capture_open. *count is the number of good sample records
 * (the scan stops at the first damaged one, which later reads reach and
 * report as usual). 0 with d's message saying where the file is damaged
 * or that it has no end record (as gt_capture_unfinished), "" when it
 * ends cleanly; or -1 with d set (a pipe cannot be indexed; out of
 * memory); reading goes on either way. */
int  gt_capture_index(struct gt_capture_reader *r, uint64_t *count, struct gt_diag *d);
/* Makes sample record k (from 0) the next one read; k == count goes to
 * what follows the last good record (the end, or the damage). 0, or -1 with
 * d set when there is no index or k is past count. Clears a sticky result. */
int  gt_capture_seek(struct gt_capture_reader *r, uint64_t k, struct gt_diag *d);

/* Sample records read so far, and the byte offset of the next record. */
uint64_t gt_capture_records(const struct gt_capture_reader *r);
uint64_t gt_capture_offset(const struct gt_capture_reader *r);

/* CRC-32 as in zlib and PNG (reflected polynomial 0xEDB88320): start with
 * crc = 0; feeding the result back in continues a running checksum. */
uint32_t gt_capture_crc32(uint32_t crc, const void *data, size_t len);

#endif
