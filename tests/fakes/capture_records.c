/* Finding records in a capture file by its framing alone: a 12-byte file
 * header, then records of u32 payload length L (little-endian), u8 type,
 * L payload bytes and a u32 CRC-32 (gputop-capture(5), "Records"). */
#include "capture_records.h"
#include "gputop/capture.h"

#include <stdint.h>
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

/* The end record a clean close writes: u32 length 8, type 0x80, the u64
 * count of sample records, and the CRC-32 of those 13 bytes
 * (gputop-capture(5), "End record"). */
static int append_end(const char *path, int n)
{
    unsigned char rec[17] = { 8, 0, 0, 0, 0x80 };
    uint32_t crc;
    FILE *f;
    int i, bad;

    for (i = 0; i < 8; i++)
        rec[5 + i] = (unsigned char)((uint64_t)n >> (8 * i));
    crc = gt_capture_crc32(0, rec, 13);
    for (i = 0; i < 4; i++)
        rec[13 + i] = (unsigned char)(crc >> (8 * i));
    f = fopen(path, "ab");
    if (!f)
        return -1;
    bad = fwrite(rec, 1, sizeof(rec), f) != sizeof(rec);
    return fclose(f) != 0 || bad ? -1 : 0;
}

int capture_keep_samples(const char *path, int n)
{
    long offset, payload;

    if (capture_sample_record(path, n, &offset, &payload) < 0 ||
        truncate(path, offset + 9 + payload) < 0)
        return -1;
    return append_end(path, n);
}
