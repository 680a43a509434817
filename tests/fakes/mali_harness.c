/* The Mali test harness: the real source, layout and engine opened on the
 * fake kbase kernel, one sample at a time; --probe into a string; and the
 * gputop-fake binary run as a user would. */
#include "fakes/mali_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/source_rig.h"

#include "gputop/cli.h"


struct fake_kbase *fake(enum fk_gpu gpu, enum fk_api api, unsigned major, unsigned minor)
{
    struct fk_config c;
    struct fake_kbase *fk;

    memset(&c, 0, sizeof(c));
    c.gpu = gpu;
    c.api = api;
    c.major = major;
    c.minor = minor;
    c.new_gate = 1;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    return fk;
}

/* Opens the source on fk, loads its layout, enables what it reads, starts. */
void kb_start(struct kb *t, struct fake_kbase *fk, const char *spec)
{
    memset(t, 0, sizeof(*t));
    t->fk = fk;
    t->s = gt_source_open(spec, fk_sys(fk), &t->d);
    cr_assert_not_null(t->s, "%s: %s", spec, t->d.msg);
    t->l = gt_layout_load_for(t->s->info.layout, &t->s->catalog, &t->d);
    cr_assert_not_null(t->l, "%s", t->d.msg);
    rig_bind(t->s, t->l, &t->e, &t->snap, &t->d);
}

/* One sample; returns the source's result (0, 2 warning, -1 error). */
int kb_sample(struct kb *t)
{
    return rig_sample(t->s, &t->snap, &t->d);
}

double kb_metric(struct kb *t, const char *ref)
{
    int m = gt_layout_find_metric(t->l, ref);

    cr_assert_geq(m, 0, "no metric %s", ref);
    gt_engine_eval(t->e, &t->snap, t->out);
    return t->out[m];
}

uint64_t kb_counter(struct kb *t, const char *name, uint32_t inst)
{
    return rig_counter(t->s, &t->snap, name, inst);
}

void kb_stop(struct kb *t)
{
    const struct fk_stats *st;

    gt_snapshot_free(&t->snap);
    gt_engine_free(t->e);
    gt_layout_free(t->l);
    gt_source_close(t->s);
    st = fk_stats(t->fk);
    cr_expect_eq(st->open_fds, 0, "file descriptors left open: %d", st->open_fds);
    cr_expect_eq(st->mapped, 0, "mappings left: %d", st->mapped);
    cr_expect_eq(st->protocol_errors, 0, "protocol errors: %s", st->last_error);
    fk_free(t->fk);
}

const char *open_error(struct fake_kbase *fk, const char *spec, struct gt_diag *d)
{
    struct gt_source *s = gt_source_open(spec, fk_sys(fk), d);

    cr_assert_null(s, "%s opened, but should have failed", spec);
    return d->msg;
}


char *probe(struct fake_kbase *fk, int *status)
{
    struct gt_options o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    memset(&o, 0, sizeof(o));
    *status = gt_cmd_probe(&o, fk_sys(fk), f);
    fclose(f);
    return buf;
}

const char *fake_bin(void)
{
    const char *b = getenv("GPUTOP_FAKE_BIN");

    return b ? b : "build/native/tests/gputop-fake";
}

char *run(const char *args, int *status)
{
    char cmd[1024], *buf = NULL;
    size_t len = 0, n;
    char chunk[4096];
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s %s 2>&1", fake_bin(), args);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    *status = pclose(p);
    fclose(m);
    return buf;
}

