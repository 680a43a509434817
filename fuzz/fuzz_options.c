/* libFuzzer target: the command line. The input is split at NUL bytes into
 * argv words; durations, counts, lists and source specs are all reached. */
#include "fuzz_common.h"
#include "gputop/cli.h"
#include "gputop/duration.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    struct gt_options o;
    FILE *err;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = "gputop";
    for (size_t i = 0; i <= size && argc <= MAX_ARGS; ) {
        argv[argc++] = text + i;
        i += strlen(text + i) + 1;
    }
    argv[argc] = NULL;
    err = fopen("/dev/null", "w");
    if (err) {
        (void)gt_options_parse(&o, argc, argv, err);
        fclose(err);
    }
    uint64_t ns;
    (void)gt_parse_duration(text, 1000000, &ns);
    free(text);
    return 0;
}
