/* Messages to the user: each starts with "gputop:", so that in a script's
 * log or an adb session it is clear which program spoke. */
#include "gputop/cli.h"

void gt_report_diag(FILE *err, const struct gt_diag *d)
{
    char buf[1024];

    fprintf(err, "gputop: %s", gt_diag_format(d, buf, sizeof(buf)));
}
