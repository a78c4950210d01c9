// transpose: B = A^T for an M x N float matrix. The C interface between main.c and
// transpose.cu. Matrices are row-major: A has `rows` rows of `cols` values, B has `cols`
// rows of `rows` values, B[c][r] = A[r][c].
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// Enqueues b = a^T on `stream` (device pointers; a and b do not overlap).
typedef void (*transpose_launcher)(const float *a, float *b, size_t rows, size_t cols,
                                   cudaStream_t stream);
// Enqueues a = a^T for a square side x side matrix, in place.
typedef void (*transpose_in_place_launcher)(float *a, size_t side, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    transpose_launcher launch;
    transpose_in_place_launcher in_place; // NULL: the version works out of place only
} transpose_version;

extern const transpose_version transpose_versions[];
extern const int transpose_version_count;
extern const char transpose_fastest_version[];

// yours.cu: the learner's version, listed last as "yours".
extern const char transpose_yours_idea[];
void transpose_yours(const float *a, float *b, size_t rows, size_t cols, cudaStream_t stream);

// The peer: cublasSgeam with A transposed (C = 1 op(A) + 0 B) on the default stream.
typedef struct transpose_peer transpose_peer;
transpose_peer *transpose_peer_create(void);
void transpose_peer_run(transpose_peer *peer, const float *a, float *b, size_t rows, size_t cols);
void transpose_peer_destroy(transpose_peer *peer);

// gold.c: b = a^T on the CPU, in cache-sized blocks.
void transpose_gold(const float *a, float *b, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

#endif
