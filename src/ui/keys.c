/* Key decoding: what the keyboard sent, as one key code (ncurses KEY_*
 * values, or the character). Every escape-sequence form is handled here. */
#include "tui_internal.h"

int tui_next_key(struct tui *t)
{
    (void)t;
    return getch();
}
