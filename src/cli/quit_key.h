/* 'q' on standard input while text records stand in for the dashboard. */
#ifndef GPUTOP_CLI_QUIT_KEY_H
#define GPUTOP_CLI_QUIT_KEY_H

struct gt_quit_key;

/* Starts watching standard input (a terminal is put in non-canonical
 * mode without echo, so the key acts at once): q or Q stops the run as
 * Ctrl-C does. NULL when it cannot (then only the signals stop it). */
struct gt_quit_key *gt_quit_key_start(void);
/* Stops watching and gives the terminal its mode back (NULL is fine). */
void gt_quit_key_stop(struct gt_quit_key *k);

#endif
