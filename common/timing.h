// Timing: CUDA events around exactly the scored work, warm-up first, median of R.
#ifndef CUDALAB_TIMING_H
#define CUDALAB_TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

// The work to time: enqueue it on the default stream. `rep` numbers the timed
// repeats (0, 1, ...) so the work can rotate through copies of its inputs.
typedef void (*cl_work_fn)(void *ctx, int rep);

typedef struct {
    double median_ms, min_ms, max_ms;
    int reps;
} cl_timing;

// Runs fn once to warm up (module load, caches, library handles), then `reps`
// timed repeats, each between its own pair of events; returns the median.
// reps == 0 picks the count from a probe run: >= 20 repeats and >= 50 ms of timed
// work, but no more than about 1 s of it (at least 3 repeats), at most 5000.
// Repeats are enqueued back to back so host launch gaps stay out of the numbers.
cl_timing cl_time_gpu(cl_work_fn fn, void *ctx, int reps);

// A pipeline of stages timed one by one (e.g. H2D copy, kernel, D2H copy).
// fn(ctx, rep, s) enqueues stage s of repeat rep on the default stream; before each
// repeat fn(ctx, rep, -1) may do untimed host-side preparation (the device is idle
// then). Warm-up and automatic repeat count as in cl_time_gpu, judged on the total.
// stage_ms[s] gets each stage's median; returns the median of the per-repeat totals.
typedef void (*cl_stage_fn)(void *ctx, int rep, int stage);
enum { CL_MAX_STAGES = 8 };
cl_timing cl_time_stages(cl_stage_fn fn, void *ctx, int nstages, int reps, double *stage_ms);

// Host wall clock in milliseconds (monotonic), for CPU gold timings.
double cl_wall_ms(void);

// Median of n values (sorts them in place).
double cl_median(double *values, int n);

#ifdef __cplusplus
}
#endif

#endif
