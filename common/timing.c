#define _POSIX_C_SOURCE 199309L
#include "timing.h"

#include <stdlib.h>
#include <time.h>

#include "check.h"

double cl_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cl_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

enum { BATCH = 64 }; // repeats in flight between host synchronizations

// Times `reps` repeats (numbered from rep0) into out[].
static void timed_runs(cl_work_fn fn, void *ctx, int rep0, int reps, double *out)
{
    cudaEvent_t ev[BATCH + 1];
    for (int e = 0; e <= BATCH; e++)
        CL_CUDA_CHECK(cudaEventCreate(&ev[e]));
    for (int done = 0; done < reps; done += BATCH) {
        int batch = reps - done < BATCH ? reps - done : BATCH;
        // Consecutive repeats share events: repeat r runs between ev[r] and ev[r+1].
        CL_CUDA_CHECK(cudaEventRecord(ev[0], 0));
        for (int r = 0; r < batch; r++) {
            fn(ctx, rep0 + done + r);
            CL_CUDA_CHECK(cudaEventRecord(ev[r + 1], 0));
        }
        CL_CUDA_CHECK(cudaEventSynchronize(ev[batch]));
        for (int r = 0; r < batch; r++) {
            float ms;
            CL_CUDA_CHECK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1]));
            out[done + r] = ms;
        }
    }
    for (int e = 0; e <= BATCH; e++)
        CL_CUDA_CHECK(cudaEventDestroy(ev[e]));
}

// >= 20 repeats and >= 50 ms, at most ~1 s (but >= 3 repeats), at most 5000.
static int auto_reps(double probe_ms)
{
    if (probe_ms < 1e-3)
        probe_ms = 1e-3;
    int reps = (int)(50.0 / probe_ms) + 1;
    if (reps < 20)
        reps = 20;
    if (reps * probe_ms > 1000.0)
        reps = (int)(1000.0 / probe_ms);
    if (reps < 3)
        reps = 3;
    return reps > 5000 ? 5000 : reps;
}

cl_timing cl_time_gpu(cl_work_fn fn, void *ctx, int reps)
{
    fn(ctx, 0);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    if (reps <= 0) {
        double probe;
        timed_runs(fn, ctx, 0, 1, &probe);
        reps = auto_reps(probe);
    }
    double *ms = cl_host_alloc((size_t)reps * sizeof *ms, "timings");
    timed_runs(fn, ctx, 0, reps, ms);
    cl_timing t = {.reps = reps};
    t.median_ms = cl_median(ms, reps);
    t.min_ms = ms[0];
    t.max_ms = ms[reps - 1];
    free(ms);
    return t;
}

// One repeat of a staged pipeline: stage times into ms[], returns the total.
static double staged_run(cl_stage_fn fn, void *ctx, int rep, int nstages, cudaEvent_t *ev,
                         double *ms)
{
    fn(ctx, rep, -1);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    CL_CUDA_CHECK(cudaEventRecord(ev[0], 0));
    for (int s = 0; s < nstages; s++) {
        fn(ctx, rep, s);
        CL_CUDA_CHECK(cudaEventRecord(ev[s + 1], 0));
    }
    CL_CUDA_CHECK(cudaEventSynchronize(ev[nstages]));
    for (int s = 0; s < nstages; s++) {
        float t;
        CL_CUDA_CHECK(cudaEventElapsedTime(&t, ev[s], ev[s + 1]));
        ms[s] = t;
    }
    float total;
    CL_CUDA_CHECK(cudaEventElapsedTime(&total, ev[0], ev[nstages]));
    return total;
}

cl_timing cl_time_stages(cl_stage_fn fn, void *ctx, int nstages, int reps, double *stage_ms)
{
    cudaEvent_t ev[CL_MAX_STAGES + 1];
    double scratch[CL_MAX_STAGES];
    for (int e = 0; e <= nstages; e++)
        CL_CUDA_CHECK(cudaEventCreate(&ev[e]));
    staged_run(fn, ctx, 0, nstages, ev, scratch); // warm-up
    if (reps <= 0)
        reps = auto_reps(staged_run(fn, ctx, 0, nstages, ev, scratch));
    double *per_stage = cl_host_alloc((size_t)reps * (nstages + 1) * sizeof(double), "timings");
    double *totals = per_stage + (size_t)reps * nstages;
    for (int r = 0; r < reps; r++) {
        totals[r] = staged_run(fn, ctx, r, nstages, ev, scratch);
        for (int s = 0; s < nstages; s++)
            per_stage[(size_t)s * reps + r] = scratch[s];
    }
    for (int s = 0; s < nstages; s++)
        stage_ms[s] = cl_median(per_stage + (size_t)s * reps, reps);
    cl_timing t = {.reps = reps};
    t.median_ms = cl_median(totals, reps);
    t.min_ms = totals[0];
    t.max_ms = totals[reps - 1];
    free(per_stage);
    for (int e = 0; e <= nstages; e++)
        CL_CUDA_CHECK(cudaEventDestroy(ev[e]));
    return t;
}
