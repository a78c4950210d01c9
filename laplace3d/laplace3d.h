// laplace3d: Jacobi iteration for the 3D Laplace equation. The C interface between
// main.c and laplace3d.cu.
#ifndef LAPLACE3D_H
#define LAPLACE3D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// An NX x NY x NZ grid, x fastest: point (i, j, k) at i + NX (j + NY k). The boundary
// points hold their values; each iteration every interior point becomes the mean of
// its 6 neighbours, in this order: (x-1 + x+1 + y-1 + y+1 + z-1 + z+1) * (1.0f/6),
// the same float arithmetic in every version and the gold, so results are identical.
typedef struct {
    int nx, ny, nz;
} grid_shape;

typedef struct {
    int x, y, z;
} block_shape;

// Runs `iterations` Jacobi steps. *in holds the start (boundary included) and *out the
// same boundary; the buffers are swapped after each step the version does, so on
// return *in holds the result. `block`: the thread-block shape for v1 (z must be 1)
// and v2; {0,0,0} = the version's default.
typedef void (*laplace_launcher)(float **in, float **out, grid_shape g, int iterations,
                                 block_shape block, cudaStream_t stream);

// Which --block shapes a version takes.
typedef enum { BLOCK_FIXED, BLOCK_2D, BLOCK_3D } laplace_block_kind;

typedef struct {
    cl_kernel_info info;
    laplace_launcher launch;
    laplace_block_kind block; // BLOCK_2D (v1, z = 1), BLOCK_3D (v2), BLOCK_FIXED: no --block
} laplace_version;

extern const laplace_version laplace_versions[];
extern const int laplace_version_count;
extern const char laplace_fastest_version[]; // the default version's name

// v6's iterations a pass (--tblock: 2, 4 or 8; 0 = the default, the fastest measured)
// and the stencil evaluations a pass of t does over the useful ones (0: no interior).
extern const int laplace_default_time_block;
void laplace_set_time_block(int t);
double laplace_temporal_work(grid_shape g, int t);

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char laplace_yours_idea[];
void laplace_yours(float **in, float **out, grid_shape g, int iterations, block_shape block,
                   cudaStream_t stream);

// The start grid's value at (i, j, k): 1 on the boundary; inside 0 (the practical's) or,
// `random`, the suite's generator under `key` at the point's index in the grid.
float laplace_start_value(grid_shape g, int i, int j, int k, bool random, uint64_t key);

// A box of points: its lowest corner and its extent.
typedef struct {
    int x, y, z, nx, ny, nz;
} grid_box;

// gold.c: the box's values after `iterations` from the start, computed from the start
// alone (the light cone: a point after R iterations depends only on the points within R
// of it), so a box of a grid no host could hold is checked exactly: the box grown by R
// on every side (clipped to the grid) iterated with laplace_gold, whose fixed edges
// spoil only the outer R points, then cut out. out: box points, x fastest.
void laplace_gold_box(grid_shape g, grid_box box, int iterations, bool random, uint64_t key,
                      float *out);

// laplace3d.cu, for --gpus (multi_gpu.c): one iteration of planes [k_lo, k_hi) only (v5,
// the same bits as a whole-grid launch); the start values of planes [k_first, k_first +
// planes) of grid g into `planes_out`, computed on the device; a fingerprint of such
// planes added to *sum (device memory): a sum over points of a mix of index and bits.
void laplace_step_planes(const float *in, float *out, grid_shape g, int k_lo, int k_hi,
                         cudaStream_t stream);
void laplace_fill_planes(float *planes_out, grid_shape g, int k_first, int planes, bool random,
                         uint64_t key, cudaStream_t stream);
void laplace_checksum_planes(const float *planes_in, grid_shape g, int k_first, int planes,
                             unsigned long long *sum, cudaStream_t stream);

// gold.c: the same iterations on the CPU (OpenMP over z planes); u holds the start
// and, on return, the result; scratch is a second grid.
void laplace_gold(float *u, float *scratch, grid_shape g, int iterations);

#ifdef __cplusplus
}
#endif

#endif
