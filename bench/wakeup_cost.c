/* What one sleep-and-wake costs this machine in CPU time, measured the
 * way the dashboard benchmark measures gputop (schedstat), so its figure
 * can be read against the floor the machine itself sets: gputop at 10 Hz
 * sampling and 4 Hz refresh wakes at least 14 times a second. */
#include <stdio.h>
#include <time.h>

static unsigned long long thread_cpu_ns(void)
{
    unsigned long long ns = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");

    if (!f)
        return 0;
    if (fscanf(f, "%llu", &ns) != 1)
        ns = 0;
    fclose(f);
    return ns;
}

int main(void)
{
    const struct timespec nap = { 0, 20000000 };
    const int n = 100;
    unsigned long long before, after, per;
    int i;

    before = thread_cpu_ns();
    for (i = 0; i < n; i++)
        nanosleep(&nap, NULL);
    after = thread_cpu_ns();
    if (!before && !after) {
        puts("no /proc/thread-self/schedstat: wake-up cost not measured");
        return 0;
    }
    per = (after - before) / (unsigned long long)n;
    printf("one idle wake-up: %.1f us of CPU\n", (double)per / 1e3);
    printf("floor for 14 wake-ups/s (10 Hz sampling + 4 Hz refresh): %.2f ms CPU per second\n",
           (double)per * 14 / 1e6);
    return 0;
}
