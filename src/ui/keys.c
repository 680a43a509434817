/* Key decoding: what the keyboard sent, as one key code (ncurses KEY_*
 * values, or the character). ncurses decodes the sequences the terminfo
 * entry lists; the other common encodings of the editing and function keys
 * (VT220 "ESC [ n ~" from tmux and PuTTY, xterm's with modifiers, SS3 forms,
 * the Linux console's F1-F5) are decoded here, so that none of their bytes
 * reaches the one-letter keys. */
#include "tui_internal.h"

#include <string.h>

#define ESC 27

/* ESC [ n ~ (VT220, rxvt, tmux, PuTTY, the Linux console). */
static int tilde_key(int n)
{
    switch (n) {
    case 1: case 7: return KEY_HOME;
    case 2: return KEY_IC;
    case 3: return KEY_DC;
    case 4: case 8: return KEY_END;
    case 5: return KEY_PPAGE;
    case 6: return KEY_NPAGE;
    }
    if (n >= 11 && n <= 15)
        return KEY_F(n - 10);
    if (n >= 17 && n <= 21)
        return KEY_F(n - 11);
    if (n == 23 || n == 24)
        return KEY_F(n - 12);
    return ERR;
}

/* The final letter of ESC [ ... X or ESC O X. */
static int letter_key(int c)
{
    switch (c) {
    case 'A': return KEY_UP;
    case 'B': return KEY_DOWN;
    case 'C': return KEY_RIGHT;
    case 'D': return KEY_LEFT;
    case 'H': return KEY_HOME;
    case 'F': return KEY_END;
    case 'Z': return KEY_BTAB;
    case 'P': case 'Q': case 'R': case 'S': return KEY_F(1 + c - 'P');
    case 'M': return '\r';               /* keypad Enter, SS3 form */
    }
    return ERR;
}

/* After ESC [: parameters (digits, ';', private markers such as '<'),
 * then one final byte. Only the first parameter matters: the others are
 * modifiers (ESC [ 1 ; 5 H is Ctrl-Home). Unknown sequences, including
 * mouse reports ncurses did not ask for, are swallowed whole. */
static int csi_key(void)
{
    int c, n = 0, first = 1, params = 0;

    c = getch();
    if (c == '[') {                      /* Linux console: ESC [ [ A .. E */
        c = getch();
        return c >= 'A' && c <= 'E' ? KEY_F(1 + c - 'A') : ERR;
    }
    for (; c != ERR; c = getch()) {
        if (c >= '0' && c <= '9') {
            /* No key number has more than two digits; past four the
             * parameter is no key at all, and must not overflow into one. */
            if (first && n < 10000)
                n = n * 10 + (c - '0');
            params = 1;
        } else if (c == ';') {
            first = 0;
        } else if (c >= 0x20 && c <= 0x3f) {
            /* private markers and intermediates */
        } else {
            break;
        }
    }
    if (c == ERR)
        return ERR;
    if (c == '~')
        return params ? tilde_key(n) : ERR;
    return letter_key(c);
}

/* What follows a lone ESC: a sequence, or Alt and a key (taken as Esc and
 * then the key), or nothing (Esc itself). */
static int escape_key(void)
{
    int c = getch();

    if (c == ERR)
        return ESC;
    if (c == '[')
        return csi_key();
    if (c == 'O')
        return letter_key(getch());
    ungetch(c);
    return ESC;
}

/* Keys ncurses decoded to a code of their own that means, here, a plain
 * editing key: shifted forms, the keypad's corners, VT220 Find / Select
 * (where PC keyboards have Home / End), and the modified keys terminfo
 * lists as extended capabilities (kHOM5 is Ctrl-Home, kEND3 Alt-End...). */
static int plain_key(int c)
{
    static const struct { int from, to; } same[] = {
        { KEY_SHOME, KEY_HOME }, { KEY_SEND, KEY_END }, { KEY_A1, KEY_HOME }, { KEY_C1, KEY_END },
        { KEY_A3, KEY_PPAGE }, { KEY_C3, KEY_NPAGE }, { KEY_FIND, KEY_HOME },
        { KEY_SELECT, KEY_END }, { KEY_SPREVIOUS, KEY_PPAGE }, { KEY_SNEXT, KEY_NPAGE },
        { KEY_SLEFT, KEY_LEFT }, { KEY_SRIGHT, KEY_RIGHT }, { KEY_SR, KEY_UP }, { KEY_SF, KEY_DOWN },
    };
    static const struct { const char *prefix; int to; } named[] = {
        { "kHOM", KEY_HOME }, { "kEND", KEY_END }, { "kPRV", KEY_PPAGE }, { "kNXT", KEY_NPAGE },
        { "kUP", KEY_UP }, { "kDN", KEY_DOWN }, { "kLFT", KEY_LEFT }, { "kRIT", KEY_RIGHT },
    };
    const char *name;
    size_t i;

    for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        if (c == same[i].from)
            return same[i].to;
    if (c <= KEY_MAX)
        return c;
    name = keyname(c);
    for (i = 0; name && i < sizeof(named) / sizeof(named[0]); i++)
        if (strncmp(name, named[i].prefix, strlen(named[i].prefix)) == 0)
            return named[i].to;
    return c;
}

/* The next key, ERR when none is waiting. Sequences that decode to no key
 * are skipped rather than returned as their bytes. */
int tui_next_key(struct tui *t)
{
    int c;

    (void)t;
    for (;;) {
        c = getch();
        if (c != ESC)
            return plain_key(c);
        c = escape_key();
        if (c != ERR)
            return c;
    }
}
