// radix_sort --gpus N's team (private to multi_gpu.c and scatter.c): each GPU's share
// and buffers, the team's plans, and the pieces the methods share. m1-m3 and the run
// are in multi_gpu.c, m4 in scatter.c.
#ifndef RADIX_SORT_SORT_TEAM_H
#define RADIX_SORT_SORT_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "multi_gpu.h"
#include "sort.h"
#include "team.h"

// The most chunks m4's first scatter cuts a share into (scatter.c says why).
enum { SCATTER_CHUNKS = 8 };

// A GPU's share and its buffers (the team's GPU, streams and communicator:
// common/team.h). All work of a run goes on the GPU's compute stream, NCCL's too, so
// each step waits for the one before it on that GPU.
typedef struct {
    cl_team_gpu *gpu;
    radix_share share;
    uint32_t *keys, *values;               // the input share; m2 receives its ranges here
    uint32_t *sorted_keys, *sorted_values; // the result (m2: the first sort's too)
    cl_sort_workspace *ws;
    size_t *merge_splits;       // device: m3's merge path, a block's start in the runs
    unsigned long long *counts; // device: the bounds' lt and le, the digest
    // m4: its 256 counts of a digit over some of its places (a row a chunk of the first
    // scatter; device, and the chunks' rows here), where a scatter's keys of each digit
    // start (device, a row a chunk)
    unsigned *digit_counts, chunk_counts[SCATTER_CHUNKS][256];
    unsigned long long *starts, chunk_starts[SCATTER_CHUNKS][256];
    // m4's first scatter through copies: this GPU's mirror of the other parts' places
    // (keys, values; NULL where it did not fit: then the pass stores to the peers), the
    // spread whose parts are its own inbox and the mirror, an event a chunk
    uint32_t *mirror_keys, *mirror_values;
    cl_sort_spread mirrored;
    cudaEvent_t chunk_passed[SCATTER_CHUNKS];
} share_gpu;

typedef struct {
    cl_team team;
    const radix_gpus_options *opt;
    int gpus;
    uint32_t mask;
    share_gpu *local;
    uint64_t *cuts; // gpus x (gpus + 1): radix_find_cuts
    // m1: GPU 0's whole input and its sort, where it fits (every rank knows whether)
    bool gather_fits;
    uint32_t *all_keys, *all_values, *all_sorted_keys, *all_sorted_values;
    cl_sort_workspace *all_ws;
    // m4: the shares' places in the whole sequence; every rank's inbox (the first scatter's
    // target) and other buffer (the refining scatters') as this process stores to them
    // (every rank knows whether all are reachable); those opened through CUDA IPC, to
    // close; the first scatter's counts, every rank's
    bool scatter_fits;
    uint64_t first[CL_TEAM_MAX_GPUS + 1];
    cl_sort_spread inboxes, others;
    void *opened[4 * CL_TEAM_MAX_GPUS];
    int nopened;
    uint64_t top_counts[CL_TEAM_MAX_GPUS * 256];
} sort_team;

// The stages of a run with a barrier after each (the "stages" table): where the time goes.
typedef enum { STAGE_LOCAL_SORT, STAGE_CUTS, STAGE_EXCHANGE, STAGE_LAST, STAGE_COUNT } stage;
// With `stage_ms` (zeroed before a run): every GPU idle and every process here, the time
// since *t0 added to stage st's.
void stage_done(sort_team *t, double *stage_ms, stage st, double *t0);

// A GPU's copy to itself (NCCL's point to point is between ranks).
void copy_range(share_gpu *s, uint32_t *keys, uint32_t *values, const uint32_t *from_keys,
                const uint32_t *from_values, size_t count);

// m4 (scatter.c): every rank's inbox and other buffer as pointers this process's GPUs
// store to, and each GPU's mirror (t->scatter_fits: every pair reaches the other); the
// sort, with its stages' times where stage_ms is given; the sort as a timed run.
void scatter_open(sort_team *t);
void scatter_stages(sort_team *t, double *stage_ms);
void scatter_sort(void *ctx);

#endif
