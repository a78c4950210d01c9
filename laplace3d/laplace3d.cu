// laplace3d: Jacobi iteration for the 3D Laplace equation (the Oxford CUDA course's
// practical 3), from threads marching in z to a kernel that does two iterations in
// one pass over memory.
//
// Versions:
//   v1-2d-zmarch     2D blocks (16x8 by default, --block), each thread walks its (i, j)
//                    column through every z plane (the practical's first kernel)
//   v2-3d-blocks     3D blocks (16x4x4 by default), one point a thread (its second)
//   v3-zmarch-regs   v1 with the column's k-1, k, k+1 values kept in registers: each
//                    plane is loaded once a thread, not three times
//   v4-temporal      two iterations a pass: a block loads a tile with a 2-point halo,
//                    plane by plane in z, computes the first iteration on the tile
//                    less 1 point and the second on the tile less 2, writes only that
//   yours            yours.cu: the learner's slot
//
// Napkin math: an iteration reads each point and writes it once (8 bytes a point, if
// the neighbours come from caches): 1.07 GB at 512^3, 0.36 ms at an H100's ~3 TB/s;
// so "effective GB/s" is 8 bytes a point an iteration over the time, and a version
// that does two iterations a pass can exceed the copy rate.
#include "check.h"
#include "device.h"
#include "laplace3d.h"

__device__ __forceinline__ float jacobi(float xm, float xp, float ym, float yp, float zm, float zp)
{
    return (xm + xp + ym + yp + zm + zp) * (1.0f / 6.0f);
}

__device__ __forceinline__ bool interior(int i, int j, int k, grid_shape g)
{
    return i > 0 && i < g.nx - 1 && j > 0 && j < g.ny - 1 && k > 0 && k < g.nz - 1;
}

// v1: a thread an (i, j) column, marching in z: 2D blocks cover the xy plane; each
// step reads the 6 neighbours from global memory (the x, y ones are shared with the
// neighbouring threads through L1/L2).
__global__ void jacobi_2d_zmarch(const float *in, float *out, grid_shape g)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || i >= g.nx - 1 || j <= 0 || j >= g.ny - 1)
        return;
    const size_t jstride = g.nx, kstride = (size_t)g.nx * g.ny;
    size_t p = i + j * jstride + kstride;
    for (int k = 1; k < g.nz - 1; k++, p += kstride)
        out[p] = jacobi(in[p - 1], in[p + 1], in[p - jstride], in[p + jstride], in[p - kstride],
                        in[p + kstride]);
}

// v2: a thread a point, 3D blocks. More threads in flight than v1 (no serial z loop),
// at the cost of index arithmetic for every point.
__global__ void jacobi_3d(const float *in, float *out, grid_shape g)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
              k = blockIdx.z * blockDim.z + threadIdx.z;
    if (!interior(i, j, k, g))
        return;
    const size_t jstride = g.nx, kstride = (size_t)g.nx * g.ny;
    const size_t p = i + j * jstride + k * kstride;
    out[p] = jacobi(in[p - 1], in[p + 1], in[p - jstride], in[p + jstride], in[p - kstride],
                    in[p + kstride]);
}

// v3: v1 with a register queue: below, centre and above are carried from one plane to
// the next, so each thread loads one new plane value a step instead of three, and the
// blocks are 32 wide (a warp reads 128 contiguous bytes a row).
__global__ void jacobi_zmarch_regs(const float *in, float *out, grid_shape g)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || i >= g.nx - 1 || j <= 0 || j >= g.ny - 1)
        return;
    const size_t jstride = g.nx, kstride = (size_t)g.nx * g.ny;
    size_t p = i + j * jstride;
    float below = in[p], centre = in[p + kstride];
    for (int k = 1; k < g.nz - 1; k++) {
        p += kstride;
        const float above = in[p + kstride];
        out[p] = jacobi(in[p - 1], in[p + 1], in[p - jstride], in[p + jstride], below, above);
        below = centre;
        centre = above;
    }
}

// v4: two iterations a pass. A block of TX x TY threads owns an input tile of the same
// size; thread (tx, ty) holds point (x0 + tx - 2, y0 + ty - 2). Marching up in z, at
// plane k it loads u0(k + 1), puts u0(k) in shared memory, computes u1(k) (the first
// iteration) where the tile has all four xy neighbours, then puts u1(k - 1) in shared
// memory and computes u2(k - 1) (the second) on the tile less its 2-point rim, and
// writes it. The z neighbours of both iterations are in registers. Output tiles are
// (TX - 4) x (TY - 4): neighbouring blocks recompute a 4-point overlap (32x16: 1.5
// loads a point, against 2 for two single passes; one write against two).
// Boundary points keep their values, so u1 = u0 there. Plane k + 2 is loaded a step
// ahead (README.md: 19% less time than loading each plane as it is used, about the
// copy rate an iteration). Bounded by the two barriers a plane
// and the 1.5x halo reloads; four or more iterations a pass would need a wider halo.
// Output tiles of (TX - 4) x (TY - 4) points: cl_ceil_div(nx, TX - 4) blocks across.
enum { TX = 32, TY = 16 };
__global__ void __launch_bounds__(TX *TY)
    jacobi_temporal2(const float *in, float *out, grid_shape g)
{
    __shared__ float plane0[TY][TX], plane1[TY][TX];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.x * (TX - 4) + tx - 2, j = blockIdx.y * (TY - 4) + ty - 2;
    const bool in_grid = i >= 0 && i < g.nx && j >= 0 && j < g.ny;
    const bool xy_interior = i > 0 && i < g.nx - 1 && j > 0 && j < g.ny - 1;
    const bool first_ok = tx >= 1 && tx < TX - 1 && ty >= 1 && ty < TY - 1; // has xy neighbours
    const bool second_ok = tx >= 2 && tx < TX - 2 && ty >= 2 && ty < TY - 2;
    const size_t kstride = (size_t)g.nx * g.ny;
    const size_t column = in_grid ? i + (size_t)j * g.nx : 0;

    // u0 at planes k - 1, k, k + 1; plane k + 2 is loaded a step ahead of its use.
    float u0_below = 0.0f, u0 = in_grid ? in[column] : 0.0f;
    float u0_above = in_grid && g.nz > 1 ? in[column + kstride] : 0.0f;
    float u1_below = 0.0f, u1_centre = 0.0f; // u1 at planes k - 2, k - 1
    for (int k = 0; k < g.nz; k++) {
        const float u0_next = in_grid && k + 2 < g.nz ? in[column + (k + 2) * kstride] : 0.0f;
        plane0[ty][tx] = u0;
        __syncthreads();
        float u1 = u0;
        if (first_ok && xy_interior && k > 0 && k < g.nz - 1)
            u1 = jacobi(plane0[ty][tx - 1], plane0[ty][tx + 1], plane0[ty - 1][tx],
                        plane0[ty + 1][tx], u0_below, u0_above);
        // u1(k - 1) to shared memory; its z neighbours are u1(k - 2) and u1(k).
        plane1[ty][tx] = u1_centre;
        __syncthreads();
        if (second_ok && in_grid && interior(i, j, k - 1, g))
            out[column + (k - 1) * kstride] =
                jacobi(plane1[ty][tx - 1], plane1[ty][tx + 1], plane1[ty - 1][tx],
                       plane1[ty + 1][tx], u1_below, u1);
        u0_below = u0;
        u0 = u0_above;
        u0_above = u0_next;
        u1_below = u1_centre;
        u1_centre = u1;
    }
}

// --- launchers -------------------------------------------------------------------------------

static void swap(float **a, float **b)
{
    float *t = *a;
    *a = *b;
    *b = t;
}

static block_shape or_default(block_shape b, block_shape fallback) { return b.x ? b : fallback; }

static void launch_v1(float **in, float **out, grid_shape g, int iterations, block_shape block,
                      cudaStream_t s)
{
    block = or_default(block, (block_shape){16, 8, 1});
    dim3 threads(block.x, block.y),
        blocks((g.nx + block.x - 1) / block.x, (g.ny + block.y - 1) / block.y);
    for (int it = 0; it < iterations; it++, swap(in, out)) {
        jacobi_2d_zmarch<<<blocks, threads, 0, s>>>(*in, *out, g);
        CL_LAUNCH_CHECK();
    }
}

static void launch_v2(float **in, float **out, grid_shape g, int iterations, block_shape block,
                      cudaStream_t s)
{
    block = or_default(block, (block_shape){16, 4, 4});
    dim3 threads(block.x, block.y, block.z),
        blocks((g.nx + block.x - 1) / block.x, (g.ny + block.y - 1) / block.y,
               (g.nz + block.z - 1) / block.z);
    for (int it = 0; it < iterations; it++, swap(in, out)) {
        jacobi_3d<<<blocks, threads, 0, s>>>(*in, *out, g);
        CL_LAUNCH_CHECK();
    }
}

enum { V3_BX = 32, V3_BY = 8 };
static void launch_v3(float **in, float **out, grid_shape g, int iterations, block_shape,
                      cudaStream_t s)
{
    dim3 threads(V3_BX, V3_BY), blocks((g.nx + V3_BX - 1) / V3_BX, (g.ny + V3_BY - 1) / V3_BY);
    for (int it = 0; it < iterations; it++, swap(in, out)) {
        jacobi_zmarch_regs<<<blocks, threads, 0, s>>>(*in, *out, g);
        CL_LAUNCH_CHECK();
    }
}

// Pairs of iterations by v4; an odd last one by v3 (the same arithmetic: identical).
static void launch_v4(float **in, float **out, grid_shape g, int iterations, block_shape block,
                      cudaStream_t s)
{
    dim3 threads(TX, TY), blocks(cl_ceil_div(g.nx, TX - 4), cl_ceil_div(g.ny, TY - 4));
    for (int it = 0; it + 1 < iterations; it += 2, swap(in, out)) {
        jacobi_temporal2<<<blocks, threads, 0, s>>>(*in, *out, g);
        CL_LAUNCH_CHECK();
    }
    if (iterations % 2)
        launch_v3(in, out, g, 1, block, s);
}

extern "C" const laplace_version laplace_versions[] = {
    {{"v1-2d-zmarch", "2D blocks (16x8), a thread marches its column in z"}, launch_v1, BLOCK_2D},
    {{"v2-3d-blocks", "3D blocks (16x4x4), a thread a point"}, launch_v2, BLOCK_3D},
    {{"v3-zmarch-regs", "z-marching, the column's k-1, k, k+1 in registers, 32x8 blocks"},
     launch_v3,
     BLOCK_FIXED},
    {{"v4-temporal", "two iterations a pass: shared-memory planes, 2-point halo"},
     launch_v4,
     BLOCK_FIXED},
    {{"yours", laplace_yours_idea}, laplace_yours, BLOCK_FIXED},
};
extern "C" const int laplace_version_count = sizeof laplace_versions / sizeof laplace_versions[0];
extern "C" const char laplace_fastest_version[] = "v4-temporal";
