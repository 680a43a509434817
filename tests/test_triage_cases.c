/* The hand-made triage corpus (tests/triage_cases/, issue 26): each CSV is
 * judged by the real binary (gputop --triage -f json --source csv:...) and
 * must get the verdict its .expect file gives, worked out by hand from the
 * guide sentence quoted there (never from gputop's output).
 * .expect keys: args (csv: options), verdict, provisional (yes|no),
 * missing, note / no-note (a side finding present / absent), final (the
 * timeline's last held verdict), next / no-next (text in / not in the
 * verdict's next step), status (exit status, default 0), evidence (a
 * metric the report's evidence holds a value for, "TITLE" or "TITLE = V"
 * with its median within 0.05 of V), no-data (a metric the tree tests
 * that had no value in any interval), guide. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_KEYS 16

struct expect {
    char key[MAX_KEYS][16];
    char val[MAX_KEYS][512];
    size_t n;
};

static void read_expect(const char *path, struct expect *x)
{
    FILE *f = fopen(path, "r");
    char line[1024];

    cr_assert_not_null(f, "%s", path);
    memset(x, 0, sizeof(*x));
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        size_t n = strcspn(line, "\n");
        line[n] = '\0';
        if (line[0] == '#' || !colon || x->n == MAX_KEYS)
            continue;
        *colon = '\0';
        snprintf(x->key[x->n], sizeof(x->key[0]), "%.15s", line);
        snprintf(x->val[x->n], sizeof(x->val[0]), "%.511s", colon + 1 + (colon[1] == ' '));
        x->n++;
    }
    fclose(f);
}

static const char *get(const struct expect *x, const char *key)
{
    size_t i;

    for (i = 0; i < x->n; i++)
        if (strcmp(x->key[i], key) == 0)
            return x->val[i];
    return NULL;
}

static char *run(const char *cmd, int *status)
{
    char *buf = NULL, chunk[4096];
    size_t len = 0, n;
    FILE *p = popen(cmd, "r"), *m = open_memstream(&buf, &len);
    int st;

    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    st = pclose(p);
    fclose(m);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

static const char *str_of(struct json_object *o, const char *key)
{
    struct json_object *v;

    return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

/* "verdict" or "verdict: about" among the side findings. */
static int has_note(struct json_object *j, const char *want, int exact)
{
    struct json_object *a;
    char both[512];
    size_t i;

    cr_assert(json_object_object_get_ex(j, "notes", &a));
    for (i = 0; i < json_object_array_length(a); i++) {
        struct json_object *o = json_object_array_get_idx(a, i);
        const char *v = str_of(o, "verdict"), *about = str_of(o, "about");
        snprintf(both, sizeof(both), "%s: %s", v, about ? about : "");
        if (strcmp(v, want) == 0 || (exact && strcmp(both, want) == 0))
            return 1;
    }
    return 0;
}

static const char *next_of(struct json_object *j, const char *verdict)
{
    struct json_object *a;
    size_t i;

    cr_assert(json_object_object_get_ex(j, "verdicts", &a));
    for (i = 0; i < json_object_array_length(a); i++) {
        struct json_object *o = json_object_array_get_idx(a, i);
        if (strcmp(str_of(o, "verdict"), verdict) == 0)
            return str_of(o, "next");
    }
    return NULL;
}

/* "TITLE" or "TITLE = V": the evidence has a value for TITLE (its median V). */
static int has_evidence(struct json_object *j, const char *want)
{
    struct json_object *a, *o, *med;
    const char *eq = strstr(want, " = ");
    size_t i, n = eq ? (size_t)(eq - want) : strlen(want);

    cr_assert(json_object_object_get_ex(j, "evidence", &a));
    for (i = 0; i < json_object_array_length(a); i++) {
        const char *m;
        o = json_object_array_get_idx(a, i);
        m = str_of(o, "metric");
        if (!m || strlen(m) != n || strncmp(m, want, n) != 0)
            continue;
        if (!eq)
            return 1;
        return json_object_object_get_ex(o, "median", &med) &&
               fabs(json_object_get_double(med) - atof(eq + 3)) <= 0.05;
    }
    return 0;
}

/* The evidence lists TITLE as a metric the tree had no value for. */
static int has_no_data(struct json_object *j, const char *want)
{
    struct json_object *a, *o, *nd;
    size_t i;

    cr_assert(json_object_object_get_ex(j, "evidence", &a));
    for (i = 0; i < json_object_array_length(a); i++) {
        o = json_object_array_get_idx(a, i);
        if (str_of(o, "metric") && strcmp(str_of(o, "metric"), want) == 0)
            return json_object_object_get_ex(o, "no_data", &nd);
    }
    return 0;
}

static void check_case(const char *dir, const char *name)
{
    const char *bin = getenv("GPUTOP_BIN");
    char path[1400], cmd[4096];
    struct json_object *j, *tl;
    struct expect x;
    const char *v, *want;
    char *out;
    int status, prov;

    snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
    read_expect(path, &x);
    cr_assert(get(&x, "verdict") && get(&x, "guide") && get(&x, "args"),
              "%s: needs args, verdict and the guide sentence", name);
    snprintf(cmd, sizeof(cmd), "%s --triage -f json --source csv:%s/%s.csv,%s 2>/dev/null",
             bin && *bin ? bin : "./gputop", dir, name, get(&x, "args"));
    out = run(cmd, &status);
    want = get(&x, "status");
    cr_assert_eq(status, want ? atoi(want) : 0, "%s: exit %d\n%s", name, status, out);
    j = json_tokener_parse(out);
    cr_assert_not_null(j, "%s: %s", name, out);
    v = str_of(j, "verdict");
    cr_assert_str_eq(v, get(&x, "verdict"), "%s (%s): %s", name, get(&x, "guide"), out);
    if ((want = get(&x, "provisional"))) {
        prov = json_object_get_boolean(json_object_object_get(j, "provisional"));
        cr_assert_eq(prov, strcmp(want, "yes") == 0, "%s: provisional %d", name, prov);
    }
    if ((want = get(&x, "missing")))
        cr_assert(str_of(j, "missing") && strcmp(str_of(j, "missing"), want) == 0,
                  "%s: missing '%s', want '%s'", name, str_of(j, "missing"), want);
    if ((want = get(&x, "note")))
        cr_assert(has_note(j, want, 1), "%s: no side finding '%s': %s", name, want, out);
    if ((want = get(&x, "no-note")))
        cr_assert(!has_note(j, want, 0), "%s: side finding '%s': %s", name, want, out);
    if ((want = get(&x, "evidence")))
        cr_assert(has_evidence(j, want), "%s: no evidence '%s': %s", name, want, out);
    if ((want = get(&x, "no-data")))
        cr_assert(has_no_data(j, want), "%s: '%s' not listed without data: %s", name, want, out);
    if ((want = get(&x, "final"))) {
        cr_assert(json_object_object_get_ex(j, "timeline", &tl));
        cr_assert_str_eq(str_of(json_object_array_get_idx(tl, json_object_array_length(tl) - 1),
                                "verdict"), want, "%s: %s", name, out);
    }
    if ((want = get(&x, "next")))
        cr_assert(next_of(j, v) && strstr(next_of(j, v), want), "%s: next '%s'", name,
                  next_of(j, v));
    if ((want = get(&x, "no-next")))
        cr_assert(next_of(j, v) && !strstr(next_of(j, v), want), "%s: next '%s'", name,
                  next_of(j, v));
    json_object_put(j);
    free(out);
}

Test(triage_cases, every_case_gets_its_hand_worked_verdict, .timeout = 120)
{
    const char *src = getenv("GPUTOP_SRC");
    char dir[1024], name[256];
    struct dirent *e;
    DIR *d;
    int n = 0;

    snprintf(dir, sizeof(dir), "%s/tests/triage_cases", src && *src ? src : ".");
    d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".expect") != 0 || len - 7 >= sizeof(name))
            continue;
        memcpy(name, e->d_name, len - 7);
        name[len - 7] = '\0';
        check_case(dir, name);
        n++;
    }
    closedir(d);
    cr_assert_geq(n, 69, "only %d cases in %s", n, dir);
}
