// scan: exclusive prefix sum of int32, and the linear recurrence solved as a scan.
// The C interface between main.c and scan.cu.
#ifndef SCAN_H
#define SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// Device scratch for every version, sized for n up to n_max. Create once, reuse.
typedef struct scan_workspace scan_workspace;
scan_workspace *scan_workspace_create(size_t n_max);
void scan_workspace_destroy(scan_workspace *ws);
// Device bytes scan_workspace_create(n_max) takes (for the memory guard).
size_t scan_workspace_bytes(size_t n_max);
// Device scratch of at least n_max int32 that yours.cu may use (v1's padded buffer).
int32_t *scan_workspace_scratch(scan_workspace *ws);

// Enqueues out = exclusive scan of in (n elements, int32 with wrap-around).
typedef void (*scan_launcher)(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws,
                              cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    scan_launcher launch;
} scan_version;

extern const scan_version scan_versions[];
extern const int scan_version_count;
extern const char scan_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char scan_yours_idea[];
void scan_yours(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t stream);

// Which path v6 takes on this GPU, in words (common/scan.h, whose name this header
// shadows for main.c).
const char *cl_scan_bulk_path(void);

// The peer: cub::DeviceScan::ExclusiveSum with temporary storage allocated up front.
typedef struct scan_peer scan_peer;
scan_peer *scan_peer_create(size_t n_max);
void scan_peer_run(scan_peer *peer, const int32_t *in, int32_t *out, size_t n);
void scan_peer_destroy(scan_peer *peer);

// --op recurrence: v[0] = u[0], v[i] = s[i] v[i-1] + u[i] (double), as an inclusive
// scan over the affine maps x -> s[i] x + u[i]. Kernel and CUB peer, each enqueued on
// `stream`.
void recurrence_run(const double *s, const double *u, double *v, size_t n, scan_workspace *ws,
                    cudaStream_t stream);
typedef struct recurrence_peer recurrence_peer;
recurrence_peer *recurrence_peer_create(size_t n_max);
void recurrence_peer_run(recurrence_peer *peer, const double *s, const double *u, double *v,
                         size_t n, cudaStream_t stream);
void recurrence_peer_destroy(recurrence_peer *peer);

// gold.c
void scan_gold(const int32_t *in, int32_t *out, size_t n);
void recurrence_gold(const double *s, const double *u, double *v, size_t n);

#ifdef __cplusplus
}
#endif

#endif
