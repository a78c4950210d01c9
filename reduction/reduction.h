// reduction: the sum of n floats. The C interface between main.c and reduction.cu.
#ifndef REDUCTION_H
#define REDUCTION_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// Scratch the multi-block versions keep between calls: per-block partial sums and
// the ticket counter of the last-block-done combine. Create once, reuse.
typedef struct reduction_workspace reduction_workspace;
reduction_workspace *reduction_workspace_create(void);
void reduction_workspace_destroy(reduction_workspace *ws);

// Enqueues *out = sum of x[0..n) on `stream` (device pointers).
typedef void (*reduction_launcher)(const float *x, size_t n, float *out, reduction_workspace *ws,
                                   cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    reduction_launcher launch;
} reduction_version;

extern const reduction_version reduction_versions[];
extern const int reduction_version_count;
extern const char reduction_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char reduction_yours_idea[];
void reduction_yours(const float *x, size_t n, float *out, reduction_workspace *ws,
                     cudaStream_t stream);

// The peer: cub::DeviceReduce::Sum with temporary storage allocated up front for
// sizes up to n_max.
typedef struct reduction_peer reduction_peer;
reduction_peer *reduction_peer_create(size_t n_max);
void reduction_peer_run(reduction_peer *peer, const float *x, size_t n, float *out);
void reduction_peer_destroy(reduction_peer *peer);

// gold.c: the sum in double, in an order fixed by n alone (chunks summed in
// parallel, chunk sums added in index order), so it is the same on every run.
double reduction_gold(const float *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
