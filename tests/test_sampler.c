/* The sampler: no count lost when the reader is slow, deadlines that do
 * not drift, error backoff, interval parsing. */
#include <criterion/criterion.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gputop/sampler.h"

/* A source that emits known deltas and remembers when it was called. */
struct counting {
    uint64_t produced[3];
    uint64_t calls;
    uint64_t *call_ns;
    size_t max_calls;
    int fail_every;       /* fail calls whose index is a multiple of this */
    const char *fail_msg; /* the failure's message; NULL: "device lost" */
    enum gt_err fail_code; /* and its code */
    uint64_t limit;       /* end after this many successful samples (0: never) */
    uint64_t last_ns;
};

static int counting_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    (void)args;
    (void)d;
    gt_catalog_add(&s->catalog, "A", "front-end", GT_COUNTER_DELTA, 1, 1);
    gt_catalog_add(&s->catalog, "B", "shadercore", GT_COUNTER_DELTA, 2, 1);
    return 0;
}

static enum gt_sample_result counting_sample(struct gt_source *s, struct gt_snapshot *out,
                                             struct gt_diag *d)
{
    struct counting *c = s->priv;
    uint64_t now = gt_now_ns(), i = c->calls++;

    if (c->call_ns && i < c->max_calls)
        c->call_ns[i] = now;
    if (c->fail_every && i % (uint64_t)c->fail_every == 0) {
        gt_diag_fail(d, c->fail_code, "%s", c->fail_msg ? c->fail_msg : "device lost");
        return GT_SAMPLE_ERROR;
    }
    if (c->limit && c->produced[0] >= c->limit)
        return GT_SAMPLE_END;
    out->deltas[0] = 1;
    out->deltas[1] = i;
    out->deltas[2] = 1000000007ull * (i + 1);
    c->produced[0] += 1;
    c->produced[1] += i;
    c->produced[2] += 1000000007ull * (i + 1);
    out->t_start_ns = c->last_ns ? c->last_ns : now;
    out->t_end_ns = now;
    c->last_ns = now;
    return GT_SAMPLE_OK;
}

static const struct gt_source_type counting_type = {
    .name = "counting", .help = "test source", .kind = GT_SOURCE_HARDWARE,
    .open = counting_open, .sample = counting_sample,
};

static struct gt_source *make_source(struct counting *c)
{
    struct gt_source *s = calloc(1, sizeof(*s));
    struct gt_diag d;

    s->type = &counting_type;
    s->priv = c;
    gt_catalog_init(&s->catalog);
    counting_open(s, "", &d);
    return s;
}

static void free_source(struct gt_source *s)
{
    gt_catalog_free(&s->catalog);
    free(s);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

Test(sampler, slow_reader_loses_no_counts)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    uint64_t sum[3] = { 0 }, taken_samples = 0;
    struct gt_diag d;
    int i, r;

    c.limit = 400;
    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    for (i = 0; ; i++) {
        r = gt_sampler_take(s, &snap, 2000000000ull);
        if (r < 0)
            break;
        if (r == 0)
            continue;
        sum[0] += snap.deltas[0];
        sum[1] += snap.deltas[1];
        sum[2] += snap.deltas[2];
        taken_samples += snap.nsamples;
        sleep_ms(7);   /* a reader seven times slower than the sampler */
    }
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    cr_assert_eq(sum[0], c.produced[0]);
    cr_assert_eq(sum[1], c.produced[1]);
    cr_assert_eq(sum[2], c.produced[2]);
    cr_assert_eq(c.produced[0], 400);
    cr_assert_eq(taken_samples, 400);
    cr_assert_eq(st.samples, 400);
    cr_assert_gt(st.merged, 0, "the slow reader should have caused merges");
    cr_assert_eq(st.state, GT_SAMPLER_ENDED);
    gt_snapshot_free(&snap);
    free_source(src);
}

Test(sampler, lossless_mode_hands_over_every_sample)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 1, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t rows = 0;
    int r;

    c.limit = 50;
    gt_snapshot_init(&snap, 3);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while ((r = gt_sampler_take(s, &snap, 2000000000ull)) >= 0) {
        if (r == 0)
            continue;
        cr_assert_eq(snap.nsamples, 1);
        cr_assert_eq(snap.deltas[1], rows);
        rows++;
        sleep_ms(2);
    }
    cr_assert_eq(rows, 50);
    gt_sampler_free(s);
    gt_snapshot_free(&snap);
    free_source(src);
}

Test(sampler, deadlines_stay_on_the_grid)
{
    /* 1000 rounds with random processing times, some longer than the
     * interval: every deadline is start + k * interval, never earlier
     * than the end of the round before it, and skips are counted. */
    uint64_t interval = 1000000, start = 5000000000ull, next = start, now, late = 0, k;
    uint64_t seed = 42, expected_late = 0;
    int i;

    for (i = 0; i < 1000; i++) {
        uint64_t work;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        work = (seed >> 33) % (i % 97 == 0 ? 3500000 : 900000);
        now = next + work;
        if (now >= next + interval)
            expected_late += (now - (next + interval)) / interval + 1;
        next = gt_deadline_advance(next, now, interval, &late);
        cr_assert_eq((next - start) % interval, 0, "deadline left the grid at round %d", i);
        cr_assert_gt(next, now);
        cr_assert_leq(next - now, interval);
    }
    k = (next - start) / interval;
    cr_assert_eq(late, expected_late);
    cr_assert_eq(k, 1000 + late, "rounds + skipped deadlines = grid steps");
}

Test(sampler, live_wakeups_are_never_early_and_do_not_drift)
{
    enum { N = 1000 };
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    uint64_t interval = 1000000;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, interval, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s;
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t first, k;
    size_t i;

    c.call_ns = calloc(N + 16, sizeof(uint64_t));
    c.max_calls = N + 16;
    c.limit = N;
    s = gt_sampler_new(&cfg);
    gt_snapshot_init(&snap, 3);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while (gt_sampler_take(s, &snap, 2000000000ull) >= 0)
        ;
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    /* Deadlines are start + k * interval, so N calls span N - 1 grid
     * steps plus the skipped ones, give or take one interval of wake-up
     * lateness. A sampler that slept relative to its last wake-up would
     * add its own overhead to every period and overshoot. */
    first = c.call_ns[0];
    for (i = 1; i < N; i++)
        cr_assert_gt(c.call_ns[i], c.call_ns[i - 1]);
    k = (c.call_ns[N - 1] - first) / interval;
    cr_assert_geq(c.call_ns[N - 1] - first, (N - 2) * interval);
    cr_assert_leq(k, (uint64_t)N + st.late,
                  "span %llu intervals for %d calls and %llu skips: drift",
                  (unsigned long long)k, N, (unsigned long long)st.late);
    gt_snapshot_free(&snap);
    free(c.call_ns);
    free_source(src);
}

Test(sampler, source_errors_are_counted_and_retried)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;
    int got = 0;

    c.fail_every = 3;
    gt_snapshot_init(&snap, 3);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while (got < 20)
        got += gt_sampler_take(s, &snap, 1000000000ull) > 0;
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    cr_assert_gt(st.errors, 0);
    cr_assert_str_eq(st.last_error, "counting: device lost");
    gt_snapshot_free(&snap);
    free_source(src);
}

/* The state line names the source before what it says, and keeps the
 * code the source gave its error. */
Test(sampler, a_source_error_is_named_with_its_code)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;
    int got = 0;

    c.fail_every = 2;
    c.fail_msg = "the block reads all ones";
    c.fail_code = GT_ERR_NODEV;
    gt_snapshot_init(&snap, 3);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while (got < 4)
        got += gt_sampler_take(s, &snap, 1000000000ull) > 0;
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    cr_assert_str_eq(st.last_error, "counting: the block reads all ones");
    cr_assert_eq(st.last_error_code, GT_ERR_NODEV, "%s", gt_err_name(st.last_error_code));
    gt_snapshot_free(&snap);
    free_source(src);
}

/* With spans, only their slots are merged and handed over; a slow reader
 * still loses nothing in them, and a slot outside them is never counted
 * (the source writes it, the sampler neither clears nor merges it). */
Test(sampler, spans_move_only_their_slots)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_span sp = { 1, 2 };
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 0, NULL, NULL, &sp, 1, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_snapshot snap;
    uint64_t sum1 = 0, sum2 = 0;
    struct gt_diag d;
    int r;

    c.limit = 200;
    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while ((r = gt_sampler_take(s, &snap, 2000000000ull)) >= 0) {
        if (r == 0)
            continue;
        cr_assert_leq(snap.deltas[0], 1, "slot 0 (1 a sample) was merged: %llu",
                      (unsigned long long)snap.deltas[0]);
        sum1 += snap.deltas[1];
        sum2 += snap.deltas[2];
        sleep_ms(3);
    }
    gt_sampler_free(s);
    cr_assert_eq(sum1, c.produced[1]);
    cr_assert_eq(sum2, c.produced[2]);
    gt_snapshot_free(&snap);
    free_source(src);
}

/* The wake descriptor turns readable at the first publish after the time
 * asked for, not before. */
Test(sampler, wake_fd_signals_the_first_sample_after_the_time_given)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 10000000, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct pollfd p;
    struct gt_diag d;
    uint64_t asked, v;
    int fd;

    cr_assert_not_null(s);
    fd = gt_sampler_wake_fd(s);
    cr_assert_geq(fd, 0);
    cr_assert_eq(gt_sampler_wake_fd(s), fd, "one descriptor per sampler");
    asked = gt_now_ns() + 55000000ull;
    gt_sampler_wake_after(s, asked);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    p.fd = fd;
    p.events = POLLIN;
    cr_assert_eq(poll(&p, 1, 2000), 1, "never woken");
    cr_assert_geq(gt_now_ns(), asked, "woken before the time asked for");
    cr_assert_eq(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
    cr_assert_eq(poll(&p, 1, 100), 0, "woken again without being asked");
    gt_sampler_free(s);
    free_source(src);
}

/* From a 10 s interval to 10 ms: the next sample comes within about 10 ms,
 * not at the end of the long wait. */
Test(sampler, a_shorter_interval_applies_at_once)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 10000000000ull, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t t0;

    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    sleep_ms(20);
    t0 = gt_now_ns();
    gt_sampler_set_interval(s, 10000000ull);
    cr_assert_eq(gt_sampler_take(s, &snap, 3000000000ull), 1, "no sample within 3 s");
    cr_assert_lt(gt_now_ns() - t0, 3000000000ull);
    t0 = gt_now_ns();
    gt_sampler_free(s);          /* stopping wakes it at once, too */
    cr_assert_lt(gt_now_ns() - t0, 3000000000ull);
    gt_snapshot_free(&snap);
    free_source(src);
}

/* A round in which the source fails is handed over as an interval with no
 * data (its bit in missing, its slots zero), not skipped and not merged
 * into the next good one: the good snapshots carry exactly the counts the
 * source produced, each once. */
Test(sampler, a_failed_round_is_published_as_no_data)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 1, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t sum[3] = { 0 }, good = 0, nodata = 0;
    int r;

    c.fail_every = 3;
    c.limit = 30;
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while ((r = gt_sampler_take(s, &snap, 2000000000ull)) >= 0) {
        if (r == 0)
            continue;
        cr_assert_eq(snap.nsamples, 1, "lossless: one round per snapshot");
        if (snap.missing) {
            cr_assert_eq(snap.missing, 1u);
            cr_assert_eq(snap.deltas[0] + snap.deltas[1] + snap.deltas[2], 0,
                         "a no-data interval carries no counts");
            cr_assert_geq(snap.t_end_ns, snap.t_start_ns);
            nodata++;
            continue;
        }
        sum[0] += snap.deltas[0];
        sum[1] += snap.deltas[1];
        sum[2] += snap.deltas[2];
        good++;
    }
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    cr_assert_eq(sum[0], c.produced[0]);
    cr_assert_eq(sum[1], c.produced[1]);
    cr_assert_eq(sum[2], c.produced[2]);
    cr_assert_eq(good, 30);
    cr_assert_geq(nodata, st.errors, "every failed call is an interval without data");
    cr_assert_gt(st.errors, 0);
    cr_assert_eq(st.samples, good);
    cr_assert_eq(st.nodata, nodata);
    gt_snapshot_free(&snap);
    free_source(src);
}

/* Two sources, the first always failing (a lost GPU beside the CPU
 * source): every snapshot says the first has no data, instead of rows of
 * zeros for it beside the second's good counts. */
Test(sampler, a_failing_source_beside_a_working_one_is_no_data_not_zeros)
{
    struct counting bad = { 0 }, ok = { 0 };
    struct gt_source *src[2] = { make_source(&bad), make_source(&ok) };
    uint32_t off[2] = { 0, 3 };
    struct gt_sampler_config cfg = { src, 2, off, 6, 1000000, 1, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t sum = 0;
    int got = 0;

    bad.fail_every = 1;
    ok.limit = 20;
    cr_assert_eq(gt_snapshot_init(&snap, 6), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while (got < 20) {
        if (gt_sampler_take(s, &snap, 2000000000ull) <= 0)
            continue;
        cr_assert_eq(snap.missing, 1u, "snapshot %d: missing %#x", got, snap.missing);
        cr_assert_eq(snap.deltas[0], 0);
        sum += snap.deltas[3];
        got++;
    }
    gt_sampler_free(s);
    cr_assert_eq(sum, 20, "one count per round from the working source");
    gt_snapshot_free(&snap);
    free_source(src[0]);
    free_source(src[1]);
}

/* A counting source that writes its first two slots every time it gives
 * data; it never writes the third. */
static int partial_sample(struct gt_source *s, struct gt_snapshot *out, struct gt_diag *d)
{
    struct counting *c = s->priv;
    uint64_t i = c->calls++;

    (void)d;
    if (c->limit && c->produced[0] >= c->limit)
        return 1;
    out->deltas[0] = 1;
    out->deltas[1] = i;
    c->produced[0] += 1;
    c->produced[1] += i;
    out->t_start_ns = c->last_ns;
    out->t_end_ns = c->last_ns = gt_now_ns();
    return 0;
}

static const struct gt_source_type partial_type = {
    .name = "partial", .help = "test source", .kind = GT_SOURCE_HARDWARE,
    .open = counting_open, .sample = partial_sample,
};

/* Takes one snapshot into snap after filling it with garbage: its array
 * goes back into the sampler's rotation, so a slot the sampler neither
 * clears nor has written shows the garbage. */
static int take_poisoned(struct gt_sampler *s, struct gt_snapshot *snap)
{
    memset(snap->deltas, 0xA5, (size_t)snap->nslots * sizeof(uint64_t));
    return gt_sampler_take(s, snap, 2000000000ull);
}

/* A round clears the slots before the source writes: those it writes hold
 * its values, the others read zero, whatever the arrays held before. */
Test(sampler, slots_a_source_leaves_unwritten_read_zero)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 1, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t sum = 0;
    int r, got = 0;

    src->type = &partial_type;
    c.limit = 20;
    s = gt_sampler_new(&cfg);
    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while ((r = take_poisoned(s, &snap)) >= 0) {
        if (r == 0)
            continue;
        cr_assert_eq(snap.deltas[0], 1, "round %d: slot 0 %#llx", got,
                     (unsigned long long)snap.deltas[0]);
        cr_assert_eq(snap.deltas[2], 0, "round %d: the unwritten slot holds %#llx", got,
                     (unsigned long long)snap.deltas[2]);
        sum += snap.deltas[1];
        got++;
    }
    gt_sampler_free(s);
    cr_assert_eq(got, 20);
    cr_assert_eq(sum, c.produced[1]);
    gt_snapshot_free(&snap);
    free_source(src);
}

/* A source that has ended writes nothing more: beside one still running,
 * its slots read zero, not what the arrays held. */
Test(sampler, an_ended_source_reads_zero)
{
    struct counting done = { 0 }, runs = { 0 };
    struct gt_source *src[2] = { make_source(&done), make_source(&runs) };
    uint32_t off[2] = { 0, 3 };
    struct gt_sampler_config cfg = { src, 2, off, 6, 1000000, 1, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    uint64_t ones = 0;
    int r, got = 0;

    src[0]->type = &partial_type;
    done.limit = 5;
    runs.limit = 20;
    s = gt_sampler_new(&cfg);
    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, 6), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while ((r = take_poisoned(s, &snap)) >= 0) {
        if (r == 0)
            continue;
        cr_assert_leq(snap.deltas[0], 1, "round %d: slot 0 %#llx", got,
                      (unsigned long long)snap.deltas[0]);
        cr_assert_eq(snap.deltas[2], 0, "round %d: slot 2 %#llx", got,
                     (unsigned long long)snap.deltas[2]);
        if (got >= 5)
            cr_assert_eq(snap.deltas[1], 0, "round %d, after the end: slot 1 %#llx", got,
                         (unsigned long long)snap.deltas[1]);
        ones += snap.deltas[0];
        got++;
    }
    gt_sampler_free(s);
    cr_assert_eq(got, 20);
    cr_assert_eq(ones, 5);
    gt_snapshot_free(&snap);
    free_source(src[0]);
    free_source(src[1]);
}

/* The sampler measures how late each wake-up was against the deadline it
 * slept for: one figure per timed round, quantiles in order, none for a
 * self-paced source (it has no deadlines). */
Test(sampler, wake_up_lateness_is_measured)
{
    struct counting c = { 0 };
    struct gt_source *src = make_source(&c);
    uint32_t off = 0;
    struct gt_sampler_config cfg = { &src, 1, &off, 3, 1000000, 0, NULL, NULL, NULL, 0, 0, 0 };
    struct gt_sampler *s = gt_sampler_new(&cfg);
    struct gt_sampler_stats st;
    struct gt_snapshot snap;
    struct gt_diag d;

    c.limit = 200;
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    while (gt_sampler_take(s, &snap, 2000000000ull) >= 0)
        ;
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    /* 200 samples and the call that said the source ended, each after a
     * timed sleep */
    cr_assert_eq(st.lateness.count, c.calls, "%llu wake-ups measured for %llu rounds",
                 (unsigned long long)st.lateness.count, (unsigned long long)c.calls);
    cr_assert_leq(st.lateness.p50_ns, st.lateness.p99_ns);
    cr_assert_leq(st.lateness.p99_ns, st.lateness.max_ns);
    cr_assert_leq(st.lateness.over_period, st.lateness.count);
    gt_snapshot_free(&snap);
    free_source(src);

    /* self-paced: no deadlines, nothing measured */
    memset(&c, 0, sizeof(c));
    src = make_source(&c);
    src->info.self_paced = 1;
    c.limit = 20;
    s = gt_sampler_new(&cfg);
    cr_assert_eq(gt_sampler_start(s, &d), 0);
    cr_assert_eq(gt_snapshot_init(&snap, 3), 0);
    while (gt_sampler_take(s, &snap, 2000000000ull) >= 0)
        ;
    gt_sampler_get_stats(s, &st);
    gt_sampler_free(s);
    cr_assert_eq(st.lateness.count, 0);
    gt_snapshot_free(&snap);
    free_source(src);
}
