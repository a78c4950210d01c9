// The parts of a team of GPUs that need no GPU (launch_env.h): where a launcher put this
// process, the watchdog, the id file through which the processes meet.
#include "launch_env.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "check.h"
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

// The id file: this header, then the id. The time is the wall clock (comparable between
// the hosts of a run, where the monotonic clock is not).
enum { ID_MAGIC = 0x31646963 }; // "cid1"
typedef struct {
    uint32_t magic, id_bytes;
    int32_t pid;
    char host[64];
    double written_unix_ms, wait_ms;
} id_header;

static double unix_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

static void this_host(char host[64])
{
    memset(host, 0, 64);
    if (gethostname(host, 63) != 0)
        host[0] = 0;
}

void cl_id_file_write(const char *path, const void *id, size_t bytes, double wait_ms)
{
    if (access(path, F_OK) == 0)
        cl_die(CL_EXIT_USAGE,
               "--nccl-id-file %s exists: give a path no earlier run left (the other ranks "
               "would read a stale id)",
               path);
    id_header h = {ID_MAGIC, (uint32_t)bytes, (int32_t)getpid(), "", unix_ms(), wait_ms};
    this_host(h.host);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    bool written = f && fwrite(&h, sizeof h, 1, f) == 1 && fwrite(id, bytes, 1, f) == 1;
    if (f)
        written = fclose(f) == 0 && written;
    if (!written || rename(tmp, path)) {
        remove(tmp);
        cl_die(CL_EXIT_USAGE, "--nccl-id-file %s: cannot write it", path);
    }
}

// Whether the file's writer is an earlier run's: why, or NULL for this run's.
static bool stale(const id_header *h, size_t bytes, double began_unix_ms, char *why, size_t len)
{
    if (h->magic != ID_MAGIC || h->id_bytes != bytes) {
        snprintf(why, len,
                 "not an id file of this program's (another program's, or another version's)");
        return true;
    }
    char host[64];
    this_host(host);
    const bool here = strncmp(host, h->host, sizeof host) == 0;
    if (here && h->pid > 0 && kill(h->pid, 0) != 0 && errno == ESRCH) {
        snprintf(why, len, "written by process %d of this host, which has ended", (int)h->pid);
        return true;
    }
    const double before_s = (began_unix_ms - h->written_unix_ms) / 1e3;
    if (before_s * 1e3 > h->wait_ms) {
        snprintf(why, len,
                 "written by process %d of %s %.0f s before this rank started, and it waits %.0f s "
                 "for the others",
                 (int)h->pid, h->host[0] ? h->host : "a host", before_s, h->wait_ms / 1e3);
        return true;
    }
    return false;
}

cl_id_status cl_id_file_read(const char *path, void *id, size_t bytes, double limit_ms, char *why,
                             size_t why_len)
{
    const double began = unix_ms();
    const cl_watchdog watchdog = cl_watchdog_start(limit_ms);
    for (;;) {
        FILE *f = fopen(path, "rb");
        id_header h;
        bool got = false, whole = false;
        if (f) {
            got = fread(&h, sizeof h, 1, f) == 1;
            whole =
                got && h.magic == ID_MAGIC && h.id_bytes == bytes && fread(id, bytes, 1, f) == 1;
            fclose(f);
        }
        if (f && !got) {
            snprintf(why, why_len, "shorter than an id file of this program's");
            return CL_ID_STALE;
        }
        if (f && stale(&h, bytes, began, why, why_len))
            return CL_ID_STALE;
        if (whole)
            return CL_ID_READ;
        if (cl_watchdog_expired(&watchdog))
            return CL_ID_NONE;
        usleep(10000);
    }
}
