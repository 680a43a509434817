/* libFuzzer target: random access into capture files (gputop-capture(5)),
 * the complement of fuzz_capture's sequential read: gt_capture_index, then
 * gt_capture_seek to input-chosen records (the count itself and past it
 * included) with a read after each; then the replay source (speed=max)
 * driven by input commands: index, pause, resume, steps, seeks, samples.
 * Input: one byte n, n commands of 3 bytes (what, then a 16-bit record
 * number or step), then the capture file. HOLD is never sent: a held
 * replay at its end waits for a command by design, and this harness has
 * no second thread to send one. */
#include "fuzz_common.h"
#include "gputop/capture.h"
#include "gputop/snapshot.h"
#include "gputop/source.h"

#define MAX_CMDS 16

struct cmd {
    uint8_t what;
    int64_t arg;
};

static void seek_and_read(const char *path, const struct cmd *c, size_t nc)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
    struct gt_capture_reader *r;
    struct gt_diag d;
    uint64_t count = 0;

    memset(&info, 0, sizeof(info));
    gt_catalog_init(&cat);
    gt_diag_clear(&d);
    r = gt_capture_open(path, &info, &cat, &d);
    if (!r) {
        gt_catalog_free(&cat);
        return;
    }
    if (gt_snapshot_init(&s, cat.nslots) == 0) {
        gt_capture_index(r, &count, &d);
        for (size_t i = 0; i < nc; i++) {
            /* Around the count: the ends are where mistakes live. */
            uint64_t k = c[i].what & 1 ? count + (uint64_t)(c[i].arg & 3) - 1
                                       : (uint64_t)c[i].arg;
            if (gt_capture_seek(r, k, &d) == 0 && k > count)
                abort();      /* past the end accepted */
            gt_capture_read(r, &s, &d);
            gt_capture_read(r, &s, &d);
        }
        gt_snapshot_free(&s);
    }
    gt_capture_close(r);
    gt_catalog_free(&cat);
}

/* Commands as a view sends them; a sample is never asked for while the
 * replay is paused with nothing to deliver (it would wait for ever). */
static void replay(const char *path, const struct cmd *c, size_t nc)
{
    char spec[256];
    struct gt_diag d;
    struct gt_source *s;
    struct gt_snapshot snap;
    int paused = 0, pending = 0;

    snprintf(spec, sizeof(spec), "replay:%s,speed=max", path);
    gt_diag_clear(&d);
    s = gt_source_open(spec, gt_sys_real(), &d);
    if (!s)
        return;
    if (s->type->start(s, &d) < 0 || gt_snapshot_init(&snap, s->catalog.nslots) < 0) {
        gt_source_close(s);
        return;
    }
    for (size_t i = 0; i < nc; i++) {
        struct gt_source_position pos;
        int r = 0;
        switch (c[i].what % 6) {
        case 0: s->type->playback->control(s, GT_PLAYBACK_PAUSE, 0); paused = 1; break;
        case 1: s->type->playback->control(s, GT_PLAYBACK_RESUME, 0); paused = 0; break;
        case 2: s->type->playback->control(s, GT_PLAYBACK_INDEX, 0); break;
        case 3:
            paused = 1;
            pending |= s->type->playback->control(s, GT_PLAYBACK_STEP, c[i].arg & 1 ? 1 : -1) == 0;
            break;
        case 4: pending |= s->type->playback->control(s, GT_PLAYBACK_SEEK, c[i].arg - 8) == 0; break;
        default:
            if (paused && !pending) {
                s->type->playback->control(s, GT_PLAYBACK_RESUME, 0);
                paused = 0;
            }
            gt_snapshot_zero(&snap);
            r = s->type->sample(s, &snap, &d);
            pending = 0;
            s->type->playback->position(s, &snap, &pos);
            break;
        }
        if (r == 1)
            break;
    }
    s->type->playback->control(s, GT_PLAYBACK_INTERRUPT, 0);
    gt_snapshot_free(&snap);
    gt_source_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cmd c[MAX_CMDS];
    size_t nc, at = 1;
    const char *path;

    if (size < 1)
        return 0;
    nc = data[0] % (MAX_CMDS + 1);
    for (size_t i = 0; i < nc; i++, at += 3) {
        c[i].what = at < size ? data[at] : 5;
        c[i].arg = (at + 2 < size) ? (int64_t)(data[at + 1] << 8 | data[at + 2]) : 0;
    }
    path = fuzz_file(at < size ? data + at : data, at < size ? size - at : 0, ".gtcap");
    seek_and_read(path, c, nc);
    replay(path, c, nc);
    return 0;
}
