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
// same binary on one host or many. Verification: the checksum of the whole result, the
// one-GPU result compared bit for bit where the grid fits one GPU, and always a set of
// boxes checked against their light cone computed on the CPU from the start alone.
// Napkin (1024^3, 2 GPUs): a slab's iteration reads and writes 512 planes of 4 MB,
// ~4.3 GB, ~1.3 ms on an H200; the exchange moves one 4 MB plane each way, ~11 us at
// the ~385 GB/s NVLink gives, under 1% of the iteration even before it is hidden.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudalab.h"
#include "multi_gpu.h"

#ifdef CL_HAVE_NCCL
#include <nccl.h>
const bool laplace_have_nccl = true;
#else
const bool laplace_have_nccl = false;
#endif

const char *const laplace_exchange_names[] = {"m1-host", "m2-peer", "m3-nccl", "all", NULL};

// A GPU that has not finished in this long (--watchdog) is taken for stopped (a faulted
// GPU, a process gone): the run aborts its communicators and exits 3 instead of waiting.
static double watchdog_ms = 120e3;

typedef struct {
    int index, device; // the slab's number (its NCCL rank) and its GPU
    laplace_slab slab;
    float *in, *out; // the two iterates, slab.planes + 2 planes each
    cudaStream_t compute, comm;
    cudaEvent_t edges_done, exchanged;
    float *staging;           // m1: pinned host memory for the two edge planes
    unsigned long long *sums; // device: checksum and reduction scratch
#ifdef CL_HAVE_NCCL
    ncclComm_t nccl;
#endif
} slab_gpu;

typedef struct {
    grid_shape g; // the whole grid
    int nslabs;   // slabs in the whole run (the NCCL world)
    int nlocal;   // slabs this process drives: all of them, or its rank's one
    slab_gpu *local;
    bool multi_process;
    bool random;
    uint64_t key;
} gpu_team;

static size_t plane_floats(grid_shape g) { return (size_t)g.nx * g.ny; }
static float *plane_at(float *buf, grid_shape g, int p) { return buf + plane_floats(g) * p; }
static grid_shape slab_grid(const gpu_team *team, const slab_gpu *s)
{
    return (grid_shape){team->g.nx, team->g.ny, s->slab.planes + 2};
}

// --- NCCL: calls, waits and the two ways to create the communicators ----------------------

// Before exiting on a failure: the communicators aborted, so no NCCL kernel is left
// waiting on a peer that will not come.
static void abort_team(gpu_team *team)
{
#ifdef CL_HAVE_NCCL
    for (int l = 0; l < team->nlocal; l++)
        if (team->local[l].nccl) {
            ncclCommAbort(team->local[l].nccl);
            team->local[l].nccl = NULL;
        }
#else
    (void)team;
#endif
}

// The team whose communicators are up, aborted by any fatal exit (cl_set_fatal_hook):
// a failed CUDA call anywhere, not only the NCCL waits below, ends the run with exit 3
// and leaves no peer waiting.
static gpu_team *nccl_team;
static void abort_nccl_team(void)
{
    if (nccl_team)
        abort_team(nccl_team);
    nccl_team = NULL;
}

#ifdef CL_HAVE_NCCL

// A nonblocking communicator (one process a GPU) returns ncclInProgress until the call
// is done; anything else but success ends the run.
static void nccl_settle(gpu_team *team, ncclComm_t comm, ncclResult_t r, const char *call)
{
    const double start = cl_wall_ms();
    while (r == ncclInProgress) {
        if (cl_wall_ms() - start > watchdog_ms) {
            abort_team(team);
            cl_die(CL_EXIT_CUDA, "%s: no answer from the other ranks in %.0f s (one stopped?)",
                   call, watchdog_ms / 1e3);
        }
        ncclCommGetAsyncError(comm, &r);
    }
    if (r != ncclSuccess) {
        abort_team(team);
        cl_die(CL_EXIT_CUDA, "%s: %s (%s)", call, ncclGetErrorString(r), ncclGetLastError(comm));
    }
}
#define NCCL_CALL(team, comm, call) nccl_settle((team), (comm), (call), #call)
#endif

// Waits for every stream of every local slab at once (polling), so a GPU that faults
// ends the run with its error even while another waits on it in an exchange.
static void team_wait(gpu_team *team)
{
    const double start = cl_wall_ms();
    for (;;) {
        bool done = true;
        for (int l = 0; l < team->nlocal; l++) {
            const cudaStream_t streams[2] = {team->local[l].compute, team->local[l].comm};
            for (int k = 0; k < 2; k++) {
                const cudaError_t e = cudaStreamQuery(streams[k]);
                if (e == cudaErrorNotReady)
                    done = false;
                else if (e != cudaSuccess) {
                    abort_team(team);
                    cl_die(CL_EXIT_CUDA, "GPU %d (slab %d): %s", team->local[l].device,
                           team->local[l].index, cudaGetErrorString(e));
                }
            }
#ifdef CL_HAVE_NCCL
            ncclResult_t r = ncclSuccess;
            if (team->local[l].nccl &&
                ncclCommGetAsyncError(team->local[l].nccl, &r) == ncclSuccess && r != ncclSuccess &&
                r != ncclInProgress) {
                abort_team(team);
                cl_die(CL_EXIT_CUDA, "slab %d: NCCL: %s", team->local[l].index,
                       ncclGetErrorString(r));
            }
#endif
        }
        if (done)
            return;
        if (cl_wall_ms() - start > watchdog_ms) {
            abort_team(team);
            cl_die(CL_EXIT_CUDA, "a GPU has not finished in %.0f s (a GPU or a process stopped?)",
                   watchdog_ms / 1e3);
        }
    }
}

// Sums n counters across every slab into *sums (host); in one process a GPU, across
// the processes too (an all-reduce, which also makes a barrier).
static void team_sum(gpu_team *team, const unsigned long long *mine, unsigned long long *sums,
                     int n)
{
    for (int i = 0; i < n; i++)
        sums[i] = mine[i];
#ifdef CL_HAVE_NCCL
    if (team->multi_process) {
        slab_gpu *s = &team->local[0];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        CL_CUDA_CHECK(
            cudaMemcpyAsync(s->sums, mine, n * sizeof *mine, cudaMemcpyHostToDevice, s->comm));
        NCCL_CALL(team, s->nccl,
                  ncclAllReduce(s->sums, s->sums, n, ncclUint64, ncclSum, s->nccl, s->comm));
        team_wait(team);
        CL_CUDA_CHECK(cudaMemcpy(sums, s->sums, n * sizeof *sums, cudaMemcpyDeviceToHost));
    }
#else
    (void)team;
#endif
}

static void team_barrier(gpu_team *team)
{
    team_wait(team);
    unsigned long long zero = 0, sum;
    team_sum(team, &zero, &sum, 1);
}

#ifdef CL_HAVE_NCCL
// One process a GPU: rank 0 writes the unique id to the file (whole, by a rename), the
// others wait for it; the communicator is nonblocking, so a rank that never comes ends
// the run after the watchdog instead of hanging it.
static void nccl_join(gpu_team *team, laplace_launch launch, const char *id_file)
{
    ncclUniqueId id;
    if (launch.rank == 0) {
        if (access(id_file, F_OK) == 0)
            cl_die(CL_EXIT_USAGE,
                   "--nccl-id-file %s exists: give a path no earlier run left (the other ranks "
                   "would read a stale id)",
                   id_file);
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", id_file, (int)getpid());
        NCCL_CALL(team, NULL, ncclGetUniqueId(&id));
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, id_file))
            cl_die(CL_EXIT_USAGE, "--nccl-id-file %s: cannot write it", id_file);
    } else {
        const double start = cl_wall_ms();
        for (;;) {
            FILE *f = fopen(id_file, "rb");
            const bool got = f && fread(&id, sizeof id, 1, f) == 1;
            if (f)
                fclose(f);
            if (got)
                break;
            if (cl_wall_ms() - start > watchdog_ms)
                cl_die(CL_EXIT_CUDA, "rank %d: no NCCL id in %s after %.0f s (is rank 0 running?)",
                       launch.rank, id_file, watchdog_ms / 1e3);
            usleep(10000);
        }
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    slab_gpu *s = &team->local[0];
    CL_CUDA_CHECK(cudaSetDevice(s->device));
    // Its own statement: the settling polls s->nccl, which the call sets.
    const ncclResult_t r = ncclCommInitRankConfig(&s->nccl, team->nslabs, id, launch.rank, &config);
    nccl_settle(team, s->nccl, r, "ncclCommInitRankConfig");
    if (launch.rank == 0)
        unlink(id_file);
}

static void nccl_open(gpu_team *team, laplace_launch launch, const char *id_file)
{
    if (team->multi_process) {
        nccl_join(team, launch, id_file);
    } else {
        ncclComm_t comms[LAPLACE_MAX_GPUS];
        int devices[LAPLACE_MAX_GPUS];
        for (int l = 0; l < team->nlocal; l++)
            devices[l] = team->local[l].device;
        NCCL_CALL(team, NULL, ncclCommInitAll(comms, team->nlocal, devices));
        for (int l = 0; l < team->nlocal; l++)
            team->local[l].nccl = comms[l];
    }
    nccl_team = team;
    cl_set_fatal_hook(abort_nccl_team);
}
#endif

// --- a team of slabs: buffers, start, iterations ------------------------------------------

// `nlocal` slabs of a cut into `nslabs`, from slab `first_index`, on `devices`.
static gpu_team team_open(grid_shape g, int nslabs, int first_index, int nlocal, const int *devices,
                          bool multi_process, bool random, uint64_t key)
{
    gpu_team team = {.g = g,
                     .nslabs = nslabs,
                     .nlocal = nlocal,
                     .multi_process = multi_process,
                     .random = random,
                     .key = key};
    team.local = calloc(nlocal, sizeof *team.local);
    for (int l = 0; l < nlocal; l++) {
        slab_gpu *s = &team.local[l];
        s->index = first_index + l;
        s->device = devices[l];
        s->slab = laplace_slab_of(g.nz, nslabs, s->index);
        const size_t bytes = plane_floats(g) * (s->slab.planes + 2) * sizeof(float);
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        cl_require_device_memory(2 * bytes, 0);
        CL_CUDA_CHECK(cudaMalloc((void **)&s->in, bytes));
        CL_CUDA_CHECK(cudaMalloc((void **)&s->out, bytes));
        CL_CUDA_CHECK(cudaMalloc((void **)&s->sums, 4 * sizeof *s->sums));
        CL_CUDA_CHECK(cudaStreamCreateWithFlags(&s->compute, cudaStreamNonBlocking));
        CL_CUDA_CHECK(cudaStreamCreateWithFlags(&s->comm, cudaStreamNonBlocking));
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->edges_done, cudaEventDisableTiming));
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&s->exchanged, cudaEventDisableTiming));
    }
    return team;
}

// m1's pinned staging and m2's peer access, for a team that exchanges in one process.
static void team_enable_exchanges(gpu_team *team)
{
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        CL_CUDA_CHECK(
            cudaMallocHost((void **)&s->staging, 2 * plane_floats(team->g) * sizeof(float)));
        for (int m = l - 1; m <= l + 1; m += 2) {
            int can = 0;
            if (m < 0 || m >= team->nlocal || team->local[m].device == s->device)
                continue;
            CL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, s->device, team->local[m].device));
            if (!can)
                continue;
            const cudaError_t e = cudaDeviceEnablePeerAccess(team->local[m].device, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                CL_CUDA_CHECK(e);
        }
    }
}

static void team_close(gpu_team *team)
{
    if (nccl_team == team) { // closed in order below: no abort from here on
        nccl_team = NULL;
        cl_set_fatal_hook(NULL);
    }
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
#ifdef CL_HAVE_NCCL
        // A nonblocking communicator finishes its work first (ncclCommFinalize returns at
        // once and is polled); destroying then frees it, after which it is not touched.
        if (s->nccl && team->multi_process)
            NCCL_CALL(team, s->nccl, ncclCommFinalize(s->nccl));
        if (s->nccl) {
            const ncclResult_t r = ncclCommDestroy(s->nccl);
            s->nccl = NULL;
            if (r != ncclSuccess)
                cl_die(CL_EXIT_CUDA, "ncclCommDestroy: %s", ncclGetErrorString(r));
        }
#endif
        CL_CUDA_CHECK(cudaFree(s->in));
        CL_CUDA_CHECK(cudaFree(s->out));
        CL_CUDA_CHECK(cudaFree(s->sums));
        CL_CUDA_CHECK(cudaFreeHost(s->staging));
        CL_CUDA_CHECK(cudaStreamDestroy(s->compute));
        CL_CUDA_CHECK(cudaStreamDestroy(s->comm));
        CL_CUDA_CHECK(cudaEventDestroy(s->edges_done));
        CL_CUDA_CHECK(cudaEventDestroy(s->exchanged));
    }
    free(team->local);
    team->local = NULL;
}

// Both iterates of every slab hold the start (ghost planes included: the end slabs'
// ghosts are the grid's boundary planes, which no iteration writes).
static void team_start(gpu_team *team)
{
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        laplace_fill_planes(s->in, team->g, s->slab.first - 1, s->slab.planes + 2, team->random,
                            team->key, s->compute);
        laplace_fill_planes(s->out, team->g, s->slab.first - 1, s->slab.planes + 2, team->random,
                            team->key, s->compute);
    }
    team_wait(team);
}

typedef enum { PART_ALL, PART_COMPUTE, PART_EXCHANGE } run_part;

static void step_slab(gpu_team *team, slab_gpu *s, int p_lo, int p_hi)
{
    laplace_step_planes(s->in, s->out, slab_grid(team, s), p_lo, p_hi, s->compute);
}

// m1: the slabs' iterations; both edge planes to the host, wait, on to the neighbours'
// ghost planes, wait.
static void iteration_host(gpu_team *team, run_part part)
{
    const size_t bytes = plane_floats(team->g) * sizeof(float), n = plane_floats(team->g);
    for (int l = 0; l < team->nlocal && part != PART_EXCHANGE; l++) {
        CL_CUDA_CHECK(cudaSetDevice(team->local[l].device));
        step_slab(team, &team->local[l], 1, team->local[l].slab.planes + 1);
    }
    if (part == PART_COMPUTE)
        return;
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        CL_CUDA_CHECK(cudaMemcpyAsync(s->staging, plane_at(s->out, team->g, 1), bytes,
                                      cudaMemcpyDeviceToHost, s->compute));
        CL_CUDA_CHECK(cudaMemcpyAsync(s->staging + n, plane_at(s->out, team->g, s->slab.planes),
                                      bytes, cudaMemcpyDeviceToHost, s->compute));
    }
    team_wait(team);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        if (s->slab.below >= 0)
            CL_CUDA_CHECK(cudaMemcpyAsync(plane_at(s->out, team->g, 0),
                                          team->local[l - 1].staging + n, bytes,
                                          cudaMemcpyHostToDevice, s->compute));
        if (s->slab.above >= 0)
            CL_CUDA_CHECK(cudaMemcpyAsync(plane_at(s->out, team->g, s->slab.planes + 1),
                                          team->local[l + 1].staging, bytes, cudaMemcpyHostToDevice,
                                          s->compute));
    }
    team_wait(team);
}

// m2: each slab waits for its neighbours' copies of the last iteration (their events),
// iterates, then copies its edge planes into their ghost planes. All waits are issued
// before any event of this iteration is recorded, so each refers to the last one.
static void iteration_peer(gpu_team *team, run_part part)
{
    const size_t bytes = plane_floats(team->g) * sizeof(float);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        // Neighbours in this process only: with one process a GPU (its slab timed alone,
        // PART_COMPUTE) the neighbours' events are in other processes.
        if (s->slab.below >= 0 && l > 0)
            CL_CUDA_CHECK(cudaStreamWaitEvent(s->compute, team->local[l - 1].exchanged, 0));
        if (s->slab.above >= 0 && l + 1 < team->nlocal)
            CL_CUDA_CHECK(cudaStreamWaitEvent(s->compute, team->local[l + 1].exchanged, 0));
        if (part != PART_EXCHANGE)
            step_slab(team, s, 1, s->slab.planes + 1);
    }
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        if (part != PART_COMPUTE && s->slab.below >= 0) {
            slab_gpu *b = &team->local[l - 1];
            CL_CUDA_CHECK(cudaMemcpyPeerAsync(plane_at(b->out, team->g, b->slab.planes + 1),
                                              b->device, plane_at(s->out, team->g, 1), s->device,
                                              bytes, s->compute));
        }
        if (part != PART_COMPUTE && s->slab.above >= 0) {
            slab_gpu *a = &team->local[l + 1];
            CL_CUDA_CHECK(cudaMemcpyPeerAsync(plane_at(a->out, team->g, 0), a->device,
                                              plane_at(s->out, team->g, s->slab.planes), s->device,
                                              bytes, s->compute));
        }
        CL_CUDA_CHECK(cudaEventRecord(s->exchanged, s->compute));
    }
}

#ifdef CL_HAVE_NCCL
// m3: the edge planes first, an event, the inside; the comm stream waits for the event
// and exchanges with ncclSend/ncclRecv (one group for every slab this process drives)
// while the inside is computed. The next iteration waits for the exchange.
static void iteration_nccl(gpu_team *team, run_part part)
{
    const size_t n = plane_floats(team->g);
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        const int planes = s->slab.planes;
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        CL_CUDA_CHECK(cudaStreamWaitEvent(s->compute, s->exchanged, 0));
        // Below 3 planes a slab is all edge: one launch, before the event.
        const bool compute = part != PART_EXCHANGE, split = planes >= 3;
        if (compute)
            step_slab(team, s, 1, split ? 2 : planes + 1);
        if (compute && split)
            step_slab(team, s, planes, planes + 1);
        CL_CUDA_CHECK(cudaEventRecord(s->edges_done, s->compute));
        if (compute && split)
            step_slab(team, s, 2, planes);
        CL_CUDA_CHECK(cudaStreamWaitEvent(s->comm, s->edges_done, 0));
    }
    if (part != PART_COMPUTE) {
        NCCL_CALL(team, team->local[0].nccl, ncclGroupStart());
        for (int l = 0; l < team->nlocal; l++) {
            slab_gpu *s = &team->local[l];
            const laplace_slab sl = s->slab;
            float *const edge_below = plane_at(s->out, team->g, 1),
                         *const ghost_below = plane_at(s->out, team->g, 0),
                         *const edge_above = plane_at(s->out, team->g, sl.planes),
                         *const ghost_above = plane_at(s->out, team->g, sl.planes + 1);
            if (sl.below >= 0) {
                NCCL_CALL(team, s->nccl,
                          ncclSend(edge_below, n, ncclFloat, sl.below, s->nccl, s->comm));
                NCCL_CALL(team, s->nccl,
                          ncclRecv(ghost_below, n, ncclFloat, sl.below, s->nccl, s->comm));
            }
            if (sl.above >= 0) {
                NCCL_CALL(team, s->nccl,
                          ncclSend(edge_above, n, ncclFloat, sl.above, s->nccl, s->comm));
                NCCL_CALL(team, s->nccl,
                          ncclRecv(ghost_above, n, ncclFloat, sl.above, s->nccl, s->comm));
            }
        }
        NCCL_CALL(team, team->local[0].nccl, ncclGroupEnd());
    }
    for (int l = 0; l < team->nlocal; l++) {
        CL_CUDA_CHECK(cudaSetDevice(team->local[l].device));
        CL_CUDA_CHECK(cudaEventRecord(team->local[l].exchanged, team->local[l].comm));
    }
}
#endif

static void team_iterate(gpu_team *team, int exchange, run_part part, int iterations)
{
    for (int it = 0; it < iterations; it++) {
        if (exchange == EXCHANGE_HOST) {
            iteration_host(team, part);
        } else if (exchange == EXCHANGE_PEER) {
            iteration_peer(team, part);
        } else {
#ifdef CL_HAVE_NCCL
            iteration_nccl(team, part);
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
static double team_time(gpu_team *team, int exchange, run_part part, int iterations, int reps)
{
    double ms[64];
    for (int rep = -1; rep < reps; rep++) {
        team_start(team);
        team_barrier(team);
        const double t0 = cl_wall_ms();
        team_iterate(team, exchange, part, iterations);
        team_barrier(team);
        if (rep >= 0)
            ms[rep] = cl_wall_ms() - t0;
    }
    return cl_median(ms, reps);
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

static unsigned long long team_checksum(gpu_team *team)
{
    unsigned long long mine = 0, sum, part;
    for (int l = 0; l < team->nlocal; l++) {
        slab_gpu *s = &team->local[l];
        int lo, hi;
        result_planes(s, &lo, &hi);
        CL_CUDA_CHECK(cudaSetDevice(s->device));
        CL_CUDA_CHECK(cudaMemsetAsync(s->sums, 0, sizeof *s->sums, s->compute));
        laplace_checksum_planes(plane_at(s->in, team->g, lo), team->g, s->slab.first - 1 + lo,
                                hi - lo, s->sums, s->compute);
        CL_CUDA_CHECK(
            cudaMemcpyAsync(&part, s->sums, sizeof part, cudaMemcpyDeviceToHost, s->compute));
        CL_CUDA_CHECK(cudaStreamSynchronize(s->compute));
        mine += part;
    }
    team_sum(team, &mine, &sum, 1);
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
static void compare_with_reference(gpu_team *team, const gpu_team *ref, verdict_counts *c,
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
static void compare_boxes(gpu_team *team, int iterations, uint64_t seed, verdict_counts *c,
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
            const int l = holder - team->local[0].index;
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
static verdict_counts team_verify(gpu_team *team, const gpu_team *ref, int iterations,
                                  uint64_t seed)
{
    verdict_counts mine = {0}, all;
    bool reported = false;
    if (ref)
        compare_with_reference(team, ref, &mine, &reported);
    compare_boxes(team, iterations, seed, &mine, &reported);
    unsigned long long counts[2] = {mine.wrong, mine.checked}, sums[2];
    team_sum(team, counts, sums, 2);
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

// How this run is laid out: GPUs, processes, whether neighbouring GPUs reach each
// other's memory (peer access: NVLink or PCIe), NCCL's version.
static void print_setup(int gpus, bool multi_process, const int *devices)
{
    static const cl_column columns[] = {
        {"gpus", "GPUs", 4, NULL},
        {"processes", "processes", 9, NULL},
        {"peer_access", "peer access", 11, NULL},
        {"nccl", "NCCL", 8, NULL},
    };
    static const cl_table table = {"setup", columns, 4};
    char version[32] = "none";
#ifdef CL_HAVE_NCCL
    int v = 0;
    ncclGetVersion(&v);
    snprintf(version, sizeof version, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
#endif
    int peer = 1;
    for (int l = 0; l + 1 < gpus && !multi_process; l++) {
        int can = devices[l] == devices[l + 1];
        if (!can)
            CL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices[l], devices[l + 1]));
        peer = peer && can;
    }
    cl_table_header(&table);
    cl_table_row(&table, (cl_cell[]){CL_INT(gpus), CL_INT(multi_process ? gpus : 1),
                                     CL_STR(multi_process ? "-"
                                            : peer        ? "yes"
                                                          : "no"),
                                     CL_STR(version)});
}

static bool fits_free_memory(int device, size_t bytes)
{
    size_t free_bytes, total;
    CL_CUDA_CHECK(cudaSetDevice(device));
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return bytes <= free_bytes / 100 * 95;
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
                    int device, uint64_t key, double *ms, gpu_team *keep)
{
    const laplace_gpus_options *opt = report->opt;
    gpu_team team = team_open(g, 1, 0, 1, &device, false, opt->random, key);
    *ms = team_time(&team, EXCHANGE_PEER, PART_COMPUTE, opt->repeat, opt->reps);
    const bool verified =
        record_verdict(report, name, team_verify(&team, NULL, opt->repeat, opt->seed), false);
    print_row(report, name, 1, whole_grid, *ms, NAN, NAN, CL_BOOL(verified));
    if (keep)
        *keep = team;
    else
        team_close(&team);
    return verified;
}

int laplace_run_gpus(const laplace_gpus_options *opt, laplace_launch launch)
{
    const bool multi_process = launch.world > 1;
    watchdog_ms = 1e3 * opt->watchdog_s;
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess)
        visible = 0;
    // One process driving the GPUs needs --gpus of them (none visible: cl_device_open
    // says why). One process a GPU takes its local rank's GPU, modulo those it sees: a
    // launcher that gives each task one GPU shows every task its GPU as device 0.
    if (!multi_process && visible > 0 && visible < opt->gpus)
        cl_die(CL_EXIT_NO_DEVICE, "--gpus %d: %d GPU%s visible", opt->gpus, visible,
               visible == 1 ? "" : "s");
    const int local_rank = launch.local_rank >= 0 ? launch.local_rank : launch.rank;
    const int device0 = multi_process && visible > 0 ? local_rank % visible : 0;
    if (multi_process && launch.rank != 0 && !freopen("/dev/null", "w", stdout))
        cl_die(CL_EXIT_CUDA, "rank %d: cannot silence stdout", launch.rank);
    cl_device_open(device0);

    const grid_shape g = opt->g;
    const uint64_t key = cl_rng_key(opt->seed, 0);
    const int nslabs = opt->gpus;
    int devices[LAPLACE_MAX_GPUS];
    for (int l = 0; l < nslabs; l++)
        devices[l] = multi_process ? device0 : l;
    const int first = multi_process ? launch.rank : 0, nlocal = multi_process ? 1 : nslabs;
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
    gpu_team ref = {0};
    bool have_ref = false, ok = true;
    print_setup(nslabs, multi_process, devices);
    cl_table_header(&gpus_table);
    if (fits_free_memory(device0, 2 * grid_bytes)) {
        have_ref = fits_free_memory(device0, 2 * grid_bytes + 2 * slab_bytes);
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

    gpu_team team = team_open(g, nslabs, first, nlocal, devices, multi_process, opt->random, key);
    if (!multi_process)
        team_enable_exchanges(&team);
#ifdef CL_HAVE_NCCL
    if (opt->exchange == EXCHANGE_NCCL || opt->exchange == EXCHANGE_ALL)
        nccl_open(&team, launch, opt->id_file);
#endif
    const double compute_ms = team_time(&team, EXCHANGE_PEER, PART_COMPUTE, opt->repeat, opt->reps);
    print_row(&report, "compute alone", nslabs, true, compute_ms, NAN, NAN, CL_STR("-"));
    for (int e = 0; e < EXCHANGE_COUNT; e++) {
        if (opt->exchange != EXCHANGE_ALL && opt->exchange != e)
            continue;
        const double exchange_ms = team_time(&team, e, PART_EXCHANGE, opt->repeat, opt->reps);
        const double ms = team_time(&team, e, PART_ALL, opt->repeat, opt->reps);
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
        team_close(&ref);
    team_close(&team);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}
