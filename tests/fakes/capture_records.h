/* Finding records in a capture file by its framing alone (gputop-capture(5)),
 * so that a test can cut or damage the record it means. */
#ifndef GPUTOP_TEST_CAPTURE_RECORDS_H
#define GPUTOP_TEST_CAPTURE_RECORDS_H

/* Where the k-th sample record (type 2, from 1) of the capture at path
 * starts and how long its payload is; 0, or -1 when it has fewer. */
int capture_sample_record(const char *path, int k, long *offset, long *payload);
/* Cuts the capture right after its n-th sample record and closes it with
 * an end record, as a recording of exactly n would: one asked for -n n
 * holds n records or more (the sampler may take one more round before it
 * is stopped, and rounds the reader merged are each recorded). 0, or -1
 * when it has fewer than n. */
int capture_keep_samples(const char *path, int n);

#endif
