// radix_sort: stable LSD radix sort of 32-bit unsigned keys, alone or with values.
// The C interface between main.c and radix_sort.cu.
#ifndef RADIX_SORT_H
#define RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// Device scratch for sorts of up to n_max keys: a second key and value buffer for the
// passes to alternate through, int32 scratch, the suite's scan workspace, and the
// look-back state of versions 4 and 5. Create once; one sort at a time.
typedef struct radix_workspace radix_workspace;
radix_workspace *radix_workspace_create(size_t n_max, int pairs);
void radix_workspace_destroy(radix_workspace *ws);
size_t radix_workspace_bytes(size_t n_max, int pairs);

// What yours.cu may use: alternate key and value buffers of n_max elements (values
// only with pairs), int32 scratch of n_max + 1 elements, and the suite's scan
// (common/scan.h) with its workspace.
typedef struct cl_scan_workspace cl_scan_workspace;
uint32_t *radix_workspace_keys(radix_workspace *ws);
uint32_t *radix_workspace_values(radix_workspace *ws);
int32_t *radix_workspace_scratch(radix_workspace *ws);
cl_scan_workspace *radix_workspace_scan(radix_workspace *ws);

// Sorts keys_in[0..n) into keys_out by their low `bits` bits (1..32), stable; with
// values_in != NULL, values_out receives the values in the same order. The inputs are
// not modified. max_n: the most keys the version sorts (SIZE_MAX: any n).
typedef void (*radix_launcher)(const uint32_t *keys_in, const uint32_t *values_in,
                               uint32_t *keys_out, uint32_t *values_out, size_t n, int bits,
                               radix_workspace *ws, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    radix_launcher launch;
    size_t max_n;
} radix_version;

extern const radix_version radix_versions[];
extern const int radix_version_count;
extern const char radix_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char radix_yours_idea[];
void radix_yours(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                 uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                 cudaStream_t stream);

// The peer: cub::DeviceRadixSort::SortKeys (SortPairs with values), begin_bit 0,
// end_bit `bits`, temporary storage allocated up front.
typedef struct radix_peer radix_peer;
radix_peer *radix_peer_create(size_t n_max, int pairs);
void radix_peer_run(radix_peer *peer, const uint32_t *keys_in, const uint32_t *values_in,
                    uint32_t *keys_out, uint32_t *values_out, size_t n, int bits);
void radix_peer_destroy(radix_peer *peer);

// gold.c: the same sort on the CPU (LSD, 8 bits a pass, stable). values may be NULL.
// scratch: room for n keys and, with values, n values.
void radix_gold(uint32_t *keys, uint32_t *values, size_t n, int bits, uint32_t *scratch_keys,
                uint32_t *scratch_values);

#ifdef __cplusplus
}
#endif

#endif
