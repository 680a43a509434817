/* Finding records in a capture file by its framing alone: a 12-byte file
 * header, then records of u32 payload length L (little-endian), u8 type,
 * L payload bytes and a u32 CRC-32 (gputop-capture(5), "Records"). */
#include "capture_records.h"

#include <stdio.h>
#include <unistd.h>

#define FILE_HEADER 12
#define SAMPLE_TYPE 2

/* The record at offset: its payload length and type; -1 at the end. */
static int record_at(FILE *f, long offset, long *payload, int *type)
{
    unsigned char h[5];

    if (fseek(f, offset, SEEK_SET) != 0 || fread(h, 1, sizeof(h), f) != sizeof(h))
        return -1;
    *payload = (long)h[0] | (long)h[1] << 8 | (long)h[2] << 16 | (long)h[3] << 24;
    *type = h[4];
    return 0;
}

int capture_sample_record(const char *path, int k, long *offset, long *payload)
{
    FILE *f = fopen(path, "rb");
    long at = FILE_HEADER, len;
    int type, seen = 0;

    if (!f)
        return -1;
    while (record_at(f, at, &len, &type) == 0) {
        if (type == SAMPLE_TYPE && ++seen == k) {
            *offset = at;
            *payload = len;
            fclose(f);
            return 0;
        }
        at += 9 + len;
    }
    fclose(f);
    return -1;
}

int capture_keep_samples(const char *path, int n)
{
    long offset, payload;

    if (capture_sample_record(path, n, &offset, &payload) < 0)
        return -1;
    return truncate(path, offset + 9 + payload);
}
