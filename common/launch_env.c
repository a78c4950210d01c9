// The parts of a team of GPUs that need no GPU (team.h): where a launcher put this
// process, the watchdog, the id file through which the processes meet.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "team.h"
#include "timing.h"

// The variable as a number in [lo, 2^20]; -1 when it is not set.
static int env_int(const char *name, int lo)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return -1;
    char *end;
    const long value = strtol(text, &end, 10);
    if (*end || value < lo || value > 1 << 20)
        cl_die(CL_EXIT_USAGE, "%s=%s: expected a whole number >= %d", name, text, lo);
    return (int)value;
}

cl_launch cl_launch_from_env(void)
{
    static const char *const vars[3][3] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"}, // mpirun
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},                              // srun
        {"RANK", "WORLD_SIZE", "LOCAL_RANK"},                                           // torchrun
    };
    for (int v = 0; v < 3; v++) {
        const int rank = env_int(vars[v][0], 0);
        if (rank < 0)
            continue;
        cl_launch l = {rank, env_int(vars[v][1], 1), env_int(vars[v][2], 0), vars[v][0]};
        if (l.world < 0)
            cl_die(CL_EXIT_USAGE, "%s is set but %s is not", vars[v][0], vars[v][1]);
        if (l.rank >= l.world)
            cl_die(CL_EXIT_USAGE, "%s=%d: not below %s=%d", vars[v][0], l.rank, vars[v][1],
                   l.world);
        return l;
    }
    return cl_launch_single();
}

cl_watchdog cl_watchdog_start(double limit_ms) { return (cl_watchdog){cl_wall_ms(), limit_ms}; }

bool cl_watchdog_expired(const cl_watchdog *w) { return cl_wall_ms() - w->start_ms > w->limit_ms; }

void cl_id_file_write(const char *path, const void *id, size_t bytes)
{
    if (access(path, F_OK) == 0)
        cl_die(CL_EXIT_USAGE,
               "--nccl-id-file %s exists: give a path no earlier run left (the other ranks "
               "would read a stale id)",
               path);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    bool written = f && fwrite(id, bytes, 1, f) == 1;
    if (f)
        written = fclose(f) == 0 && written;
    if (!written || rename(tmp, path)) {
        remove(tmp);
        cl_die(CL_EXIT_USAGE, "--nccl-id-file %s: cannot write it", path);
    }
}

bool cl_id_file_read(const char *path, void *id, size_t bytes, double limit_ms)
{
    const cl_watchdog watchdog = cl_watchdog_start(limit_ms);
    for (;;) {
        FILE *f = fopen(path, "rb");
        const bool got = f && fread(id, bytes, 1, f) == 1;
        if (f)
            fclose(f);
        if (got)
            return true;
        if (cl_watchdog_expired(&watchdog))
            return false;
        usleep(10000);
    }
}
