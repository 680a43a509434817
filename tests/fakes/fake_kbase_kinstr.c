/* The fake kbase kernel's kinstr_prfcnt: ENUM_INFO, SETUP and the reader
 * fd, arguments at the byte offsets of the kernel's UAPI headers. */
#include "fakes/fake_kbase_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- kinstr_prfcnt setup ---- */

static void enum_item(uint8_t *it, unsigned type, unsigned a, unsigned b, unsigned c)
{
    memset(it, 0, ITEM_SIZE);
    put(it, 0, 2, type);
    if (type == 0x0000) {            /* block: type, set, instances, values, mask */
        put(it, 8, 1, a);
        put(it, 12, 2, b);
        put(it, 14, 2, c);
        put(it, 16, 8, ~0ull);
        put(it, 24, 8, c > 64 ? ~0ull : 0);
    } else if (type == 0x0001) {     /* request: kind, versions mask */
        put(it, 8, 2, a);
        put(it, 12, 4, 1);
    } else if (type == 0x0002) {
        put(it, 8, 4, a);            /* clock domains */
    }
}

int fkp_enum_info(struct fake_kbase *fk, struct file *f, void *arg)
{
    const unsigned count = 8;
    uint64_t ptr = get(arg, 8, 8);
    uint8_t *l;
    int b;

    fk->st.enum_infos++;
    if (!fkp_has_kinstr(fk))
        return fail(ENOTTY);
    if (!ptr) {
        put(arg, 0, 4, ITEM_SIZE);
        put(arg, 4, 4, count);
        return 0;
    }
    if (get(arg, 0, 4) != ITEM_SIZE || get(arg, 4, 4) != count)
        return fkp_protocol(fk, EINVAL, "ENUM_INFO with %u items of %u bytes",
                        (unsigned)get(arg, 4, 4), (unsigned)get(arg, 0, 4));
    l = (uint8_t *)(uintptr_t)ptr;
    enum_item(l, 0x0001, 0, 0, 0);
    enum_item(l + ITEM_SIZE, 0x0001, 1, 0, 0);
    enum_item(l + 2 * ITEM_SIZE, 0x0002, 2, 0, 0);
    for (b = 0; b < 4; b++)
        enum_item(l + (3 + b) * ITEM_SIZE, 0x0000, (unsigned)b, fkp_enum_instances(fk, b),
                  fk->nvalues);
    memset(l + 7 * ITEM_SIZE, 0, ITEM_SIZE);
    f->enum_done = 1;
    return 0;
}

/* Sample slot: metadata items, then the values, the shader blocks first
 * so that a client assuming the kernel's block order reads wrong data. */
static size_t md_items(const struct fake_kbase *fk)
{
    return 2 + 2 + fk->slices + fk->cores + 1;
}

int fkp_kinstr_setup(struct fake_kbase *fk, struct file *dev, void *arg)
{
    uint32_t count = (uint32_t)get(arg, 0, 4), size = (uint32_t)get(arg, 4, 4);
    const uint8_t *req = (const uint8_t *)(uintptr_t)get(arg, 8, 8);
    uint64_t mask[4][2];
    int mode = -1, enables = 0, fd;
    uint64_t period = 0;
    uint32_t i;
    struct file *r;

    fk->st.kinstr_setups++;
    if (!fkp_has_kinstr(fk))
        return fail(ENOTTY);
    if (!dev->enum_done)
        return fkp_protocol(fk, EINVAL, "KINSTR_PRFCNT_SETUP before ENUM_INFO");
    if (count < 2 || count > 16 || size != ITEM_SIZE || !req)
        return fkp_protocol(fk, EINVAL, "SETUP with %u items of %u bytes", count, size);
    memset(mask, 0, sizeof(mask));
    for (i = 0; i + 1 < count; i++) {
        const uint8_t *it = req + (size_t)i * ITEM_SIZE;
        unsigned type = (unsigned)get(it, 0, 2);
        if (type == 0x1000) {
            mode = (int)get(it, 8, 1);
            period = get(it, 16, 8);
            /* mali_kbase_kinstr_prfcnt.c, kbasep_kinstr_prfcnt_parse_request_mode:
             * a periodic request with period 0 is refused with EINVAL
             * (a real kernel's answer, not a protocol error of the client's) */
            if (mode == 1 && period == 0)
                return fail(EINVAL);
        } else if (type == 0x1001) {
            unsigned bt = (unsigned)get(it, 8, 1);
            if (bt > 3 || get(it, 9, 1) != 0)
                return fkp_protocol(fk, EINVAL, "ENABLE for block type %u set %u", bt,
                                (unsigned)get(it, 9, 1));
            mask[bt][0] |= get(it, 16, 8);
            mask[bt][1] |= get(it, 24, 8);
            enables++;
        } else if (type != 0x1002) {
            return fkp_protocol(fk, EINVAL, "request item %u has type 0x%04x", i, type);
        }
    }
    if (get(req + (size_t)(count - 1) * ITEM_SIZE, 0, 4) != 0)
        return fkp_protocol(fk, EINVAL, "request list without its sentinel");
    if (mode < 0 || !enables)
        return fkp_protocol(fk, EINVAL, "SETUP needs a MODE and an ENABLE item");
    fd = fkp_new_file(fk, F_KINSTR);
    if (fd < 0)
        return -1;
    r = fkp_file_of(fk, fd);
    if (!r)
        return fail(EBADF);
    memcpy(r->mask, mask, sizeof(mask));
    memcpy(fk->st.kinstr_mask, mask, sizeof(mask));
    r->periodic = mode == 1;
    /* ... and one under DUMP_INTERVAL_MIN_NS (100 us) is raised to it */
    r->period = r->periodic ? fkp_period_of(period) : 0;
    if (r->periodic)
        fk->st.period = r->period;
    r->slot_size = md_items(fk) * MD_SIZE + (size_t)(2 + fk->slices + fk->cores) * fk->nvalues * 8;
    r->buf_len = RING * r->slot_size;
    r->buf = calloc(1, r->buf_len);
    put(arg, 0, 4, MD_SIZE);
    put(arg, 4, 4, r->buf_len);
    return fd;
}

/* ---- the kinstr reader ---- */

static void md_sample(uint8_t *it, uint64_t start, uint64_t end, uint64_t seq, uint32_t flags)
{
    memset(it, 0, MD_SIZE);
    put(it, 0, 2, 0x2000);
    put(it, 8, 8, start);
    put(it, 16, 8, end);
    put(it, 24, 8, seq);
    put(it, 32, 8, 0x67707574ull);
    put(it, 40, 4, flags);
}

void fkp_kinstr_write(struct fake_kbase *fk, struct file *r, uint64_t ticks, uint32_t flags)
{
    size_t slot = (size_t)(r->write_seq % RING) * r->slot_size, vals;
    uint8_t *s = r->buf + slot, *it = s;
    static const int order[4] = { FK_SHADER, FK_MEMSYS, FK_TILER, FK_FE };
    unsigned inst, k;
    int o;

    memset(s, 0, r->slot_size);
    md_sample(it, r->last_ts, fk->now, r->write_seq, flags);
    r->last_ts = fk->now;
    it += MD_SIZE;
    put(it, 0, 2, 0x2001);
    put(it, 8, 4, 2);
    put(it, 16, 8, fk->cyc_top);
    put(it, 24, 8, fk->cyc_shader);
    it += MD_SIZE;
    vals = slot + md_items(fk) * MD_SIZE;
    for (o = 0; o < 4; o++) {
        int b = order[o];
        for (inst = 0; inst < fkp_instances(fk, b); inst++) {
            unsigned idx = b == FK_SHADER && fkp_physical_idx(fk) ? (unsigned)fkp_phys_of(fk, inst) : inst;
            uint32_t state = fk->state[b][inst] ? fk->state[b][inst] : 1u | 4u | 16u;
            put(it, 0, 2, 0x2002);
            put(it, 8, 1, (unsigned)b);
            put(it, 9, 1, idx);
            put(it, 12, 4, fkp_state_defined(fk) || fk->cfg.stale_state ? state : 0);
            put(it, 16, 4, vals);
            /* the slot was zeroed: only counters with a value are
             * written (at 1 kHz the fake is most of the process's work) */
            for (k = 4; k < fk->nvalues; k++) {
                uint64_t v = fkp_value(fk, r->mask[b], b, inst, k) * ticks;
                if (v)
                    put(r->buf, vals + 8 * k, 8, v);
            }
            vals += (size_t)fk->nvalues * 8;
            it += MD_SIZE;
        }
    }
    r->write_seq++;
    r->pending++;
}

static int kinstr_cmd(struct fake_kbase *fk, struct file *r, void *arg)
{
    unsigned cmd = (unsigned)get(arg, 0, 2);

    switch (cmd) {
    case 1:
        if (r->started)
            return 0;                 /* the kernel ignores a second START */
        r->started = 1;
        r->last_ts = fk->now;
        fk->st.started++;
        /* kbasep_kinstr_prfcnt_client_start: periodic dumps from the next
         * multiple of the period (kbasep_kinstr_prfcnt_next_dump_time_ns) */
        if (r->periodic) {
            r->next_tick = fkp_first_tick(fk->now, r->period);
            fkp_schedule_changed(fk);
        }
        return 0;
    case 2:
        if (!r->started)
            return fkp_protocol(fk, EINVAL, "STOP before START");
        r->started = 0;
        r->next_tick = 0;
        fk->st.stopped++;
        if (!r->periodic)
            fkp_manual_step(fk);
        /* the known bugs (fixed in 11.37 / 1.17): a full ring left no room
         * for the STOP sample; and stopping periodic sampling raced the
         * periodic dump, so the STOP sample came out empty and flagged
         * ERROR (bit 30), its counts lost */
        if (fkp_buggy(fk) && r->pending >= RING - 1)
            return 0;
        if (fkp_buggy(fk) && r->periodic) {
            fkp_kinstr_write(fk, r, 0, 1u << 30);
            return 0;
        }
        /* the implicit STOP sample: what was counted since the last one,
         * ticks that found the ring full included; the ring keeps a
         * buffer for it (mali_kbase_kinstr_prfcnt.c) */
        fkp_kinstr_write(fk, r, r->owed + 1, r->sample_flags);
        r->owed = 0;
        r->sample_flags = 0;
        return 0;
    case 3:
        if (!r->started || r->periodic)
            return fkp_protocol(fk, EINVAL, "SAMPLE_SYNC while %s",
                            r->periodic ? "periodic" : "stopped");
        if (r->pending >= RING - 1)
            return fail(EBUSY);
        fkp_manual_step(fk);
        fkp_kinstr_write(fk, r, 1, 0);
        fk->st.dumps++;
        return 0;
    case 5:
        r->read_seq += (uint64_t)r->pending;
        r->pending = 0;
        return 0;
    default:
        return fkp_protocol(fk, EINVAL, "control command %u", cmd);
    }
}

int fkp_kinstr_ioctl(struct fake_kbase *fk, struct file *r, unsigned long req, void *arg)
{
    switch (req) {
    case 0x4010BF00ul:
        return kinstr_cmd(fk, r, arg);
    case 0x8010BF01ul:
        fk->st.gets++;
        if (r->kheld)
            return fkp_protocol(fk, EBUSY, "GET_SAMPLE before the previous PUT_SAMPLE");
        if (!r->pending)
            return fail(EINVAL);
        put(arg, 0, 8, r->read_seq);
        put(arg, 8, 8, (uint64_t)(r->read_seq % RING) * r->slot_size);
        r->kheld = 1;
        return 0;
    case 0x4010BF10ul:
        fk->st.puts++;
        if (!r->kheld || get(arg, 0, 8) != r->read_seq ||
            get(arg, 8, 8) != (r->read_seq % RING) * r->slot_size)
            return fkp_protocol(fk, EINVAL, "PUT_SAMPLE of sequence %llu",
                            (unsigned long long)get(arg, 0, 8));
        r->kheld = 0;
        r->read_seq++;
        r->pending--;
        return 0;
    default:
        return fail(ENOTTY);
    }
}
