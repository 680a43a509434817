/* Unpacking the files embed-files packs (the built-in layouts): LZ77 in
 * its simplest form, so the static phone binary carries the layouts at
 * about a quarter of their size for a few dozen bytes of code. */
#include "gputop/embedded.h"

#include <string.h>

long gt_unpack(const unsigned char *in, size_t n, char *out, size_t out_len)
{
    size_t i = 0, o = 0;

    while (i < n) {
        unsigned c = in[i++];
        if (c < 0x80) {
            size_t k = c + 1u;
            if (k > n - i || k > out_len - o)
                return -1;
            memcpy(out + o, in + i, k);
            i += k;
            o += k;
            continue;
        }
        if (n - i < 2)
            return -1;
        size_t len = (c & 0x7fu) + 3u, dist = in[i] | (size_t)in[i + 1] << 8;
        i += 2;
        if (dist == 0 || dist > o || len > out_len - o)
            return -1;
        /* Byte by byte: a copy may overlap the bytes it writes. */
        for (size_t k = 0; k < len; k++, o++)
            out[o] = out[o - dist];
    }
    return (long)o;
}
