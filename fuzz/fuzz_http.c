/* libFuzzer target: the --serve HTTP endpoint. Each input is sent as one
 * request over loopback to the real server thread (port 0), the answer read
 * to its end; the input is also parsed as a --serve ADDR:PORT. */
#include "fuzz_common.h"
#include "gputop/export.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static int handler(void *arg, const char *path, char **body, size_t *len, const char **type)
{
    (void)arg;
    *type = "text/plain";
    *len = strlen(path);
    *body = strdup(path);
    return *body ? 200 : -1;
}

static struct gt_http *server(void)
{
    static struct gt_http *h;
    struct gt_diag d;

    if (!h) {
        gt_diag_clear(&d);
        h = gt_http_start("127.0.0.1:0", handler, NULL, &d);
        if (!h) {
            fprintf(stderr, "fuzz_http: %s\n", d.msg);
            abort();
        }
    }
    return h;
}

static void request(int port, const uint8_t *data, size_t size)
{
    struct sockaddr_in sa;
    char buf[4096];
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        size_t off = 0;
        while (off < size) {
            ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        /* End of the request: the server must not wait out its timeout. */
        shutdown(fd, SHUT_WR);
        while (recv(fd, buf, sizeof(buf), 0) > 0)
            ;
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), host[256], port[32];
    struct gt_diag d;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    gt_diag_clear(&d);
    (void)gt_http_parse_addr(text, host, sizeof(host), port, sizeof(port), &d);
    free(text);
    if (size <= GT_HTTP_MAX_REQUEST + 16)
        request(gt_http_port(server()), data, size);
    return 0;
}
