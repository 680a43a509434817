/* What an opened amdgpu source tells of itself: the pstate it holds, and
 * for --probe the device, shape, clocks and where each reading comes from. */
#include "amd.h"
#include "gputop/amdgpu.h"
#include "gputop/amdgpu_uapi.h"

#include <stdio.h>

void gt_amd_pstate_text(const struct amd_src *a, char *buf, size_t len)
{
    const char *ps = a->pmc ? gt_amd_pmc_pstate(a->pmc) : "";

    buf[0] = '\0';
    if (a->pmc && gt_amd_pmc_perfclk(a->pmc))
        snprintf(buf, len, "perfmon clock ungated by gputop, clocks free");
    else if (ps[0] && a->peak_mhz)
        snprintf(buf, len, "pstate %s set by gputop (GFX %u MHz)", ps, a->peak_mhz);
    else if (ps[0])
        snprintf(buf, len, "pstate %s set by gputop", ps);
}

static void gc_bases_line(const struct amd_src *a, FILE *out)
{
    uint32_t base[2];
    char path[160];
    int r = gt_amd_gc_bases(&a->dev, base, path, sizeof(path));

    if (r > 0)
        fprintf(out, "GC bases:         0x%X, 0x%X (%s)\n", base[0], base[1], path);
    else
        fprintf(out, "GC bases:         0x%X, 0x%X assumed (%s: %s)\n", GT_GC_SEG0, GT_GC_SEG1,
                path, r == 0 ? "absent" : "unreadable");
}

void gt_amd_describe_source(const struct gt_source *s, FILE *out)
{
    const struct amd_src *a = s->priv;
    const struct gt_amd_dev *dev = &a->dev;
    char buf[200];

    fprintf(out, "device:           %s (PCI %s, id %04x:%04x rev %02x)\n", s->info.device,
            dev->drm.pci_slot[0] ? dev->drm.pci_slot : "?", dev->drm.vendor, dev->drm.device,
            dev->drm.revision);
    if (a->asleep_at_open) {
        fprintf(out, "power:            asleep (runtime-suspended): not opened, so not woken\n");
        return;
    }
    {
        char state[32];
        gt_amd_power_state(dev, state, sizeof(state));
        fprintf(out, "power:            %s (checked in sysfs before every sample)\n", state);
    }
    fprintf(out, "driver:           %s %d.%d.%d\n", dev->driver, dev->drv_major, dev->drv_minor,
            dev->drv_patch);
    fprintf(out, "GPU:              %s, family %u, GC %u.%u.%u\n", s->info.gpu, dev->family,
            dev->gc_version >> 16, (dev->gc_version >> 8) & 0xff, dev->gc_version & 0xff);
    fprintf(out, "shape:            %u SE x %u SA, %u CUs active, %u GL2C channels, wave%u\n",
            dev->num_se, dev->num_sa_per_se, dev->cu_active, dev->num_tcc, dev->wave_size);
    fprintf(out, "max clocks:       shader %u MHz, memory %u MHz\n", dev->max_sclk_mhz,
            dev->max_mclk_mhz);
    if (a->metrics_only)
        fprintf(out, "activity:         off (mode=metrics never touches GFX)\n");
    else if (a->polls_fixed)
        fprintf(out, "activity:         GRBM_STATUS/STATUS2, %u reads a sample\n",
                a->polls_fixed);
    else
        fprintf(out, "activity:         GRBM_STATUS/STATUS2, %u reads/s (each keeps GFX out "
                     "of GFXOFF while it runs)\n", a->poll_hz);
    if (a->have_metrics)
        fprintf(out, "power & clocks:   %s/gpu_metrics format %u.%u\n", dev->sysfs,
                a->first.format, a->first.content);
    else
        fprintf(out, "power & clocks:   AMDGPU_INFO_SENSOR (no readable gpu_metrics)\n");
    if (a->pmc) {
        gt_amd_pmc_describe(a->pmc, buf, sizeof(buf));
        fprintf(out, "counters:         %s/amdgpu_regs2: %s\n", dev->debugfs, buf);
        fprintf(out, "                  SQ: SQ_PERFCOUNTER_CTRL all stages, CTRL2 FORCE_EN for "
                     "all VMIDs; 32-bit, so intervals <= %.1f ms\n",
                (double)gt_amd_pmc_max_interval(a->pmc) / 1e6);
        gt_amd_pstate_text(a, buf, sizeof(buf));
        fprintf(out, "power state:      %s%s\n", buf[0] ? buf : "GFXOFF held off "
                "(keepon=gfxoff); the perfmon clock may be gated",
                gt_amd_pmc_perfclk(a->pmc) ? " (RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE, "
                "GFXOFF held off)" : "");
        gc_bases_line(a, out);
    } else {
        fprintf(out, "counters:         %s\n", a->pmc_why);
    }
}
