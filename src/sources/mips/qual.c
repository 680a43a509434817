/* Qualifiers that count: the reference document gives no qualifier bit
 * layouts (each core's CPS manual has them) and says an event with groups
 * counts only when "the qualifier criteria is matched in all groups", so
 * the reset value 0 may count nothing. Measured instead of guessed: one
 * event on both counters at once, qualifier 0 on one and all ones on the
 * other, over the same window. */
#include "cm.h"

#include <time.h>

void cm_qual_measure(struct cm_gcr *g, uint32_t ctl, unsigned number, long window_ns,
                     uint32_t *with0, uint32_t *withall)
{
    struct timespec ts = { window_ns / 1000000000L, window_ns % 1000000000L };
    uint32_t off = ctl & ~(CM_CTL_P0_COUNTON | CM_CTL_P1_COUNTON | CM_CTL_RESETS);

    uint32_t a0, a1;

    /* No reset bits: they would clear the overflow bits a previous owner
     * left; the counts are taken as differences instead. */
    cm_wr(g, CM_PC_CTL, off);
    cm_wr(g, CM_PC_EVENT, number | number << 8);
    cm_wr(g, CM_PC_QUAL0, 0);
    cm_wr(g, CM_PC_QUAL1, 0xffffffffu);
    a0 = cm_rd(g, CM_PC_CNT0);
    a1 = cm_rd(g, CM_PC_CNT1);
    cm_wr(g, CM_PC_CTL, off | CM_CTL_P0_COUNTON | CM_CTL_P1_COUNTON);
    nanosleep(&ts, NULL);
    cm_wr(g, CM_PC_CTL, off);
    *with0 = cm_rd(g, CM_PC_CNT0) - a0;
    *withall = cm_rd(g, CM_PC_CNT1) - a1;
}

uint32_t cm_qual_choose(uint32_t with0, uint32_t withall, int *how)
{
    if (with0 > 0) {
        *how = CM_QUAL_ZERO;
        return 0;
    }
    if (withall > 0) {
        *how = CM_QUAL_ALL;
        return 0xffffffffu;
    }
    *how = CM_QUAL_NONE;
    return 0;
}
