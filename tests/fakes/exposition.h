/* A strict reader of the Prometheus text exposition format 0.0.4 for the
 * export tests: HELP and TYPE before a family's samples, samples of a
 * family together, names, label escapes and values as the format has them,
 * counters named ..._total, no series twice. */
#ifndef GPUTOP_TEST_EXPOSITION_H
#define GPUTOP_TEST_EXPOSITION_H

#include <stddef.h>

#define MAXL 8
struct series {
    char name[200];
    char key[MAXL][64], val[MAXL][256];
    int nl;
    double v;
};

struct expo {
    struct series *s;
    size_t n;
    char fam[400][200], type[400][32];
    int has_help[400], nfam;
};

/* Reads text into e (criterion assertions on anything not strict); free
 * e->s afterwards. */
void parse_expo(struct expo *e, const char *text);
/* The family's index, -1 if none. */
int  find_family(struct expo *e, const char *name);
/* The first series called name (with label key = val, if key); NULL if none. */
const struct series *find_series(const struct expo *e, const char *name,
                                 const char *key, const char *val);
/* The value of a label, NULL if the series has none by that key. */
const char *label_of(const struct series *s, const char *key);

#endif
