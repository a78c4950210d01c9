// The parts of a run across GPUs that need no GPU, the layer team.h is built on: where a
// launcher put this process, the watchdog that bounds every wait, and the id file through
// which the processes of a one-process-a-GPU run meet. Unit-tested on the CPU.
#ifndef CUDALAB_LAUNCH_ENV_H
#define CUDALAB_LAUNCH_ENV_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Where the launcher put this process: from OMPI_COMM_WORLD_RANK/SIZE (mpirun),
// SLURM_PROCID/NTASKS (srun) or RANK/WORLD_SIZE (torchrun and others); world 1 when
// none is set. local_rank picks the GPU, modulo the GPUs the process sees
// (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, LOCAL_RANK; -1 when none is set: the rank
// then). A malformed value exits 2.
typedef struct {
    int rank, world, local_rank;
    const char *source; // the variable that set the rank, for messages; NULL for none
} cl_launch;
cl_launch cl_launch_from_env(void);
// One process driving every GPU: what a run without a launcher is.
static inline cl_launch cl_launch_single(void) { return (cl_launch){0, 1, -1, NULL}; }

// A deadline for polling waits: expired once limit_ms have passed since the start.
typedef struct {
    double start_ms, limit_ms;
} cl_watchdog;
cl_watchdog cl_watchdog_start(double limit_ms);
bool cl_watchdog_expired(const cl_watchdog *w);

// How the processes of a one-process-a-GPU run meet: rank 0 writes `bytes` of id to
// `path` whole (a temporary file renamed into place, so a reader never sees half), and
// refuses a path that exists (exit 2: the others could read an earlier run's id). Beside
// the id the file says who wrote it and when: the writer's host and pid, the wall-clock
// time, and how long the writer waits for the others (its watchdog, `wait_ms`).
void cl_id_file_write(const char *path, const void *id, size_t bytes, double wait_ms);

// The others wait for the file, polling, until `limit_ms`. A file that an earlier run left
// is not taken for this run's: one written by a process of this host that has ended, or
// written longer before this reader began waiting than its writer waits (that writer gave
// up before this reader started), or one that is not such a file at all, is stale.
typedef enum { CL_ID_READ, CL_ID_NONE, CL_ID_STALE } cl_id_status;
// CL_ID_READ: `id` filled; CL_ID_NONE: no file came in time; CL_ID_STALE: `why` says whose
// file it is and why it is not this run's.
cl_id_status cl_id_file_read(const char *path, void *id, size_t bytes, double limit_ms, char *why,
                             size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
