// laplace3d --gpus N: domain decomposition with halo exchange. The grid is cut along z
// into N slabs (slabs.c), one a GPU; a slab holds its own planes and one ghost plane a
// side, and after every iteration each slab's two edge planes go to its neighbours'
// ghost planes. Every GPU runs v5 (laplace_step_planes) on its slab, so the N-GPU result
// is the one-GPU result bit for bit. The ladder is the exchange:
//   m1-host  edge planes to pinned host memory and on to the neighbours (cudaMemcpyAsync
//            D2H, wait, H2D, wait): the slow baseline, two host round trips an iteration
//   m2-peer  cudaMemcpyPeerAsync from GPU to GPU (over NVLink where peer access is on)
//            after the slab's iteration, ordered by events: no host waits
//   m3-nccl  ncclSend/ncclRecv in one group on a second stream; the two edge planes are
//            computed first, so the exchange runs while the slab's inside is computed and
//            only what the inside does not cover shows in the time
// Two ways to run: one process driving N GPUs (ncclCommInitAll), or one process a GPU
// under a launcher (ncclCommInitRank; the unique id passed through --nccl-id-file), the
// same binary on one host or many. The GPUs, their streams and communicators, the
// watchdog and the waits are common/team.h's team of GPUs; this file holds the slabs
// and their exchanges. Verification: the checksum of the whole result, the
// one-GPU result compared bit for bit where the grid fits one GPU, and always a set of
// boxes checked against their light cone computed on the CPU from the start alone.
// Napkin (1024^3, 2 GPUs): a slab's iteration reads and writes 512 planes of 4 MB,
// ~4.3 GB, ~1.3 ms on an H200; the exchange moves one 4 MB plane each way, ~11 us at
// the ~385 GB/s NVLink gives, under 1% of the iteration even before it is hidden.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "multi_gpu.h"
#include "team.h"

const char *const laplace_exchange_names[] = {"m1-host", "m2-peer", "m3-nccl", "all", NULL};

// A slab on its GPU (the team's GPU, streams and communicator: common/team.h).
typedef struct {
    cl_team_gpu *gpu;
    laplace_slab slab;
    float *in, *out; // the two iterates, slab.planes + 2 planes each
    cudaEvent_t edges_done, exchanged;
    float *staging; // m1: pinned host memory for the two edge planes
} slab_gpu;

typedef struct {
    cl_team team;
    grid_shape g; // the whole grid
    int nslabs;   // slabs in the whole run (the team's GPUs)
    int nlocal;   // slabs this process drives: all of them, or its rank's one
    slab_gpu *local;
    bool random;
    uint64_t key;
} slab_team;

static size_t plane_floats(grid_shape g) { return (size_t)g.nx * g.ny; }
static float *plane_at(float *buf, grid_shape g, int p) { return buf + plane_floats(g) * p; }
static grid_shape slab_grid(const slab_team *team, const slab_gpu *s)
{
    return (grid_shape){team->g.nx, team->g.ny, s->slab.planes + 2};
}

// --- a team of slabs: buffers, start, iterations ------------------------------------------

// The slabs of the team `plan` lays out, a slab a GPU, each with its two iterates.
static slab_team slabs_open(grid_shape g, const cl_team_plan *plan, int watchdog_s, bool random,
                            uint64_t key)
{
    slab_team team = {
        .g = g, .nslabs = plan->gpus, .nlocal = plan->nlocal, .random = random, .key = key};
    cl_team_open(&team.team, plan, watchdog_s);
    team.local = calloc(team.nlocal, sizeof *team.local);
    for (int l = 0; l < team.nlocal; l++) {
        slab_gpu *s = &team.local[l];
        s->gpu = &team.team.local[l];
        s->slab = laplace_slab_of(g.nz, team.nslabs, s->gpu->rank);
        const size_t bytes = plane_floats(g) * (s->slab.planes + 2) * sizeof(float);
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        cl_require_device_memory(2 * bytes, 0);
        CL_CUDA_CHECK(cudaMalloc((void **)&s->in, bytes));
        CL_CUDA_CHECK(cudaMalloc((void **)&s->out, bytes));
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->edges_done, cudaEventDisableTiming));
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->exchanged, cudaEventDisableTiming));
    }
    return team;
}

// m1's pinned staging and m2's peer access, for a team that exchanges in one process.
static void slabs_enable_exchanges(slab_team *team)
{
    cl_team_enable_peers(&team->team, 1);
    for (int l = 0; l < team->nlocal; l++) {
        CL_CUDA_CHECK(cudaSetDevice(team->local[l].gpu->device));
        CL_CUDA_CHECK(cudaMallocHost((void **)&team->local[l].staging,
                                     2 * plane_floats(team->g) * sizeof(float)));
    }
}

static void slabs_close(slab_team *team)
{
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaFree(s->in));
        CL_CUDA_CHECK(cudaFree(s->out));
        CL_CUDA_CHECK(cudaFreeHost(s->staging));
        CL_CUDA_CHECK(cudaEventDestroy(s->edges_done));
        CL_CUDA_CHECK(cudaEventDestroy(s->exchanged));
    }
    free(team->local);
    team->local = NULL;
    cl_team_close(&team->team);
}

// Both iterates of every slab hold the start (ghost planes included: the end slabs'
// ghosts are the grid's boundary planes, which no iteration writes).
static void slabs_start(slab_team *team)
{
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        laplace_fill_planes(s->in, team->g, s->slab.first - 1, s->slab.planes + 2, team->random,
                            team->key, s->gpu->compute);
        laplace_fill_planes(s->out, team->g, s->slab.first - 1, s->slab.planes + 2, team->random,
                            team->key, s->gpu->compute);
    }
    cl_team_wait(&team->team);
}

typedef enum { PART_ALL, PART_COMPUTE, PART_EXCHANGE } run_part;

static void step_slab(slab_team *team, slab_gpu *s, int p_lo, int p_hi)
{
    laplace_step_planes(s->in, s->out, slab_grid(team, s), p_lo, p_hi, s->gpu->compute);
}

// m1: the slabs' iterations; both edge planes to the host, wait, on to the neighbours'
// ghost planes, wait.
static void iteration_host(slab_team *team, run_part part)
{
    const size_t bytes = plane_floats(team->g) * sizeof(float), n = plane_floats(team->g);
    for (int l = 0; l < team->nlocal && part != PART_EXCHANGE; l++) {
        CL_CUDA_CHECK(cudaSetDevice(team->local[l].gpu->device));
        step_slab(team, &team->local[l], 1, team->local[l].slab.planes + 1);
    }
    if (part == PART_COMPUTE)
        return;
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaMemcpyAsync(s->staging, plane_at(s->out, team->g, 1), bytes,
                                      cudaMemcpyDeviceToHost, s->gpu->compute));
        CL_CUDA_CHECK(cudaMemcpyAsync(s->staging + n, plane_at(s->out, team->g, s->slab.planes),
                                      bytes, cudaMemcpyDeviceToHost, s->gpu->compute));
    }
    cl_team_wait(&team->team);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        if (s->slab.below >= 0)
            CL_CUDA_CHECK(cudaMemcpyAsync(plane_at(s->out, team->g, 0),
                                          team->local[l - 1].staging + n, bytes,
                                          cudaMemcpyHostToDevice, s->gpu->compute));
        if (s->slab.above >= 0)
            CL_CUDA_CHECK(cudaMemcpyAsync(plane_at(s->out, team->g, s->slab.planes + 1),
                                          team->local[l + 1].staging, bytes, cudaMemcpyHostToDevice,
                                          s->gpu->compute));
    }
    cl_team_wait(&team->team);
}

// m2: each slab waits for its neighbours' copies of the last iteration (their events),
// iterates, then copies its edge planes into their ghost planes. All waits are issued
// before any event of this iteration is recorded, so each refers to the last one.
static void iteration_peer(slab_team *team, run_part part)
{
    const size_t bytes = plane_floats(team->g) * sizeof(float);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        // Neighbours in this process only: with one process a GPU (its slab timed alone,
        // PART_COMPUTE) the neighbours' events are in other processes.
        if (s->slab.below >= 0 && l > 0)
            CL_CUDA_CHECK(cudaStreamWaitEvent(s->gpu->compute, team->local[l - 1].exchanged, 0));
        if (s->slab.above >= 0 && l + 1 < team->nlocal)
            CL_CUDA_CHECK(cudaStreamWaitEvent(s->gpu->compute, team->local[l + 1].exchanged, 0));
        if (part != PART_EXCHANGE)
            step_slab(team, s, 1, s->slab.planes + 1);
    }
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        if (part != PART_COMPUTE && s->slab.below >= 0) {
            slab_gpu *b = &team->local[l - 1];
            CL_CUDA_CHECK(cudaMemcpyPeerAsync(plane_at(b->out, team->g, b->slab.planes + 1),
                                              b->gpu->device, plane_at(s->out, team->g, 1),
                                              s->gpu->device, bytes, s->gpu->compute));
        }
        if (part != PART_COMPUTE && s->slab.above >= 0) {
            slab_gpu *a = &team->local[l + 1];
            CL_CUDA_CHECK(cudaMemcpyPeerAsync(plane_at(a->out, team->g, 0), a->gpu->device,
                                              plane_at(s->out, team->g, s->slab.planes),
                                              s->gpu->device, bytes, s->gpu->compute));
        }
        CL_CUDA_CHECK(cudaEventRecord(s->exchanged, s->gpu->compute));
    }
}

#ifdef CL_HAVE_NCCL
// m3: the edge planes first, an event, the inside; the comm stream waits for the event
// and exchanges with ncclSend/ncclRecv (one group for every slab this process drives)
// while the inside is computed. The next iteration waits for the exchange.
static void iteration_nccl(slab_team *team, run_part part)
{
    const size_t n = plane_floats(team->g);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        const int planes = s->slab.planes;
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaStreamWaitEvent(s->gpu->compute, s->exchanged, 0));
        // Below 3 planes a slab is all edge: one launch, before the event.
        const bool compute = part != PART_EXCHANGE, split = planes >= 3;
        if (compute)
            step_slab(team, s, 1, split ? 2 : planes + 1);
        if (compute && split)
            step_slab(team, s, planes, planes + 1);
        CL_CUDA_CHECK(cudaEventRecord(s->edges_done, s->gpu->compute));
        if (compute && split)
            step_slab(team, s, 2, planes);
        CL_CUDA_CHECK(cudaStreamWaitEvent(s->gpu->comm, s->edges_done, 0));
    }
    if (part != PART_COMPUTE) {
        cl_team_group_start(&team->team);
        for (int l = 0; l < team->nlocal; l++) {
            slab_gpu *s = &team->local[l];
            const laplace_slab sl = s->slab;
            float *const edge_below = plane_at(s->out, team->g, 1),
                         *const ghost_below = plane_at(s->out, team->g, 0),
                         *const edge_above = plane_at(s->out, team->g, sl.planes),
                         *const ghost_above = plane_at(s->out, team->g, sl.planes + 1);
            if (sl.below >= 0) {
                CL_NCCL_CALL(
                    &team->team, s->gpu->nccl,
                    ncclSend(edge_below, n, ncclFloat, sl.below, s->gpu->nccl, s->gpu->comm));
                CL_NCCL_CALL(
                    &team->team, s->gpu->nccl,
                    ncclRecv(ghost_below, n, ncclFloat, sl.below, s->gpu->nccl, s->gpu->comm));
            }
            if (sl.above >= 0) {
                CL_NCCL_CALL(
                    &team->team, s->gpu->nccl,
                    ncclSend(edge_above, n, ncclFloat, sl.above, s->gpu->nccl, s->gpu->comm));
                CL_NCCL_CALL(
                    &team->team, s->gpu->nccl,
                    ncclRecv(ghost_above, n, ncclFloat, sl.above, s->gpu->nccl, s->gpu->comm));
            }
        }
        cl_team_group_end(&team->team);
    }
    for (int l = 0; l < team->nlocal; l++) {
        CL_CUDA_CHECK(cudaSetDevice(team->local[l].gpu->device));
        CL_CUDA_CHECK(cudaEventRecord(team->local[l].exchanged, team->local[l].gpu->comm));
    }
}
#endif

typedef struct {
    slab_team *team;
    int exchange, iterations;
    run_part part;
} slabs_run;

static void start_run(void *ctx) { slabs_start(((slabs_run *)ctx)->team); }

static void iterate_run(void *ctx)
{
    const slabs_run *run = ctx;
    slab_team *team = run->team;
    for (int it = 0; it < run->iterations; it++) {
        if (run->exchange == EXCHANGE_HOST) {
            iteration_host(team, run->part);
        } else if (run->exchange == EXCHANGE_PEER) {
            iteration_peer(team, run->part);
        } else {
#ifdef CL_HAVE_NCCL
            iteration_nccl(team, run->part);
#endif
        }
        for (int l = 0; l < team->nlocal; l++) {
            float *swap = team->local[l].in;
            team->local[l].in = team->local[l].out;
            team->local[l].out = swap;
        }
    }
}

// Median wall time of `reps` runs of `iterations` from the start, each between two
// barriers (every GPU, every process), after one run to warm up.
static double slabs_time(slab_team *team, int exchange, run_part part, int iterations, int reps)
{
    slabs_run run = {team, exchange, iterations, part};
    return cl_team_time(&team->team, start_run, iterate_run, &run, reps);
}

// --- verification ---------------------------------------------------------------------------

// The local planes [lo, hi) of slab s that hold its result: its own, and at the grid's
// ends the boundary plane in its ghost slot.
static void result_planes(const slab_gpu *s, int *lo, int *hi)
{
    *lo = s->slab.below < 0 ? 0 : 1;
    *hi = s->slab.above < 0 ? s->slab.planes + 2 : s->slab.planes + 1;
}

typedef struct {
    unsigned long long checksum, wrong, checked;
} verdict_counts;

static unsigned long long team_checksum(slab_team *team)
{
    unsigned long long mine = 0, sum, part;
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        int lo, hi;
        result_planes(s, &lo, &hi);
        CL_CUDA_CHECK(cudaSetDevice(s->gpu->device));
        CL_CUDA_CHECK(cudaMemsetAsync(s->gpu->sums, 0, sizeof *s->gpu->sums, s->gpu->compute));
        laplace_checksum_planes(plane_at(s->in, team->g, lo), team->g, s->slab.first - 1 + lo,
                                hi - lo, s->gpu->sums, s->gpu->compute);
        CL_CUDA_CHECK(cudaMemcpyAsync(&part, s->gpu->sums, sizeof part, cudaMemcpyDeviceToHost,
                                      s->gpu->compute));
        CL_CUDA_CHECK(cudaStreamSynchronize(s->gpu->compute));
        mine += part;
    }
    cl_team_sum(&team->team, &mine, &sum, 1);
    return sum;
}

// Counts the floats of got that differ from want in their bits; reports the first.
static unsigned long long count_wrong(const float *got, const float *want, size_t n,
                                      const char *what, size_t first_index, bool *reported)
{
    unsigned long long wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            if (!*reported)
                fprintf(stderr, "%s: %s: point %zu is %.9g, expected %.9g\n", cl_progname, what,
                        first_index + i, got[i], want[i]);
            *reported = true;
            wrong++;
        }
    return wrong;
}

// Every point this process holds against the same planes of a one-GPU result (a team
// of one slab: the whole grid) - bit for bit, in chunks of planes.
static void compare_with_reference(slab_team *team, const slab_team *ref, verdict_counts *c,
                                   bool *reported)
{
    const size_t n = plane_floats(team->g), chunk = 64;
    float *got = cl_host_alloc(chunk * n * sizeof(float), "comparison buffer");
    float *want = cl_host_alloc(chunk * n * sizeof(float), "comparison buffer");
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        int lo, hi;
        result_planes(s, &lo, &hi);
        for (int p = lo; p < hi; p += (int)chunk) {
            const int planes = hi - p < (int)chunk ? hi - p : (int)chunk;
            const int global = s->slab.first - 1 + p;
            CL_CUDA_CHECK(cudaMemcpy(got, plane_at(s->in, team->g, p), planes * n * sizeof(float),
                                     cudaMemcpyDeviceToHost));
            CL_CUDA_CHECK(cudaMemcpy(want, plane_at(ref->local[0].in, team->g, global),
                                     planes * n * sizeof(float), cudaMemcpyDeviceToHost));
            c->wrong += count_wrong(got, want, planes * n, "differs from the one-GPU result",
                                    global * n, reported);
            c->checked += planes * n;
        }
    }
    free(got);
    free(want);
}

// The boxes' points this process holds against their light cones.
static void compare_boxes(slab_team *team, int iterations, uint64_t seed, verdict_counts *c,
                          bool *reported)
{
    grid_box boxes[LAPLACE_MAX_CHECK_BOXES];
    const int nboxes = laplace_check_boxes(team->g, team->nslabs, seed, boxes);
    for (int b = 0; b < nboxes; b++) {
        const grid_box box = boxes[b];
        const size_t row = box.nx, n = row * box.ny;
        float *want = cl_host_alloc(n * box.nz * sizeof(float), "light-cone box");
        float *got = cl_host_alloc(n * sizeof(float), "box plane");
        laplace_gold_box(team->g, box, iterations, team->random, team->key, want);
        for (int k = box.z; k < box.z + box.nz; k++) {
            const int holder = laplace_slab_holding(team->g.nz, team->nslabs, k);
            const int l = holder - team->local[0].gpu->rank;
            if (l < 0 || l >= team->nlocal)
                continue; // another process holds it
            slab_gpu *s = &team->local[l];
            const float *corner = plane_at(s->in, team->g, k - (s->slab.first - 1)) + box.x +
                                  (size_t)team->g.nx * box.y;
            CL_CUDA_CHECK(cudaMemcpy2D(got, row * sizeof(float), corner, team->g.nx * sizeof(float),
                                       row * sizeof(float), box.ny, cudaMemcpyDeviceToHost));
            const size_t fault = cl_fault_index(n); // the check's own test: one value off
            if (fault != SIZE_MAX)
                got[fault] += 1.0f;
            c->wrong += count_wrong(got, want + (k - box.z) * n, n, "differs from its light cone",
                                    0, reported);
            c->checked += n;
        }
        free(want);
        free(got);
    }
}

// The run's verdict, the same on every rank: counts summed over the processes.
static verdict_counts team_verify(slab_team *team, const slab_team *ref, int iterations,
                                  uint64_t seed)
{
    verdict_counts mine = {0}, all;
    bool reported = false;
    if (ref)
        compare_with_reference(team, ref, &mine, &reported);
    compare_boxes(team, iterations, seed, &mine, &reported);
    unsigned long long counts[2] = {mine.wrong, mine.checked}, sums[2];
    cl_team_sum(&team->team, counts, sums, 2);
    all.wrong = sums[0], all.checked = sums[1];
    all.checksum = team_checksum(team);
    return all;
}

// --- the report: the table of rows and the verdicts under it ---------------------------------

static const cl_column gpus_columns[] = {
    {"run", "run", 16, NULL},
    {"gpus", "GPUs", 4, NULL},
    {"time_ms", "time ms", 9, "%.3f"},
    {"iteration_ms", "ms an iteration", 15, "%.4f"},
    {"gbps", "GB/s", 6, "%.0f"},
    {"speedup", "x 1 GPU", 7, "%.2f"},
    {"weak_efficiency", "weak eff.", 9, "%.3f"},
    {"exchange_ms", "exchange ms", 11, "%.4f"},
    {"hidden_pct", "% hidden", 8, "%.0f"},
    {"verified", "verified", 8, NULL},
};
static const cl_table gpus_table = {"gpus", gpus_columns, 10};

typedef struct {
    const laplace_gpus_options *opt;
    double one_gpu_ms, one_slab_ms;         // the strong and weak baselines (NAN: not run)
    char verdicts[2 + EXCHANGE_COUNT][256]; // a line a verified row, printed under the table
    int nverdicts;
} gpus_report;

// A row; `whole_grid` false for the weak baseline, whose rate and speedup would be of
// another grid.
static void print_row(const gpus_report *report, const char *name, int gpus, bool whole_grid,
                      double ms, double exchange_ms, double hidden_pct, cl_cell verified)
{
    const laplace_gpus_options *opt = report->opt;
    const double points = (double)opt->g.nx * opt->g.ny * opt->g.nz;
    cl_table_row(&gpus_table,
                 (cl_cell[]){CL_STR(name), CL_INT(gpus), CL_NUM(ms), CL_NUM(ms / opt->repeat),
                             CL_NUM(whole_grid ? 8.0 * points * opt->repeat / (ms * 1e6) : NAN),
                             CL_NUM(whole_grid ? report->one_gpu_ms / ms : NAN),
                             CL_NUM(report->one_slab_ms / ms), CL_NUM(exchange_ms),
                             CL_NUM(hidden_pct), verified});
}

// The row's check, kept for the line under the table; whether it passed.
static bool record_verdict(gpus_report *report, const char *name, verdict_counts v, bool reference)
{
    snprintf(report->verdicts[report->nverdicts++], sizeof report->verdicts[0],
             "%s: checksum %016llx; %llu points checked (%s), %llu wrong", name, v.checksum,
             v.checked,
             reference ? "all against one GPU, boxes against their light cones"
                       : "boxes against their light cones",
             v.wrong);
    return v.wrong == 0 && v.checked > 0;
}

// A team of one slab on `device`: the whole grid (the strong-scaling baseline and the
// reference), or a grid of one slab's planes (the weak-scaling baseline). Times it,
// checks its boxes, prints its row, and keeps it when `keep` (the reference).
static bool one_gpu(gpus_report *report, const char *name, grid_shape g, bool whole_grid,
                    int device, uint64_t key, double *ms, slab_team *keep)
{
    const laplace_gpus_options *opt = report->opt;
    const cl_team_plan plan = cl_team_plan_one(device);
    slab_team team = slabs_open(g, &plan, opt->watchdog_s, opt->random, key);
    *ms = slabs_time(&team, EXCHANGE_PEER, PART_COMPUTE, opt->repeat, opt->reps);
    const bool verified =
        record_verdict(report, name, team_verify(&team, NULL, opt->repeat, opt->seed), false);
    print_row(report, name, 1, whole_grid, *ms, NAN, NAN, CL_BOOL(verified));
    if (keep)
        *keep = team;
    else
        slabs_close(&team);
    return verified;
}

int laplace_run_gpus(const laplace_gpus_options *opt, cl_launch launch)
{
    const cl_team_plan plan = cl_team_plan_for(opt->gpus, launch);
    const int device0 = plan.devices[0], nslabs = plan.gpus;
    const grid_shape g = opt->g;
    const uint64_t key = cl_rng_key(opt->seed, 0);
    const laplace_slab widest = laplace_slab_of(g.nz, nslabs, 0);
    const size_t plane_bytes = plane_floats(g) * sizeof(float);
    const size_t grid_bytes = plane_bytes * g.nz, slab_bytes = plane_bytes * (widest.planes + 2);

    cl_note("\n%d x %d x %d grid, %d iterations, input %s, cut along z in %d slabs of %d-%d "
            "planes",
            g.nx, g.ny, g.nz, opt->repeat, opt->random ? "random" : "practical", nslabs,
            laplace_slab_of(g.nz, nslabs, nslabs - 1).planes, widest.planes);

    // The baselines on this process's first GPU: the whole grid (kept as the reference
    // when the slab beside it fits too) and one slab's worth of planes.
    gpus_report report = {.opt = opt, .one_gpu_ms = NAN, .one_slab_ms = NAN};
    slab_team ref = {0};
    bool have_ref = false, ok = true;
    cl_team_print_setup(&plan);
    cl_table_header(&gpus_table);
    if (cl_team_device_fits(device0, 2 * grid_bytes)) {
        have_ref = cl_team_device_fits(device0, 2 * grid_bytes + 2 * slab_bytes);
        ok = one_gpu(&report, "1 GPU", g, true, device0, key, &report.one_gpu_ms,
                     have_ref ? &ref : NULL);
    } else {
        char need[32];
        cl_note("1 GPU: the whole grid needs %s, more than GPU %d has free: no one-GPU row",
                cl_format_bytes(2.0 * grid_bytes, need, sizeof need), device0);
    }
    const grid_shape one_slab = {g.nx, g.ny, widest.planes + 2};
    ok = one_gpu(&report, "1 GPU, a slab", one_slab, false, device0, key, &report.one_slab_ms,
                 NULL) &&
         ok;

    slab_team team = slabs_open(g, &plan, opt->watchdog_s, opt->random, key);
    if (!plan.multi_process)
        slabs_enable_exchanges(&team);
    if (opt->exchange == EXCHANGE_NCCL || opt->exchange == EXCHANGE_ALL)
        cl_team_nccl_open(&team.team, opt->id_file);
    const double compute_ms =
        slabs_time(&team, EXCHANGE_PEER, PART_COMPUTE, opt->repeat, opt->reps);
    print_row(&report, "compute alone", nslabs, true, compute_ms, NAN, NAN, CL_STR("-"));
    for (int e = 0; e < EXCHANGE_COUNT; e++) {
        if (opt->exchange != EXCHANGE_ALL && opt->exchange != e)
            continue;
        const double exchange_ms = slabs_time(&team, e, PART_EXCHANGE, opt->repeat, opt->reps);
        const double ms = slabs_time(&team, e, PART_ALL, opt->repeat, opt->reps);
        const bool verified = record_verdict(
            &report, laplace_exchange_names[e],
            team_verify(&team, have_ref ? &ref : NULL, opt->repeat, opt->seed), have_ref);
        print_row(&report, laplace_exchange_names[e], nslabs, true, ms, exchange_ms / opt->repeat,
                  100.0 * (compute_ms + exchange_ms - ms) / exchange_ms, CL_BOOL(verified));
        ok = verified && ok;
    }
    cl_note("\ncompute alone: the slabs' iterations with no exchange (not a solution); exchange "
            "ms: the exchange alone, an iteration; %% hidden: (compute alone + exchange alone - "
            "run) / exchange alone; weak eff.: 1 GPU, a slab (the same work a GPU) / run");
    for (int v = 0; v < report.nverdicts; v++)
        cl_note("%s", report.verdicts[v]);
    if (have_ref)
        slabs_close(&ref);
    slabs_close(&team);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}
