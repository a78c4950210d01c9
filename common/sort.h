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

// --- a sort spread over GPUs (radix_sort --gpus N, m4-scatter) ---------------------------
//
// Keys spread over GPUs sorted as a whole, most significant digit first. The first pass
// (the scatter) stores each key straight to its place in the whole sequence by its top
// digit, on whichever GPU holds that place, so the pass is also the exchange; its plan
// needs only every GPU's 256 counts of that digit. A run of one digit that a boundary
// between GPUs cuts is placed in input order, not by value: the caller refines such runs
// with further scatters by the next digits, over those places only (down to equal keys,
// where input order is the stable order). Then each GPU holds its range of the sequence,
// grouped by the top digit (segments), equal keys in input order, and sorts each
// segment on its own by the lower digits (LSD, as cl_radix_sort_u32): no merge, no pass
// of the top digit twice. radix_sort/multi_gpu.c drives it; its splitters.c does the
// arithmetic of the plans.
//
// The parts: part p (a GPU) holds places first[p] .. first[p+1]-1 of the whole sequence,
// stored by a scatter to keys[p] (values[p]) from place first[p] on, through pointers
// the GPU running the pass can store to: its own, the others' through peer access (one
// process) or CUDA IPC (one process a GPU), or a local mirror of another part's places
// that the caller copies on (radix_sort's m4 does, for long runs).
#define CL_SORT_MAX_PARTS 64
typedef struct {
    int parts;
    unsigned long long first[CL_SORT_MAX_PARTS + 1];
    uint32_t *keys[CL_SORT_MAX_PARTS], *values[CL_SORT_MAX_PARTS];
} cl_sort_spread;

// The 256 counts (device) of pass `pass`'s digit (pass p: bits 8p ..) over each chunk of
// `chunk` keys of keys[0..n) (the last maybe partial; chunk >= n: one), into counts[c *
// 256 + d]; `chunks` rows, those past the last chunk zeroed.
void cl_sort_count_pass(const uint32_t *keys, size_t n, size_t chunk, int chunks, int bits,
                        int pass, unsigned *counts, cudaStream_t stream);
// A scatter: pass `pass` over keys[0..n) (values alike), each key of digit d stored at
// place starts[d] + its rank among these keys of digit d (stable), on the part of `to`
// holding that place. starts: device memory, read by the pass (so several passes may be
// enqueued at once, each with its own row of starts).
void cl_sort_spread_pass(const uint32_t *keys, const uint32_t *values, size_t n, int bits, int pass,
                         const unsigned long long *starts, const cl_sort_spread *to,
                         cl_sort_workspace *ws, cudaStream_t stream);

// A part's segments after the scatters: segment s holds its keys first[s] .. first[s+1]-1
// and is sorted as tiles first_tile[s] .. first_tile[s+1]-1 of CL_SORT_TILE keys (the
// last maybe partial): at most CL_SORT_FINISH_TILES(count) tiles.
#define CL_SORT_TILE 8192u
#define CL_SORT_FINISH_TILES(count) (((count) + CL_SORT_TILE - 1) / CL_SORT_TILE + 256)
typedef struct {
    unsigned first[257], first_tile[257];
} cl_sort_segments;
// The finish, once every scatter into this part is done: its `count` keys in its inbox,
// each segment sorted on its own by every pass below the top one, into keys_out (values
// alike). segments: host memory.
void cl_sort_spread_finish(uint32_t *keys_out, uint32_t *values_out, size_t count, int bits,
                           const cl_sort_segments *segments, cl_sort_workspace *ws,
                           cudaStream_t stream);
// Where the first scatter must store a part's keys (values: values != 0) for the finish
// to end in `out`: out itself, or the workspace's alternate buffer. The other of the two
// is free until the finish (radix_sort's m4 scatters the refined runs into it).
uint32_t *cl_sort_spread_inbox(cl_sort_workspace *ws, uint32_t *out, int values, int bits);

#ifdef __cplusplus
}
#endif

#endif
