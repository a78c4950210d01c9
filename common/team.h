// A team of GPUs: the multi-GPU layer the exercises share (laplace3d and radix_sort
// --gpus N). What every multi-GPU run needs and no exercise should write twice:
//   - where a launcher put this process (mpirun, srun, torchrun: cl_launch_from_env),
//     and the options that say so (--gpus, --nccl-id-file, --watchdog: cl_team_launch)
//   - the GPUs this process drives, each with a compute stream, a communication stream
//     and a communicator, for both ways to run: one process driving N GPUs
//     (ncclCommInitAll), or one process a GPU under a launcher, meeting through an id
//     file that rank 0 writes (ncclCommInitRank on a nonblocking communicator)
//   - waits that poll every GPU (and NCCL's errors) under a watchdog, so a GPU that
//     faults or a rank that dies ends the run with exit 3, never a hang: every fatal exit
//     first aborts the communicators, so no peer is left waiting on them
//   - sums across the team (an all-reduce, also a barrier), a timer between barriers,
//     the table that says how the run is laid out.
// The exercise keeps only its own data on each GPU and its own exchanges (laplace3d:
// slabs and halo planes; radix_sort: shares, cuts and ranges). The layer below it,
// launch_env.h, holds the parts that need no GPU (unit-tested on the CPU); team.c the rest.
#ifndef CUDALAB_TEAM_H
#define CUDALAB_TEAM_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cli.h"
#include "launch_env.h"
#ifdef CL_HAVE_NCCL
#include <nccl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { CL_TEAM_MAX_GPUS = 64, CL_TEAM_SUM_CHUNK = 1024 };

// --- the team (team.c) ---------------------------------------------------------------

// Whether this build has NCCL (without it the exercises refuse --gpus N > 1).
extern const bool cl_team_have_nccl;

// The options of a run across GPUs, the same in every exercise that has one: --gpus
// (its help `what`), --nccl-id-file and --watchdog, as entries of an option table.
typedef struct {
    long gpus, watchdog_s;
    const char *id_file;
} cl_team_args;
#define CL_TEAM_ARGS_DEFAULT                                                                       \
    {                                                                                              \
        .gpus = 1, .watchdog_s = 120                                                               \
    }
// clang-format off
#define CL_TEAM_OPTIONS(args, what)                                                                \
    {0, "gpus", CL_ARG_INT, &(args).gpus, "N", what, 1, CL_TEAM_MAX_GPUS, NULL},                   \
    {0, "nccl-id-file", CL_ARG_STRING, &(args).id_file, "FILE",                                    \
     "with --gpus under mpirun/srun/torchrun (one process a GPU): a new file on a path all "       \
     "ranks see, where rank 0 leaves NCCL's id", 0, 0, NULL},                                      \
    {0, "watchdog", CL_ARG_INT, &(args).watchdog_s, "S",                                           \
     "with --gpus: a GPU or rank that has not finished in S seconds ends the run (exit 3)", 1,     \
     3600, NULL}
// clang-format on

// Where this process stands in a run of args->gpus GPUs: under a launcher (its variables
// set) one of args->gpus processes, which must have --nccl-id-file; else one process
// driving them all. A build without NCCL is refused. Usage errors exit 2.
cl_launch cl_team_launch(const cl_team_args *args);

// This process's part of a run on `gpus` GPUs: the team ranks it drives and their
// CUDA devices.
typedef struct {
    int gpus;               // GPUs in the whole run (the NCCL world)
    int first_rank, nlocal; // this process drives ranks first_rank .. first_rank+nlocal-1
    bool multi_process;     // one process a GPU (under a launcher)
    int devices[CL_TEAM_MAX_GPUS];
} cl_team_plan;

// One process: every GPU, devices 0..gpus-1 (exit 77 when fewer are visible). Under a
// launcher (launch.world > 1, which must equal gpus): the GPU at its local rank (or
// rank), modulo the GPUs it sees: a launcher that gives each task one GPU shows it as
// device 0. Opens the first device (cl_device_open: exit 77 without a usable GPU) and
// silences stdout on ranks above 0 (rank 0 prints the tables).
cl_team_plan cl_team_plan_for(int gpus, cl_launch launch);
// A team of one GPU in this process (a baseline run beside the team).
cl_team_plan cl_team_plan_one(int device);

struct ncclComm; // NCCL's communicator (ncclComm_t), NULL until cl_team_nccl_open
typedef struct {
    int rank, device;           // its rank in the team, its CUDA device
    cudaStream_t compute, comm; // non-blocking streams: the work, the exchanges
    unsigned long long *sums;   // device scratch for cl_team_sum (CL_TEAM_SUM_CHUNK)
    struct ncclComm *nccl;
} cl_team_gpu;

typedef struct {
    cl_team_plan plan;
    double watchdog_ms; // a GPU or rank silent this long ends the run (exit 3)
    cl_team_gpu *local; // plan.nlocal of them
} cl_team;

// The streams and scratch of each GPU of the plan. No communicator yet.
void cl_team_open(cl_team *team, const cl_team_plan *plan, double watchdog_s);
// Peer access (NVLink or PCIe) between this process's GPUs whose ranks differ by at
// most `reach` (1: neighbours; nlocal: all pairs), where the hardware allows it.
void cl_team_enable_peers(cl_team *team, int reach);
// NCCL communicators for every GPU of the team: ncclCommInitAll in one process, else the
// id file (`id_file`, written by rank 0 and removed once every rank has joined). From
// here until cl_team_close, any fatal exit aborts them first.
void cl_team_nccl_open(cl_team *team, const char *id_file);
// The sends and receives of every local GPU between these two go out as one group
// (ncclGroupStart/End): none waits for another to be posted.
void cl_team_group_start(cl_team *team);
void cl_team_group_end(cl_team *team);
// Communicators finalized and destroyed, streams and scratch freed.
void cl_team_close(cl_team *team);

// Waits for both streams of every local GPU at once, polling, so a GPU that faults
// ends the run with its error (exit 3) even while another waits on it in an exchange;
// NCCL's asynchronous errors and the watchdog likewise. Past its first millisecond the
// poll sleeps 50 us between looks, so a long wait does not hold a CPU core.
void cl_team_wait(cl_team *team);
// Sums n counters across the processes of the team into `sums` (one process: a copy).
// An all-reduce over NCCL (CL_TEAM_SUM_CHUNK at a time), so also a barrier.
void cl_team_sum(cl_team *team, const unsigned long long *mine, unsigned long long *sums, int n);
// Every rank's `per_rank` counters on every rank: this process's ranks have written
// theirs at slots[rank * per_rank ..], the others' are filled in (a sum over a zeroed
// copy of this process's slots, so also a barrier; one process: nothing to fill).
void cl_team_gather(cl_team *team, unsigned long long *slots, int per_rank);
// Every GPU idle, every process here.
void cl_team_barrier(cl_team *team);
// Median wall time of `reps` (1..64) runs of run(ctx), each after prepare(ctx) and
// between two barriers, after one run to warm up.
double cl_team_time(cl_team *team, void (*prepare)(void *ctx), void (*run)(void *ctx), void *ctx,
                    int reps);

// The "setup" table: GPUs, processes, whether neighbouring GPUs reach each other's
// memory (peer access), NCCL's version.
void cl_team_print_setup(const cl_team_plan *plan);
// Whether `bytes` fit in 95% of what `device` has free.
bool cl_team_device_fits(int device, size_t bytes);

#ifdef CL_HAVE_NCCL
// An NCCL call's result settled: a nonblocking communicator's ncclInProgress polled
// until done or the watchdog; any failure aborts the team's communicators and exits 3.
void cl_team_nccl_settle(cl_team *team, ncclComm_t comm, ncclResult_t r, const char *call);
#define CL_NCCL_CALL(team, comm, call) cl_team_nccl_settle((team), (comm), (call), #call)
#endif

#ifdef __cplusplus
}
#endif

#endif
