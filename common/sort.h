// The suite's device-wide radix sort: stable LSD, 8 bits a pass, one sweep a pass
// (Adinets & Merrill, "Onesweep", 2022), linked by every exercise that sorts
// (radix_sort's v4, the renderer's binning). C interface; the device helpers it is
// built from are in sort.cuh.
#ifndef CUDALAB_SORT_H
#define CUDALAB_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

// The most keys one sort takes: its digit counts, offsets and tile numbers are 32-bit.
#define CL_SORT_MAX_KEYS 4294967295u

// Device scratch for sorts of up to n_max keys (with values when `pairs`): a second
// key (and value) buffer for the passes to alternate through, the digit counts, and
// the look-back's status words. Create once; one sort at a time. n_max above
// CL_SORT_MAX_KEYS exits 3 with a line saying so.
typedef struct cl_sort_workspace cl_sort_workspace;
cl_sort_workspace *cl_sort_workspace_create(size_t n_max, int pairs);
void cl_sort_workspace_destroy(cl_sort_workspace *ws);
// The device memory a workspace for n_max keys takes (for a memory check first).
size_t cl_sort_workspace_bytes(size_t n_max, int pairs);
// The alternate buffers (n_max keys; n_max values, or NULL without pairs), which other
// sorts of the same keys may borrow between calls.
uint32_t *cl_sort_workspace_keys(cl_sort_workspace *ws);
uint32_t *cl_sort_workspace_values(cl_sort_workspace *ws);

// Sorts keys_in[0..n) into keys_out by their low `bits` bits (1..32), stable; with
// values_in != NULL, values_out receives the values in the same order (ws made with
// pairs). The inputs are not modified; n <= the workspace's n_max. Enqueued on
// `stream`: one histogram launch, one scan launch, one launch a pass (where the build has
// sm_90 code, each after the first a programmatic dependent launch, which starts as the
// one before drains).
void cl_radix_sort_u32(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                       uint32_t *values_out, size_t n, int bits, cl_sort_workspace *ws,
                       cudaStream_t stream);
// The same sort as radix_sort's README first built it (its version 4): the step before
// cl_radix_sort_u32, kept so the ladder can measure what the later design changed.
void cl_radix_sort_u32_v4(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                          uint32_t *values_out, size_t n, int bits, cl_sort_workspace *ws,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
