// find_repeats: every index i with A[i] == A[i+1], ascending, and their count.
// The C interface between main.c and find_repeats.cu.
#ifndef FIND_REPEATS_H
#define FIND_REPEATS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// Device scratch (flags, positions, the scan's workspace) for n up to n_max.
typedef struct find_repeats_workspace find_repeats_workspace;
find_repeats_workspace *find_repeats_workspace_create(size_t n_max);
void find_repeats_workspace_destroy(find_repeats_workspace *ws);
size_t find_repeats_workspace_bytes(size_t n_max);
// Device scratch of at least n_max int32 that yours.cu may use (v1's flags).
int32_t *find_repeats_workspace_scratch(find_repeats_workspace *ws);

// Enqueues: indices[0..count) = the repeat indices of a[0..n), *count = how many.
typedef void (*find_repeats_launcher)(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                                      find_repeats_workspace *ws, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    find_repeats_launcher launch;
} find_repeats_version;

extern const find_repeats_version find_repeats_versions[];
extern const int find_repeats_version_count;
extern const char find_repeats_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char find_repeats_yours_idea[];
void find_repeats_yours(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                        find_repeats_workspace *ws, cudaStream_t stream);

// The peer: cub::DeviceSelect::If over a counting iterator, scratch allocated up front.
typedef struct find_repeats_peer find_repeats_peer;
find_repeats_peer *find_repeats_peer_create(size_t n_max);
void find_repeats_peer_run(find_repeats_peer *peer, const int32_t *a, size_t n, int32_t *indices,
                           int32_t *count);
void find_repeats_peer_destroy(find_repeats_peer *peer);

// gold.c: writes the indices, returns the count.
size_t find_repeats_gold(const int32_t *a, size_t n, int32_t *indices);

#ifdef __cplusplus
}
#endif

#endif
