/* What waking up costs this machine in CPU time, measured the way the
 * dashboard benchmark measures gputop (CPU time per thread), so its figure
 * can be read against the floor the machine sets: gputop's dashboard is a
 * sampler thread woken by its own timer 10 times a second, which wakes the
 * display thread 4 times a second (an eventfd), with no work at all here.
 * The display thread waits as the dashboard's does (src/ui/wait.c): in
 * epoll_wait() on its terminal and the eventfd together, the eventfd
 * edge-triggered and never read, here a pseudo-terminal nobody types into.
 * Usage: wakeup_cost [SECONDS]: the pattern runs that long (10 s), then the
 * single idle wake-up is timed; dashboard_cost.sh runs it beside gputop
 * over the very window it measures gputop in. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define SECONDS_DEFAULT 10

struct pattern {
    uint64_t t0, seconds;
    int efd, tty, ep;
    uint64_t sampler_ns, display_ns;
};

static uint64_t ns_of(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ;
}

/* 10 Hz on absolute deadlines; every refresh due (4 Hz) wakes the display. */
static void *sampler(void *arg)
{
    struct pattern *p = arg;
    uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), one = 1, next_refresh = p->t0;
    int i;

    for (i = 1; i <= (int)p->seconds * 10; i++) {
        uint64_t now = p->t0 + (uint64_t)i * 100000000ull;
        sleep_until(now);
        if (now >= next_refresh) {
            next_refresh += 250000000ull;
            if (write(p->efd, &one, sizeof(one)) < 0)
                break;
        }
    }
    p->sampler_ns = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
    return NULL;
}

static void *display(void *arg)
{
    struct pattern *p = arg;
    uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
    struct epoll_event ev[2];

    while (ns_of(CLOCK_MONOTONIC) < p->t0 + p->seconds * 1000000000ull - 50000000ull)
        if (epoll_wait(p->ep, ev, 2, 1000) < 0)
            break;
    p->display_ns = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
    return NULL;
}

/* One wake-up of a thread that slept 100 ms and has nothing to do. */
static void idle_wakeup(void)
{
    uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), c1;
    int i;

    for (i = 0; i < 20; i++)
        sleep_until(ns_of(CLOCK_MONOTONIC) + 100000000ull);
    c1 = ns_of(CLOCK_THREAD_CPUTIME_ID);
    printf("one idle wake-up after 100 ms: %.1f us of CPU\n", (double)(c1 - c0) / 20 / 1e3);
}

int main(int argc, char **argv)
{
    struct pattern p = { 0, SECONDS_DEFAULT, -1, -1, -1, 0, 0 };
    struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
    int master;
    pthread_t a, b;

    if (argc > 1) {
        long s = strtol(argv[1], NULL, 10);
        if (s < 1 || s > 3600) {
            fprintf(stderr, "wakeup_cost: seconds must be 1-3600, not '%s'\n", argv[1]);
            return 2;
        }
        p.seconds = (uint64_t)s;
    }
    p.efd = eventfd(0, 0);
    p.ep = epoll_create1(0);
    if (p.efd < 0 || p.ep < 0 || epoll_ctl(p.ep, EPOLL_CTL_ADD, p.efd, &ev) < 0) {
        puts("no eventfd or epoll: wake pattern not measured");
        return 0;
    }
    /* The terminal: the slave side of a new pseudo-terminal, or (none
     * here) none watched. */
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master))
        p.tty = open(ptsname(master), O_RDWR | O_NOCTTY);
    ev.events = EPOLLIN;
    if (p.tty < 0 || epoll_ctl(p.ep, EPOLL_CTL_ADD, p.tty, &ev) < 0)
        puts("no pseudo-terminal: the display thread waits on the eventfd alone");
    p.t0 = ns_of(CLOCK_MONOTONIC);
    pthread_create(&a, NULL, sampler, &p);
    pthread_create(&b, NULL, display, &p);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    close(p.efd);
    close(p.ep);
    if (p.tty >= 0)
        close(p.tty);
    if (master >= 0)
        close(master);
    printf("gputop's wake pattern with no work (10 Hz timer + 4 Hz eventfd and terminal): %.2f ms CPU per "
           "second (timer thread %.2f, woken thread %.2f)\n",
           (double)(p.sampler_ns + p.display_ns) / 1e6 / (double)p.seconds,
           (double)p.sampler_ns / 1e6 / (double)p.seconds, (double)p.display_ns / 1e6 / (double)p.seconds);
    fflush(stdout);
    idle_wakeup();
    return 0;
}
