/* Prometheus metric names from a layout's section, title and unit, so a
 * dashboard's queries keep working from one gputop version to the next. */
#include "gputop/export.h"
#include "gputop/text.h"

#include <ctype.h>
#include <string.h>

/* s in snake case appended to t: letters lowered, digits kept, "%" as
 * "percent", anything else a single '_' between words; in a unit (per
 * set) "/" is "per" ("bytes/cycle"), in a title it joins words
 * ("Load/store"). */
static void add_snake(struct gt_text *t, const char *s, int per)
{
    int gap = t->len > 0;

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *word = c == '%' ? "percent" : c == '/' && per ? "per" : NULL;
        if (!word && !isalnum(c)) {
            gap = t->len > 0;
            continue;
        }
        if ((gap || word) && t->len && t->p[t->len - 1] != '_')
            gt_text_add(t, "_");
        gap = 0;
        if (word) {
            gt_text_add(t, word);
            gap = 1;
            continue;
        }
        char one[2] = { (char)tolower(c), '\0' };
        gt_text_add(t, one);
    }
}

void gt_snake_case(char *buf, size_t len, const char *text)
{
    struct gt_text t;

    gt_text_init(&t, buf, len);
    add_snake(&t, text, 0);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);

    return m && n >= m && strcmp(s + n - m, tail) == 0 && (n == m || s[n - m - 1] == '_');
}

void gt_prom_name(char *buf, size_t len, const char *section, const char *title,
                  const char *unit, int counter)
{
    struct gt_text t;
    char u[64];
    struct gt_text ut;

    gt_text_init(&t, buf, len);
    gt_text_add(&t, "gputop");
    add_snake(&t, section, 0);
    add_snake(&t, title, 0);
    gt_text_init(&ut, u, sizeof(u));
    add_snake(&ut, unit ? unit : "", 1);
    if (u[0] && !ends_with(buf, u)) {
        gt_text_add(&t, "_");
        gt_text_add(&t, u);
    }
    if (counter && !ends_with(buf, "total"))
        gt_text_add(&t, "_total");
}
