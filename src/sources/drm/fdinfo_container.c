/* Which container or service a process runs in, from /proc/PID/cgroup
 * (cgroup v2 "0::/path", else the v1 name=systemd line): the paths the
 * runtimes and systemd make — docker-ID.scope or /docker/ID, podman's
 * libpod-ID.scope, cri-containerd-ID.scope, crio-ID.scope, Kubernetes'
 * kubepods...-podUID.slice or /kubepods/CLASS/podUID, LXC's
 * lxc.payload.NAME or /lxc/NAME — else the innermost .service/.scope. */
#include "gputop/fdinfo.h"

#include <stdio.h>
#include <string.h>

#define ID_SHOWN 12   /* as docker ps shows ids */

/* The cgroup path of the text, into path: the v2 line's, unless it is
 * the root of a hybrid set-up where systemd keeps to its v1 line. */
static void cgroup_path(const char *text, char *path, size_t len)
{
    const char *v2 = strstr(text, "0::");
    const char *v1 = strstr(text, ":name=systemd:");
    const char *line = NULL;

    path[0] = '\0';
    if (v2 && (v2 == text || v2[-1] == '\n'))
        line = v2 + 3;
    if (v1 && (!line || strcspn(line, "\n") <= 1))   /* none, "" or "/" */
        line = v1 + 14;
    if (!line)
        return;
    snprintf(path, len, "%.*s", (int)strcspn(line, "\n"), line);
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);

    return n >= k && strncmp(s + n - k, suffix, k) == 0;
}

static int hex_id(const char *s, size_t n)
{
    size_t i;

    if (n < 32)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* A runtime's "PREFIX-ID.scope" component, the id cut to ID_SHOWN. */
static int scoped(const char *c, size_t n, const char *prefix, const char *kind, char *out,
                  size_t len)
{
    size_t p = strlen(prefix);

    if (n <= p || strncmp(c, prefix, p) != 0 || !ends(c, n, ".scope") ||
        !hex_id(c + p, n - p - 6))
        return 0;
    snprintf(out, len, "%s:%.*s", kind, ID_SHOWN, c + p);
    return 1;
}

/* A Kubernetes pod's uid from "kubepods-CLASS-podUID.slice" (dashes as
 * underscores) or "podUID". */
static int pod(const char *c, size_t n, char *out, size_t len)
{
    const char *u = NULL;
    char uid[9];
    size_t i;

    if (starts(c, "kubepods") && ends(c, n, ".slice")) {
        const char *p = strstr(c, "-pod");
        if (p && p < c + n)
            u = p + 4;
    } else if (n > 3 + 8 && starts(c, "pod") && hex_id(c + 3, 8)) {
        u = c + 3;
    }
    if (!u || (size_t)(c + n - u) < 8)
        return 0;
    for (i = 0; i < 8; i++)
        uid[i] = u[i] == '_' ? '-' : u[i];
    uid[8] = '\0';
    snprintf(out, len, "k8s-pod:%s", uid);
    return 1;
}

/* One path component, with the one outside it; 1 when it named a
 * container (out set). */
static int container_of(const char *c, size_t n, const char *outer, size_t on, char *out,
                        size_t len)
{
    if (pod(c, n, out, len) || scoped(c, n, "docker-", "docker", out, len) ||
        scoped(c, n, "libpod-", "podman", out, len) ||
        scoped(c, n, "cri-containerd-", "containerd", out, len) ||
        scoped(c, n, "crio-", "crio", out, len))
        return 1;
    if (outer && on == 6 && strncmp(outer, "docker", 6) == 0 && hex_id(c, n)) {
        snprintf(out, len, "docker:%.*s", ID_SHOWN, c);
        return 1;
    }
    if (starts(c, "lxc.payload.") || (outer && on == 3 && strncmp(outer, "lxc", 3) == 0)) {
        size_t skip = starts(c, "lxc.payload.") ? 12 : 0;
        snprintf(out, len, "lxc:%.*s", (int)(n - skip), c + skip);
        return 1;
    }
    return 0;
}

void gt_fdinfo_container(const char *cgroup, char *out, size_t len)
{
    char path[1024], unit[128] = "";
    const char *c, *outer = NULL;
    size_t on = 0;

    out[0] = '\0';
    cgroup_path(cgroup, path, sizeof(path));
    /* outermost first: a pod's slice wins over the container inside it */
    for (c = path; *c; ) {
        size_t n;
        while (*c == '/')
            c++;
        n = strcspn(c, "/");
        if (!n)
            break;
        if (container_of(c, n, outer, on, out, len))
            return;
        if ((ends(c, n, ".service") || ends(c, n, ".scope")) && n < sizeof(unit))
            snprintf(unit, sizeof(unit), "%.*s", (int)n, c);
        outer = c;
        on = n;
        c += n;
    }
    snprintf(out, len, "%s", unit);
}
