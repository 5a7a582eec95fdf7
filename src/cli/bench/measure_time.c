/*
 * measure_time.c: how `clfold bench` times one call of the library, a
 * whole array's, a shape's or a scan's: the device time of its passes (best
 * and median) on a profiling queue, and its end-to-end time on a context as
 * clfold_create makes it; a blocking call's wall time where the device's
 * timestamps do not advance.
 *
 * May call (below it in src/cli/bench/): run.c.
 */
#include "measure_time.h"

#include <stdlib.h>

#include "run.h"
#include "timing.h"

#define MAX_RUNS 30
#define TIME_BUDGET_S 0.5

clfold_status bench_time(clfold_context *timed, clfold_context *plain, bench_reduction reduce,
                         void *call, const struct bench_row *spec, struct bench_row *row)
{
    double device[MAX_RUNS], e2e[MAX_RUNS];
    int runs = 0, e2e_runs = 0;
    clfold_run_info info = {0};
    clfold_status status = CLFOLD_SUCCESS;
    for (int warm = 0; warm < 2 && status == CLFOLD_SUCCESS; warm++) {
        status = reduce(timed, call);
        if (status == CLFOLD_SUCCESS)
            status = reduce(plain, call);
    }
    double start = now_seconds();
    while (status == CLFOLD_SUCCESS && runs < MAX_RUNS &&
           (runs < 3 || now_seconds() - start < TIME_BUDGET_S)) {
        status = reduce(timed, call);
        if (status == CLFOLD_SUCCESS)
            status = clfold_last_run(timed, &info);
        device[runs++] = info.device_ms;
    }
    start = now_seconds();
    while (status == CLFOLD_SUCCESS && e2e_runs < MAX_RUNS &&
           (e2e_runs < 3 || now_seconds() - start < TIME_BUDGET_S)) {
        double t0 = now_seconds();
        status = reduce(plain, call);
        e2e[e2e_runs++] = (now_seconds() - t0) * 1e3;
    }
    if (status != CLFOLD_SUCCESS)
        return status;
    qsort(device, (size_t)runs, sizeof device[0], compare_doubles);
    qsort(e2e, (size_t)e2e_runs, sizeof e2e[0], compare_doubles);
    *row = *spec;
    /*
     * A device whose profiling timestamps do not advance (Mesa's rusticl
     * gives a command an end 1 ns after its start) has no device time: the
     * blocking call's wall time stands in, launch to value, said as such.
     * No launch takes under a microsecond of device time (the H100's
     * shortest: 3.7 us).
     */
    row->wall_timed = device[runs - 1] < NO_DEVICE_TIME_MS;
    row->best_ms = row->wall_timed ? e2e[0] : device[0];
    row->median_ms = row->wall_timed ? e2e[e2e_runs / 2] : device[runs / 2];
    row->e2e_ms = e2e[e2e_runs / 2];
    row->gbps = (double)spec->n * (double)clfold_type_size(spec->type) / (row->best_ms * 1e6);
    row->path = info.path;
    return CLFOLD_SUCCESS;
}
