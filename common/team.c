// A team of GPUs (team.h): its GPUs and streams, NCCL's communicators for both ways to
// run, the polling waits under the watchdog, sums across processes, and the abort that
// every fatal exit runs first.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "device.h"
#include "report.h"
#include "team.h"
#include "timing.h"

#ifdef CL_HAVE_NCCL
const bool cl_team_have_nccl = true;
#else
const bool cl_team_have_nccl = false;
#endif

cl_launch cl_team_launch(const cl_team_args *args)
{
    const cl_launch launch = cl_launch_from_env();
    if (launch.world > 1) {
        if (launch.world != args->gpus)
            cl_die(CL_EXIT_USAGE, "--gpus %ld, but %s says this is one of %d processes", args->gpus,
                   launch.source, launch.world);
        if (!args->id_file)
            cl_die(CL_EXIT_USAGE,
                   "one process a GPU (%s is set): --nccl-id-file FILE names where "
                   "rank 0 leaves NCCL's id for the others (a shared path)",
                   launch.source);
    }
    if (!cl_team_have_nccl)
        cl_die(CL_EXIT_USAGE,
               "--gpus: this %s was built without NCCL (install it, or set NCCL_HOME to where it "
               "is, and rebuild)",
               cl_progname);
    return launch.world > 1 ? launch : cl_launch_single();
}

cl_team_plan cl_team_plan_for(int gpus, cl_launch launch)
{
    if (gpus < 1 || gpus > CL_TEAM_MAX_GPUS)
        cl_die(CL_EXIT_USAGE, "a team of %d GPUs: 1 to %d", gpus, CL_TEAM_MAX_GPUS);
    cl_team_plan plan = {.gpus = gpus, .multi_process = launch.world > 1};
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess)
        visible = 0;
    // None visible: cl_device_open below says why.
    if (!plan.multi_process && visible > 0 && visible < gpus)
        cl_die(CL_EXIT_NO_DEVICE, "--gpus %d: %d GPU%s visible", gpus, visible,
               visible == 1 ? "" : "s");
    const int local_rank = launch.local_rank >= 0 ? launch.local_rank : launch.rank;
    const int device0 = plan.multi_process && visible > 0 ? local_rank % visible : 0;
    if (plan.multi_process && launch.rank != 0 && !freopen("/dev/null", "w", stdout))
        cl_die(CL_EXIT_CUDA, "rank %d: cannot silence stdout", launch.rank);
    cl_device_open(device0);
    plan.first_rank = plan.multi_process ? launch.rank : 0;
    plan.nlocal = plan.multi_process ? 1 : gpus;
    for (int l = 0; l < plan.nlocal; l++)
        plan.devices[l] = plan.multi_process ? device0 : l;
    return plan;
}

cl_team_plan cl_team_plan_one(int device)
{
    return (cl_team_plan){.gpus = 1, .nlocal = 1, .devices = {device}};
}

void cl_team_open(cl_team *team, const cl_team_plan *plan, double watchdog_s)
{
    *team = (cl_team){.plan = *plan, .watchdog_ms = 1e3 * watchdog_s};
    team->local = cl_host_alloc(plan->nlocal * sizeof *team->local, "team");
    for (int l = 0; l < plan->nlocal; l++) {
        cl_team_gpu *gpu = &team->local[l];
        *gpu = (cl_team_gpu){.rank = plan->first_rank + l, .device = plan->devices[l]};
        CL_CUDA_CHECK(cudaSetDevice(gpu->device));
        CL_CUDA_CHECK(cudaMalloc((void **)&gpu->sums, CL_TEAM_SUM_CHUNK * sizeof *gpu->sums));
        CL_CUDA_CHECK(cudaStreamCreateWithFlags(&gpu->compute, cudaStreamNonBlocking));
        CL_CUDA_CHECK(cudaStreamCreateWithFlags(&gpu->comm, cudaStreamNonBlocking));
    }
}

void cl_team_enable_peers(cl_team *team, int reach)
{
    for (int l = 0; l < team->plan.nlocal; l++) {
        const int device = team->local[l].device;
        CL_CUDA_CHECK(cudaSetDevice(device));
        for (int m = l - reach; m <= l + reach; m++) {
            if (m < 0 || m >= team->plan.nlocal || team->local[m].device == device)
                continue;
            int can = 0;
            CL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, team->local[m].device));
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

// --- NCCL: the abort, the settling of calls, the communicators ------------------------

// Before exiting on a failure: the communicators aborted, so no NCCL kernel is left
// waiting on a peer that will not come.
static void abort_team(cl_team *team)
{
#ifdef CL_HAVE_NCCL
    for (int l = 0; l < team->plan.nlocal; l++)
        if (team->local[l].nccl) {
            ncclCommAbort(team->local[l].nccl);
            team->local[l].nccl = NULL;
        }
#else
    (void)team;
#endif
}

// The team whose communicators are up, aborted by any fatal exit (cl_set_fatal_hook):
// a failed CUDA call anywhere, not only the waits here, ends the run with exit 3 and
// leaves no peer waiting.
static cl_team *nccl_team;
static void abort_nccl_team(void)
{
    if (nccl_team)
        abort_team(nccl_team);
    nccl_team = NULL;
}

// The polling waits (the GPUs' streams, NCCL's settling) poll without a pause for the
// first POLL_SPIN_MS (the short waits of a timed loop end within microseconds of the GPU),
// then every POLL_SLEEP_US: a wait of milliseconds, up to the watchdog's minutes, leaves
// its CPU core to the others (a process a GPU, each polling), at most that much later.
enum { POLL_SPIN_MS = 1, POLL_SLEEP_US = 50 };
static void poll_pause(const cl_watchdog *spin)
{
    if (cl_watchdog_expired(spin))
        usleep(POLL_SLEEP_US);
}

#ifdef CL_HAVE_NCCL
void cl_team_nccl_settle(cl_team *team, ncclComm_t comm, ncclResult_t r, const char *call)
{
    const cl_watchdog watchdog = cl_watchdog_start(team->watchdog_ms);
    const cl_watchdog spin = cl_watchdog_start(POLL_SPIN_MS);
    while (r == ncclInProgress) {
        poll_pause(&spin);
        if (cl_watchdog_expired(&watchdog)) {
            abort_team(team);
            cl_die(CL_EXIT_CUDA, "%s: no answer from the other ranks in %.0f s (one stopped?)",
                   call, team->watchdog_ms / 1e3);
        }
        ncclCommGetAsyncError(comm, &r);
    }
    if (r != ncclSuccess) {
        abort_team(team);
        cl_die(CL_EXIT_CUDA, "%s: %s (%s)", call, ncclGetErrorString(r), ncclGetLastError(comm));
    }
}

// One process a GPU: rank 0 writes the unique id to the file, the others wait for it;
// the communicator is nonblocking, so a rank that never comes ends the run after the
// watchdog instead of hanging it.
static void nccl_join(cl_team *team, const char *id_file)
{
    const int rank = team->plan.first_rank;
    ncclUniqueId id;
    if (rank == 0) {
        CL_NCCL_CALL(team, NULL, ncclGetUniqueId(&id));
        cl_id_file_write(id_file, &id, sizeof id, team->watchdog_ms);
    } else {
        char why[256];
        switch (cl_id_file_read(id_file, &id, sizeof id, team->watchdog_ms, why, sizeof why)) {
        case CL_ID_READ:
            break;
        case CL_ID_STALE:
            cl_die(CL_EXIT_USAGE,
                   "rank %d: --nccl-id-file %s is an earlier run's (%s): remove it, or give "
                   "every rank a new path",
                   rank, id_file, why);
        case CL_ID_NONE:
            cl_die(CL_EXIT_CUDA, "rank %d: no NCCL id in %s after %.0f s (is rank 0 running?)",
                   rank, id_file, team->watchdog_ms / 1e3);
        }
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    cl_team_gpu *gpu = &team->local[0];
    CL_CUDA_CHECK(cudaSetDevice(gpu->device));
    // Its own statement: the settling polls gpu->nccl, which the call sets.
    const ncclResult_t r = ncclCommInitRankConfig(&gpu->nccl, team->plan.gpus, id, rank, &config);
    cl_team_nccl_settle(team, gpu->nccl, r, "ncclCommInitRankConfig");
    if (rank == 0)
        unlink(id_file);
}
#endif

void cl_team_nccl_open(cl_team *team, const char *id_file)
{
#ifdef CL_HAVE_NCCL
    if (team->plan.multi_process) {
        nccl_join(team, id_file);
    } else {
        ncclComm_t comms[CL_TEAM_MAX_GPUS];
        CL_NCCL_CALL(team, NULL, ncclCommInitAll(comms, team->plan.nlocal, team->plan.devices));
        for (int l = 0; l < team->plan.nlocal; l++)
            team->local[l].nccl = comms[l];
    }
    nccl_team = team;
    cl_set_fatal_hook(abort_nccl_team);
#else
    (void)team, (void)id_file;
    cl_die(CL_EXIT_USAGE, "--gpus: this build has no NCCL (install it, or set NCCL_HOME to "
                          "where it is, and rebuild)");
#endif
}

void cl_team_group_start(cl_team *team)
{
#ifdef CL_HAVE_NCCL
    CL_NCCL_CALL(team, team->local[0].nccl, ncclGroupStart());
#else
    (void)team;
#endif
}

void cl_team_group_end(cl_team *team)
{
#ifdef CL_HAVE_NCCL
    CL_NCCL_CALL(team, team->local[0].nccl, ncclGroupEnd());
#else
    (void)team;
#endif
}

void cl_team_close(cl_team *team)
{
    if (nccl_team == team) { // closed in order below: no abort from here on
        nccl_team = NULL;
        cl_set_fatal_hook(NULL);
    }
    for (int l = 0; l < team->plan.nlocal; l++) {
        cl_team_gpu *gpu = &team->local[l];
        CL_CUDA_CHECK(cudaSetDevice(gpu->device));
#ifdef CL_HAVE_NCCL
        // A nonblocking communicator finishes its work first (ncclCommFinalize returns at
        // once and is polled); destroying then frees it, after which it is not touched.
        if (gpu->nccl && team->plan.multi_process)
            CL_NCCL_CALL(team, gpu->nccl, ncclCommFinalize(gpu->nccl));
        if (gpu->nccl) {
            const ncclResult_t r = ncclCommDestroy(gpu->nccl);
            gpu->nccl = NULL;
            if (r != ncclSuccess)
                cl_die(CL_EXIT_CUDA, "ncclCommDestroy: %s", ncclGetErrorString(r));
        }
#endif
        CL_CUDA_CHECK(cudaFree(gpu->sums));
        CL_CUDA_CHECK(cudaStreamDestroy(gpu->compute));
        CL_CUDA_CHECK(cudaStreamDestroy(gpu->comm));
    }
    free(team->local);
    team->local = NULL;
}

// --- waits, sums, time ----------------------------------------------------------------

void cl_team_wait(cl_team *team)
{
    const cl_watchdog watchdog = cl_watchdog_start(team->watchdog_ms);
    const cl_watchdog spin = cl_watchdog_start(POLL_SPIN_MS);
    for (;;) {
        bool done = true;
        for (int l = 0; l < team->plan.nlocal; l++) {
            const cl_team_gpu *gpu = &team->local[l];
            const cudaStream_t streams[2] = {gpu->compute, gpu->comm};
            for (int k = 0; k < 2; k++) {
                const cudaError_t e = cudaStreamQuery(streams[k]);
                if (e == cudaErrorNotReady)
                    done = false;
                else if (e != cudaSuccess) {
                    abort_team(team);
                    cl_die(CL_EXIT_CUDA, "GPU %d (rank %d): %s", gpu->device, gpu->rank,
                           cudaGetErrorString(e));
                }
            }
#ifdef CL_HAVE_NCCL
            ncclResult_t r = ncclSuccess;
            if (gpu->nccl && ncclCommGetAsyncError(gpu->nccl, &r) == ncclSuccess &&
                r != ncclSuccess && r != ncclInProgress) {
                abort_team(team);
                cl_die(CL_EXIT_CUDA, "rank %d: NCCL: %s", gpu->rank, ncclGetErrorString(r));
            }
#endif
        }
        if (done)
            return;
        if (cl_watchdog_expired(&watchdog)) {
            abort_team(team);
            cl_die(CL_EXIT_CUDA, "a GPU has not finished in %.0f s (a GPU or a process stopped?)",
                   team->watchdog_ms / 1e3);
        }
        poll_pause(&spin);
    }
}

void cl_team_sum(cl_team *team, const unsigned long long *mine, unsigned long long *sums, int n)
{
    for (int i = 0; i < n; i++)
        sums[i] = mine[i];
#ifdef CL_HAVE_NCCL
    if (!team->plan.multi_process)
        return;
    cl_team_gpu *gpu = &team->local[0];
    CL_CUDA_CHECK(cudaSetDevice(gpu->device));
    for (int at = 0; at < n; at += CL_TEAM_SUM_CHUNK) {
        const int count = n - at < CL_TEAM_SUM_CHUNK ? n - at : CL_TEAM_SUM_CHUNK;
        CL_CUDA_CHECK(cudaMemcpyAsync(gpu->sums, mine + at, count * sizeof *mine,
                                      cudaMemcpyHostToDevice, gpu->comm));
        CL_NCCL_CALL(
            team, gpu->nccl,
            ncclAllReduce(gpu->sums, gpu->sums, count, ncclUint64, ncclSum, gpu->nccl, gpu->comm));
        cl_team_wait(team);
        CL_CUDA_CHECK(
            cudaMemcpy(sums + at, gpu->sums, count * sizeof *sums, cudaMemcpyDeviceToHost));
    }
#else
    (void)team;
#endif
}

void cl_team_gather(cl_team *team, unsigned long long *slots, int per_rank)
{
    if (!team->plan.multi_process)
        return;
    const size_t words = (size_t)team->plan.gpus * per_rank,
                 first = (size_t)team->plan.first_rank * per_rank,
                 own = (size_t)team->plan.nlocal * per_rank;
    unsigned long long *mine = cl_host_alloc(words * sizeof *mine, "a gather");
    memset(mine, 0, words * sizeof *mine);
    memcpy(mine + first, slots + first, own * sizeof *mine);
    cl_team_sum(team, mine, slots, (int)words);
    free(mine);
}

void cl_team_barrier(cl_team *team)
{
    cl_team_wait(team);
    unsigned long long zero = 0, sum;
    cl_team_sum(team, &zero, &sum, 1);
}

double cl_team_time(cl_team *team, void (*prepare)(void *ctx), void (*run)(void *ctx), void *ctx,
                    int reps)
{
    double ms[64];
    if (reps < 1 || reps > 64)
        cl_die(CL_EXIT_USAGE, "-i %d: 1 to 64 timed runs with --gpus", reps);
    for (int rep = -1; rep < reps; rep++) {
        prepare(ctx);
        cl_team_barrier(team);
        const double t0 = cl_wall_ms();
        run(ctx);
        cl_team_barrier(team);
        if (rep >= 0)
            ms[rep] = cl_wall_ms() - t0;
    }
    return cl_median(ms, reps);
}

// --- the report -----------------------------------------------------------------------

void cl_team_print_setup(const cl_team_plan *plan)
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
    for (int l = 0; l + 1 < plan->nlocal; l++) {
        int can = plan->devices[l] == plan->devices[l + 1];
        if (!can)
            CL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, plan->devices[l], plan->devices[l + 1]));
        peer = peer && can;
    }
    cl_table_header(&table);
    cl_table_row(&table,
                 (cl_cell[]){CL_INT(plan->gpus), CL_INT(plan->multi_process ? plan->gpus : 1),
                             CL_STR(plan->multi_process ? "-"
                                    : peer              ? "yes"
                                                        : "no"),
                             CL_STR(version)});
}

bool cl_team_device_fits(int device, size_t bytes)
{
    size_t free_bytes, total;
    CL_CUDA_CHECK(cudaSetDevice(device));
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return bytes <= free_bytes / 100 * 95;
}
