// The suite's device-wide exclusive scan (single pass, decoupled look-back), linked
// by every exercise that needs one (scan, find_repeats, radix_sort, renderer).
// C interface; the building blocks for fused kernels are in scan.cuh.
#ifndef CUDALAB_SCAN_H
#define CUDALAB_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

// Tile status words and the tile counter; sized for n up to n_max. Create once and
// reuse: no launch clears it (each launch tags its status words with a new epoch).
// One workspace serves one stream at a time.
typedef struct cl_scan_workspace cl_scan_workspace;
cl_scan_workspace *cl_scan_workspace_create(size_t n_max);
void cl_scan_workspace_destroy(cl_scan_workspace *ws);
// The device memory a workspace for n_max elements takes (for a memory check first).
size_t cl_scan_workspace_bytes(size_t n_max);
// A workspace of `words` status words, for a kernel that publishes its own (the radix
// sort's look-back: a word a tile and digit), and the memory it takes.
cl_scan_workspace *cl_scan_workspace_create_words(size_t words);
size_t cl_scan_workspace_words_bytes(size_t words);

// out[i] = in[0] + ... + in[i-1] (out[0] = 0), int32 with wrap-around, n <= n_max.
// in and out may be the same array. One kernel launch: persistent blocks fed by the
// bulk-copy engine where the build has code for it (sm_90) and both pointers are 16-byte
// aligned, otherwise cl_exclusive_scan_i32_v5's kernel.
void cl_exclusive_scan_i32(const int32_t *in, int32_t *out, size_t n, cl_scan_workspace *ws,
                           cudaStream_t stream);
// The same scan by the step before: a block a tile, plain loads and stores.
void cl_exclusive_scan_i32_v5(const int32_t *in, int32_t *out, size_t n, cl_scan_workspace *ws,
                              cudaStream_t stream);
// Which path the bulk-copy kernels take on the current device, for a note: "on the
// bulk-copy engine (sm_90, code for sm_90)", or v5's kernel and why (a GPU without the
// engine, or a build whose code is for an older GPU).
const char *cl_scan_bulk_path(void);

#ifdef __cplusplus
}
#endif

#endif
