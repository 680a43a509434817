/* A strict reader of the Prometheus text exposition format 0.0.4, written
 * from the format's description (not from gputop's writer): it fails the
 * test at the first line that a scraper could read differently. */
#include "fakes/exposition.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int valid_name(const char *s, size_t n, int colon)
{
    size_t i;

    if (n == 0 || isdigit((unsigned char)s[0]))
        return 0;
    for (i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || (colon && s[i] == ':')) ||
            (unsigned char)s[i] > 0x7f)
            return 0;
    return 1;
}

int find_family(struct expo *e, const char *name)
{
    int i;

    for (i = 0; i < e->nfam; i++)
        if (strcmp(e->fam[i], name) == 0)
            return i;
    return -1;
}

/* HELP docstrings: only \\ and \n escapes. */
static void check_help(const char *s, int line)
{
    for (; *s; s++)
        if (*s == '\\') {
            cr_assert(s[1] == '\\' || s[1] == 'n', "line %d: bad escape in HELP", line);
            s++;
        }
}

static const char *parse_labels(struct series *se, const char *p, int line)
{
    cr_assert_eq(*p, '{', "line %d", line);
    p++;
    while (*p != '}') {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        char *v;
        int k;
        cr_assert(valid_name(p, n, 0) && strncmp(p, "__", 2) != 0, "line %d: label name", line);
        cr_assert_lt(se->nl, MAXL);
        snprintf(se->key[se->nl], sizeof(se->key[0]), "%.*s", (int)n, p);
        for (k = 0; k < se->nl; k++)
            cr_assert_str_neq(se->key[k], se->key[se->nl], "line %d: label twice", line);
        p += n;
        cr_assert(p[0] == '=' && p[1] == '"', "line %d: label needs =\"", line);
        p += 2;
        v = se->val[se->nl];
        for (; *p != '"'; p++) {
            cr_assert(*p && *p != '\n', "line %d: unterminated label value", line);
            if (*p == '\\') {
                cr_assert(p[1] == '\\' || p[1] == '"' || p[1] == 'n', "line %d: escape", line);
                p++;
                *v++ = *p == 'n' ? '\n' : *p;
            } else {
                *v++ = *p;
            }
        }
        *v = '\0';
        se->nl++;
        p++;
        if (*p == ',')
            p++;
        else
            cr_assert_eq(*p, '}', "line %d: labels", line);
    }
    return p + 1;
}

static double parse_value(const char *p, int line)
{
    char *end;
    double v;

    if (strcmp(p, "NaN") == 0)
        return NAN;
    if (strcmp(p, "+Inf") == 0 || strcmp(p, "-Inf") == 0)
        return p[0] == '+' ? INFINITY : -INFINITY;
    cr_assert(*p && !isspace((unsigned char)*p), "line %d: no value", line);
    v = strtod(p, &end);
    cr_assert(*end == '\0', "line %d: value '%s' (and no timestamps)", line, p);
    return v;
}

static void parse_sample(struct expo *e, char *ln, int line, int open)
{
    struct series *se;
    size_t n = strspn(ln, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
    const char *p;
    size_t i;

    e->s = realloc(e->s, (e->n + 1) * sizeof(*e->s));
    se = &e->s[e->n];
    memset(se, 0, sizeof(*se));
    cr_assert(valid_name(ln, n, 1), "line %d: metric name", line);
    snprintf(se->name, sizeof(se->name), "%.*s", (int)n, ln);
    cr_assert(open >= 0 && strcmp(e->fam[open], se->name) == 0,
              "line %d: %s is not in the family its TYPE line opened", line, se->name);
    p = ln[n] == '{' ? parse_labels(se, ln + n, line) : ln + n;
    cr_assert_eq(*p, ' ', "line %d: one space before the value", line);
    se->v = parse_value(p + 1, line);
    for (i = 0; i < e->n; i++) {
        int same = strcmp(e->s[i].name, se->name) == 0 && e->s[i].nl == se->nl, k;
        for (k = 0; same && k < se->nl; k++)
            same = strcmp(e->s[i].key[k], se->key[k]) == 0 &&
                   strcmp(e->s[i].val[k], se->val[k]) == 0;
        cr_assert(!same, "line %d: series repeated", line);
    }
    e->n++;
}

void parse_expo(struct expo *e, const char *text)
{
    char *copy = strdup(text), *ln, *save = NULL;
    int line = 0, open = -1;

    memset(e, 0, sizeof(*e));
    cr_assert(text[0] && text[strlen(text) - 1] == '\n', "the text ends with a newline");
    cr_assert_null(strstr(text, "\n\n"), "no empty lines");
    cr_assert_null(strchr(text, '\r'));
    for (ln = strtok_r(copy, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        char name[200], type[32];
        int f;
        line++;
        if (strncmp(ln, "# HELP ", 7) == 0) {
            size_t n = strcspn(ln + 7, " ");
            cr_assert(valid_name(ln + 7, n, 1), "line %d", line);
            snprintf(name, sizeof(name), "%.*s", (int)n, ln + 7);
            cr_assert_eq(find_family(e, name), -1, "line %d: HELP after TYPE or twice", line);
            check_help(ln + 7 + n, line);
            cr_assert_lt(e->nfam, 400);
            snprintf(e->fam[e->nfam], sizeof(e->fam[0]), "%s", name);
            e->has_help[e->nfam++] = 1;
            open = -1;
            continue;
        }
        if (strncmp(ln, "# TYPE ", 7) == 0) {
            cr_assert_eq(sscanf(ln + 7, "%199s %31s", name, type), 2, "line %d", line);
            f = find_family(e, name);
            cr_assert(f == e->nfam - 1 && !e->type[f][0], "line %d: TYPE right after HELP", line);
            cr_assert(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0,
                      "line %d: type %s", line, type);
            if (strcmp(type, "counter") == 0)
                cr_assert(strlen(name) > 6 && strcmp(name + strlen(name) - 6, "_total") == 0,
                          "line %d: a counter's name ends in _total", line);
            snprintf(e->type[f], sizeof(e->type[0]), "%s", type);
            open = f;
            continue;
        }
        cr_assert_neq(ln[0], '#', "line %d: an unexpected comment", line);
        parse_sample(e, ln, line, open);
    }
    free(copy);
}

const struct series *find_series(const struct expo *e, const char *name,
                                        const char *key, const char *val)
{
    size_t i;
    int k;

    for (i = 0; i < e->n; i++) {
        if (strcmp(e->s[i].name, name) != 0)
            continue;
        if (!key)
            return &e->s[i];
        for (k = 0; k < e->s[i].nl; k++)
            if (strcmp(e->s[i].key[k], key) == 0 && strcmp(e->s[i].val[k], val) == 0)
                return &e->s[i];
    }
    return NULL;
}

const char *label_of(const struct series *s, const char *key)
{
    int k;

    for (k = 0; k < s->nl; k++)
        if (strcmp(s->key[k], key) == 0)
            return s->val[k];
    return NULL;
}

