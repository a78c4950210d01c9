// laplace3d: Jacobi iteration for the 3D Laplace equation (the Oxford CUDA course's
// practical 3), from threads marching in z to kernels that do 2, 4 or 8 iterations in
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
//   v5-zmarch-vec    v3 with 16 bytes a lane, x neighbours by shuffles and the loads
//                    issued a step or two before their use (one iteration a pass)
//   v6-temporal-t    T = 2, 4 or 8 iterations a pass: an xy tile with a T-point halo
//                    streamed through z, every level a plane behind the one before
//   yours            yours.cu: the learner's slot
//
// Napkin math: an iteration reads each point and writes it once (8 bytes a point, if
// the neighbours come from caches): 1.07 GB at 512^3, 0.36 ms at an H100's ~3 TB/s;
// so "effective GB/s" is 8 bytes a point an iteration over the time, and a version
// that does two iterations a pass can exceed the copy rate.
#include "check.h"
#include "device.h"
#include "laplace3d.h"
#include "launch.h"
#include "rng.h"

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

// Loads of VEC consecutive floats (16 bytes at VEC = 4; the row's start then lies on a
// 16-byte boundary because NX % 4 == 0) through the read-only path.
template <int VEC> struct floats {
    float v[VEC];
};

template <int VEC> __device__ __forceinline__ floats<VEC> load_floats(const float *p)
{
    floats<VEC> r;
    if constexpr (VEC == 4) {
        const float4 f = __ldg(reinterpret_cast<const float4 *>(p));
        r.v[0] = f.x, r.v[1] = f.y, r.v[2] = f.z, r.v[3] = f.w;
    } else {
        r.v[0] = __ldg(p);
    }
    return r;
}

template <int VEC> __device__ __forceinline__ void store_floats(float *p, const floats<VEC> &r)
{
    if constexpr (VEC == 4)
        *reinterpret_cast<float4 *>(p) = make_float4(r.v[0], r.v[1], r.v[2], r.v[3]);
    else
        *p = r.v[0];
}

// v5: v3's z-march with the bytes in flight it lacked. A warp is one row: each lane
// holds VEC = 4 neighbouring x points (one 16-byte load a plane, a warp 512 bytes), the
// x neighbours across lanes come by shuffles (only lanes 0 and 31 load one float past
// the warp's ends), the z neighbours in registers, and the y neighbours from shared
// memory: each plane, the block's 4 warps put their rows there, warps 0 and 3 also the
// rows just above and below the block (loaded for it), and after one barrier each warp
// reads the rows beside its own (two buffers, alternating by plane, so one barrier a
// plane is enough). The loads are issued a step before their use: the plane two up and
// the next plane's x edges and halo rows. Blocks march a chunk of planes (launch_v5
// picks it so the grid fills the GPU several times over), re-reading 2 planes a chunk.
// Napkin: 8 bytes a point; 512^3 = 1.07 GB at ~3 TB/s is 0.36 ms an iteration. What
// the caches carry: each row is read as its own and as the y neighbour of two rows;
// taken from L1 by __ldg, as an earlier v5 did, only 21% hit (the H200, ncu) and L2
// served ~3 reads a point at 89% of its throughput, the bound there (81% of copy);
// from shared memory, L2 serves 1.5 (a block's 4 rows and 2 halo rows). More planes in
// flight cost more than they hide (README.md): 1 ahead, 56 registers, 9 blocks of 128
// threads an SM. NX % 4 != 0 runs VEC = 1 (a float a lane, the same scheme).
enum { V5_BY = 4, V5_AHEAD = 1 };
template <int VEC>
__global__ void __launch_bounds__(32 * V5_BY)
    jacobi_zmarch_vec(const float *__restrict__ in, float *__restrict__ out, grid_shape g,
                      int zchunk)
{
    // The centre plane's rows j0 - 1 .. j0 + V5_BY, two buffers alternating by plane.
    __shared__ floats<VEC> rows[2][V5_BY + 2][32];
    const int lane = threadIdx.x, w = threadIdx.y, i0 = (blockIdx.x * 32 + lane) * VEC;
    const int j0 = blockIdx.y * V5_BY, j = j0 + w;
    const int k_begin = 1 + blockIdx.z * zchunk, k_end = min(k_begin + zchunk, g.nz - 1);
    if (k_begin >= k_end) // uniform over the block
        return;
    const bool in_x = i0 < g.nx, has_row = in_x && j < g.ny;
    const bool computes = has_row && j > 0 && j < g.ny - 1;
    // Warp 0 also carries the row above the block, the last warp the row below it.
    const bool carries_halo = w == 0 || w == V5_BY - 1;
    const int halo_j = w == 0 ? j0 - 1 : j0 + V5_BY;
    const bool has_halo = carries_halo && in_x && halo_j >= 0 && halo_j < g.ny;
    const int halo_slot = w == 0 ? 0 : V5_BY + 1;
    const size_t nx = g.nx, kstride = nx * g.ny;
    const float *at = in + (has_row ? i0 + j * nx + (k_begin - 1) * kstride : 0);
    const float *halo_at = in + (has_halo ? i0 + halo_j * nx + k_begin * kstride : 0);
    float *to = out + (has_row ? i0 + j * nx + k_begin * kstride : 0);
    const bool left_edge = lane == 0 && i0 > 0, right_edge = lane == 31 && i0 + VEC < g.nx;

    floats<VEC> below{}, centre{}, above{}, ahead[V5_AHEAD] = {}, halo{};
    float x_left = 0.0f, x_right = 0.0f;
    if (has_row) {
        below = load_floats<VEC>(at);
        centre = load_floats<VEC>(at + kstride);
        above = load_floats<VEC>(at + 2 * kstride);
        for (int d = 0; d < V5_AHEAD; d++)
            if (k_begin + 2 + d < g.nz)
                ahead[d] = load_floats<VEC>(at + (3 + d) * kstride);
        x_left = left_edge ? __ldg(at + kstride - 1) : 0.0f;
        x_right = right_edge ? __ldg(at + kstride + VEC) : 0.0f;
    }
    if (has_halo)
        halo = load_floats<VEC>(halo_at);
    for (int k = k_begin; k < k_end; k++, at += kstride, halo_at += kstride, to += kstride) {
        floats<VEC> next_halo{}, next_ahead{};
        float next_left = 0.0f, next_right = 0.0f;
        if (k + 1 < k_end) {
            if (has_row) {
                next_left = left_edge ? __ldg(at + 2 * kstride - 1) : 0.0f;
                next_right = right_edge ? __ldg(at + 2 * kstride + VEC) : 0.0f;
                if (k + 2 + V5_AHEAD < g.nz)
                    next_ahead = load_floats<VEC>(at + (3 + V5_AHEAD) * kstride);
            }
            if (has_halo)
                next_halo = load_floats<VEC>(halo_at + kstride);
        }
        rows[k & 1][w + 1][lane] = centre;
        if (carries_halo) // zeros past the grid
            rows[k & 1][halo_slot][lane] = halo;
        __syncthreads();
        const floats<VEC> y_minus = rows[k & 1][w][lane], y_plus = rows[k & 1][w + 2][lane];
        const float from_left = __shfl_up_sync(0xffffffffu, centre.v[VEC - 1], 1);
        const float from_right = __shfl_down_sync(0xffffffffu, centre.v[0], 1);
        floats<VEC> result;
#pragma unroll
        for (int e = 0; e < VEC; e++) {
            const float xm = e > 0 ? centre.v[e - 1] : lane > 0 ? from_left : x_left;
            const float xp = e < VEC - 1 ? centre.v[e + 1] : lane < 31 ? from_right : x_right;
            const int i = i0 + e;
            result.v[e] = i > 0 && i < g.nx - 1
                              ? jacobi(xm, xp, y_minus.v[e], y_plus.v[e], below.v[e], above.v[e])
                              : centre.v[e];
        }
        if (computes)
            store_floats<VEC>(to, result);
        below = centre;
        centre = above;
        above = ahead[0];
#pragma unroll
        for (int d = 0; d + 1 < V5_AHEAD; d++)
            ahead[d] = ahead[d + 1];
        ahead[V5_AHEAD - 1] = next_ahead;
        halo = next_halo;
        x_left = next_left, x_right = next_right;
    }
}

// v6: T iterations a pass (3.5D blocking: Nguyen et al., SC'10 - a 2D tile in xy
// streamed through z, and time). A block of TILE_X/2 x ROWS threads owns a TILE_X x
// (ROWS RY) tile of columns (two neighbouring columns and RY rows a thread) with a
// T-point halo, and marches up in z. At step s it takes plane q + s of the input (q =
// the chunk's first plane - T) and level t = 1..T computes plane q + s - t from level
// t - 1: its own columns' planes below and centre are in registers (the plane above was
// computed a moment before, in the same step), the x and y neighbours of the centre
// plane in shared memory, where every level's values of the previous step are. Two
// shared buffers of T planes alternate by step, so a step has one barrier: it reads
// the previous step's planes and writes its own. Level T is the output: the tile less
// its T-point rim.
// A plane keeps the tile's even and odd columns apart (two half-planes): the thread's
// even point takes its x - 1 neighbour from the odd half-plane and its x + 1 from the
// thread's own odd point, and the odd point the other way round, so a pair's four x
// neighbours cost two shared loads, each warp's falling in 32 banks. One column a
// thread (four loads) ran 1.6-3.7% slower at T = 2 and 4 (H200; README.md).
// Ghost zone: a tile loads TILE_X x TILE_Y columns for (TILE_X - 2T) x (TILE_Y - 2T)
// outputs, and each level is computed on the whole tile; a chunk of Z planes takes
// Z + 2T steps. laplace_temporal_work() counts the stencil evaluations of a pass
// against the useful ones, at 512^3: T = 2 (68 x 60 tile) 1.34, T = 4 (72 x 56) 1.43,
// T = 8 (48 x 48) 2.34, so 25%, 30% and 57% of the work is redundant.
// Napkin (T = 4, 512^3): a pass reads ~1.3 grids and writes 1 (1.23 GB, 0.41 ms at
// the copy rate) for 4 iterations, so memory allows ~350% of copy an iteration; but
// an evaluation is ~9.5 instructions of work (1.5 shared loads, a store, 6 flops, a
// select) and ~8 of upkeep (register moves, predicates, addresses): by ncu's count of a
// pass's warp instructions (a fifth more with a column a thread) the issue rate (132 SMs
// x 4 a cycle) allows a little less time than measured: issue-bound, with a quarter of
// the SM's warps (504 threads, 122 registers) issuing most cycles. The global addresses
// were 64-bit products a row: one pointer that moves a plane a step and 32-bit row
// offsets made a pass about a tenth faster (H200; the README has the times).
// Values outside the grid are 0 and never reach an in-grid value (an interior point's
// neighbours are in the grid); boundary points keep their values at every level.
template <int T, int TILE_X, int ROWS, int RY> struct temporal_tile {
    static constexpr int tile_x = TILE_X, tile_y = ROWS * RY, out_x = TILE_X - 2 * T,
                         out_y = tile_y - 2 * T, pairs_x = TILE_X / 2, threads = pairs_x * ROWS;
    static_assert(TILE_X % 2 == 0, "a thread takes two neighbouring columns");
    // Row stride of a half-plane: thread (tx, ty)'s pair (tx, ty RY) lies at ty (RY
    // stride) + tx; with RY stride = pairs_x (mod 32) that is the thread index mod 32, so
    // a warp's 32 accesses fall in 32 banks even where it spans two thread rows. 0: no
    // such stride (RY even and pairs_x odd, say).
    __host__ __device__ static constexpr int stride()
    {
        for (int s = pairs_x + 1; s <= pairs_x + 32; s++)
            if ((RY * s - pairs_x) % 32 == 0)
                return s;
        return 0;
    }
    static_assert(stride() > 0, "no row stride puts a warp's accesses in 32 banks");
    // A half-plane: a pad float, a pad row, tile_y rows, a pad row, a pad float, so that
    // the rim threads' x +- 1 and y +- 1 reads stay inside it. A plane: even, then odd.
    static constexpr int half_plane = (tile_y + 2) * stride() + 2, plane = 2 * half_plane;
    static constexpr size_t smem_bytes = 2 * T * plane * sizeof(float);
};

template <int T, int TILE_X, int ROWS, int RY>
__global__ void __launch_bounds__(TILE_X / 2 * ROWS)
    jacobi_temporal(const float *__restrict__ in, float *__restrict__ out, grid_shape g, int zchunk)
{
    using tile = temporal_tile<T, TILE_X, ROWS, RY>;
    constexpr int S = tile::stride(), ODD = tile::half_plane;
    extern __shared__ float smem[];
    for (int e = threadIdx.x; e < 2 * T * tile::plane; e += tile::threads)
        smem[e] = 0.0f;
    const int tx = threadIdx.x % tile::pairs_x, ty = threadIdx.x / tile::pairs_x;
    // the thread's even column; its odd one is i + 1
    const int i = blockIdx.x * tile::out_x - T + 2 * tx,
              j0 = blockIdx.y * tile::out_y - T + ty * RY;
    const int k0 = blockIdx.z * zchunk, k1 = min(k0 + zchunk, g.nz - 1);
    const int q = k0 - T; // the input plane of step 0
    const size_t nx = g.nx, kstride = nx * g.ny;
    // Bit 2r + c for row r, column c (0 even, 1 odd): loaded (in the grid), interior in
    // xy, written (in the output tile and interior).
    unsigned loaded = 0, interior_xy = 0, written = 0;
#pragma unroll
    for (int c = 0; c < 2; c++) {
        const int x = 2 * tx + c, ic = i + c;
        const bool col_in = ic >= 0 && ic < g.nx;
        const bool col_inner = ic > 0 && ic < g.nx - 1;
        const bool col_out = x >= T && x < TILE_X - T;
#pragma unroll
        for (int r = 0; r < RY; r++) {
            const int j = j0 + r, y = ty * RY + r;
            loaded |= (col_in && j >= 0 && j < g.ny) << (2 * r + c);
            interior_xy |= (col_inner && j > 0 && j < g.ny - 1) << (2 * r + c);
            written |=
                (col_out && col_inner && j > 0 && j < g.ny - 1 && y >= T && y < tile::tile_y - T)
                << (2 * r + c);
        }
    }
    // Row r of a plane is r * nx floats past row 0: a 32-bit offset, so a row's address
    // is one wide multiply-add on a 64-bit pointer that moves a plane a step (64-bit
    // products for every row cost ~40 instructions a step). `from`: row 0 of the plane
    // loaded next; `to`: row 0 of the plane written at step s, q + s - T.
    const long long kstep = (long long)kstride, column = i + (long long)j0 * (long long)nx;
    const float *from = in + column + q * kstep;
    float *to = out + column + (q - T) * kstep;
    // level t's values (column c) at the planes below and at the centre of level t + 1's
    // stencil
    float below[2][T][RY] = {}, centre[2][T][RY] = {}, next[2][RY] = {};
    const int steps = k1 - k0 + 2 * T;
    auto load_plane = [&](int k) {
        const bool plane_in = k >= 0 && k < g.nz;
#pragma unroll
        for (int r = 0; r < RY; r++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                next[c][r] =
                    plane_in && (loaded >> (2 * r + c) & 1) ? __ldg(from + r * g.nx + c) : 0.0f;
    };
    load_plane(q);
    from += kstep;
    __syncthreads();
    // My even point's slot in level t's plane of buffer b: pair (tx, ty RY) of the tile;
    // the odd point's is ODD floats on.
    float *const mine = smem + 1 + S + ty * RY * S + tx;
    for (int s = 0; s < steps; s++) {
        const float *read = mine + (s & 1) * T * tile::plane;
        float *write = mine + ((s + 1) & 1) * T * tile::plane;
        float up[2][RY];
#pragma unroll
        for (int r = 0; r < RY; r++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                up[c][r] = next[c][r];
        load_plane(q + s + 1);
        from += kstep;
#pragma unroll
        for (int t = 0; t < T; t++) {
            // up = level t at plane q + s - t: to shared memory for the next step, and
            // the plane above of level t + 1's points q + s - t - 1.
#pragma unroll
            for (int r = 0; r < RY; r++) {
                write[t * tile::plane + r * S] = up[0][r];
                write[t * tile::plane + ODD + r * S] = up[1][r];
            }
            const float *ev = read + t * tile::plane, *od = ev + ODD;
            const int p = q + s - t - 1;
            const bool z_inner = p > 0 && p < g.nz - 1;
            float res[2][RY];
#pragma unroll
            for (int r = 0; r < RY; r++) {
                // the y neighbours: the thread's own rows, or the half-plane's beyond them
                // (this order of the statements, not a loop over the two columns: ptxas
                // scheduled that one 4% slower)
                const float ym0 = r > 0 ? centre[0][t][r - 1] : ev[(r - 1) * S];
                const float yp0 = r < RY - 1 ? centre[0][t][r + 1] : ev[(r + 1) * S];
                const float ym1 = r > 0 ? centre[1][t][r - 1] : od[(r - 1) * S];
                const float yp1 = r < RY - 1 ? centre[1][t][r + 1] : od[(r + 1) * S];
                const float v0 =
                    jacobi(od[r * S - 1], centre[1][t][r], ym0, yp0, below[0][t][r], up[0][r]);
                const float v1 =
                    jacobi(centre[0][t][r], ev[r * S + 1], ym1, yp1, below[1][t][r], up[1][r]);
                res[0][r] = z_inner && (interior_xy >> (2 * r) & 1) ? v0 : centre[0][t][r];
                res[1][r] = z_inner && (interior_xy >> (2 * r + 1) & 1) ? v1 : centre[1][t][r];
            }
#pragma unroll
            for (int r = 0; r < RY; r++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    below[c][t][r] = centre[c][t][r];
                    centre[c][t][r] = up[c][r];
                    up[c][r] = res[c][r];
                }
        }
        // up = level T at plane q + s - T
        const int p = q + s - T;
        if (p >= max(k0, 1) && p < k1)
#pragma unroll
            for (int r = 0; r < RY; r++)
#pragma unroll
                for (int c = 0; c < 2; c++)
                    if (written >> (2 * r + c) & 1)
                        to[r * g.nx + c] = up[c][r];
        to += kstep;
        __syncthreads();
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

// Chunks of the z range for blocks that march through it: the count that minimizes
// (waves of blocks) x (steps a block takes), with `halo` extra steps a chunk; `tiles`
// blocks a chunk, `resident` blocks the GPU runs at once.
static int pick_zchunk(int planes, long tiles, long resident, int halo)
{
    int best_chunk = planes;
    double best_cost = 0.0;
    for (int chunks = 1; chunks <= 64 && chunks <= planes; chunks++) {
        const int chunk = cl_ceil_div(planes, chunks);
        const double waves = ceil((double)tiles * cl_ceil_div(planes, chunk) / resident);
        const double cost = waves * (chunk + halo);
        if (best_cost == 0.0 || cost < best_cost)
            best_cost = cost, best_chunk = chunk;
    }
    return best_chunk;
}

// Blocks of `kernel` the GPU holds at once (at least an SM's worth, for the chunking).
static long resident_blocks(const void *kernel, int threads, size_t smem)
{
    const cl_kernel_fit fit = cl_kernel_fit_for(kernel, threads, smem);
    return fit.blocks_per_sm > 0 ? fit.resident : cl_device_current()->sm_count;
}

// Below 3 points in any direction every point is boundary: nothing to launch.
static bool has_interior(grid_shape g) { return g.nx >= 3 && g.ny >= 3 && g.nz >= 3; }

template <int VEC>
static void launch_zmarch_vec(const float *in, float *out, grid_shape g, cudaStream_t s)
{
    if (!has_interior(g))
        return;
    const long resident = resident_blocks((const void *)jacobi_zmarch_vec<VEC>, 32 * V5_BY, 0);
    const dim3 threads(32, V5_BY);
    dim3 blocks(cl_ceil_div(g.nx, 32 * VEC), cl_ceil_div(g.ny, V5_BY));
    const int zchunk = pick_zchunk(g.nz - 2, (long)blocks.x * blocks.y, resident, 2);
    blocks.z = cl_ceil_div(g.nz - 2, zchunk);
    jacobi_zmarch_vec<VEC><<<blocks, threads, 0, s>>>(in, out, g, zchunk);
    CL_LAUNCH_CHECK();
}

static void zmarch_once(const float *in, float *out, grid_shape g, cudaStream_t s)
{
    if (g.nx % 4 == 0)
        launch_zmarch_vec<4>(in, out, g, s);
    else
        launch_zmarch_vec<1>(in, out, g, s);
}

static void launch_v5(float **in, float **out, grid_shape g, int iterations, block_shape,
                      cudaStream_t s)
{
    for (int it = 0; it < iterations; it++, swap(in, out))
        zmarch_once(*in, *out, g, s);
}

// --- the pieces --gpus uses (multi_gpu.c) -------------------------------------------------

// One iteration on planes [k_lo, k_hi) only: v5 on the view of planes k_lo - 1 .. k_hi,
// whose first and last planes it reads and never writes, as it does a grid's boundary.
// A slab's two edge planes and its inside are separate launches this way, with the
// arithmetic of a whole-grid launch, so the results are the same bits.
extern "C" void laplace_step_planes(const float *in, float *out, grid_shape g, int k_lo, int k_hi,
                                    cudaStream_t s)
{
    if (k_hi <= k_lo)
        return;
    const size_t skip = (size_t)(k_lo - 1) * g.nx * g.ny;
    zmarch_once(in + skip, out + skip, grid_shape{g.nx, g.ny, k_hi - k_lo + 2}, s);
}

__device__ __forceinline__ size_t global_index(grid_shape g, size_t local, int k_first, int *i,
                                               int *j, int *k)
{
    const size_t plane = (size_t)g.nx * g.ny;
    *i = (int)(local % g.nx);
    *j = (int)(local / g.nx % g.ny);
    *k = k_first + (int)(local / plane);
    return local + plane * k_first;
}

// Blocks of 256 for a grid-stride loop over n points: 8 an SM, fewer for small n.
static unsigned grid_stride_blocks(size_t n)
{
    return (unsigned)min((size_t)cl_device_current()->sm_count * 8, (size_t)cl_ceil_div(n, 256));
}

// Planes [k_first, k_first + planes) of the start grid, computed where they live: 1 on
// the boundary, inside 0 or the suite's generator at the point's index in the whole
// grid (the host's laplace_start_value, bit for bit), so no GPU needs a host copy.
__global__ void fill_planes(float *slab, grid_shape g, int k_first, int planes, bool random,
                            uint64_t key)
{
    const size_t n = (size_t)g.nx * g.ny * planes;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n;
         p += (size_t)gridDim.x * blockDim.x) {
        int i, j, k;
        const size_t at = global_index(g, p, k_first, &i, &j, &k);
        slab[p] = !interior(i, j, k, g) ? 1.0f : random ? cl_rng_uniform_f32(key, at) : 0.0f;
    }
}

extern "C" void laplace_fill_planes(float *slab, grid_shape g, int k_first, int planes, bool random,
                                    uint64_t key, cudaStream_t s)
{
    const size_t n = (size_t)g.nx * g.ny * planes;
    if (n == 0)
        return;
    fill_planes<<<grid_stride_blocks(n), 256, 0, s>>>(slab, g, k_first, planes, random, key);
    CL_LAUNCH_CHECK();
}

// A fingerprint of planes [k_first, k_first + planes): the sum, mod 2^64, of a mix of
// each point's index in the whole grid and its bits. A sum does not depend on who adds
// what, so slabs on any number of GPUs (or processes) add up to the whole grid's value.
__global__ void checksum_planes(const float *slab, grid_shape g, int k_first, int planes,
                                unsigned long long *sum)
{
    const size_t n = (size_t)g.nx * g.ny * planes;
    unsigned long long mine = 0;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < n;
         p += (size_t)gridDim.x * blockDim.x) {
        int i, j, k;
        const size_t at = global_index(g, p, k_first, &i, &j, &k);
        mine += cl_rng_u64(__float_as_uint(slab[p]), at);
    }
    for (int offset = 16; offset > 0; offset /= 2)
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if (threadIdx.x % 32 == 0)
        atomicAdd(sum, mine);
}

extern "C" void laplace_checksum_planes(const float *slab, grid_shape g, int k_first, int planes,
                                        unsigned long long *sum, cudaStream_t s)
{
    const size_t n = (size_t)g.nx * g.ny * planes;
    if (n == 0)
        return;
    checksum_planes<<<grid_stride_blocks(n), 256, 0, s>>>(slab, g, k_first, planes, sum);
    CL_LAUNCH_CHECK();
}

// The tile of each T (README.md: the sweep that chose them). Output tiles 64 wide, so
// 512 and 1024 points split without a ragged tile. Rows a thread: T = 4 takes 4 (504
// threads, 122 registers; 1008 threads of 2 ran the same at 512^3, 0.7% slower at
// 1024^3); T = 2 and 8 take 2, as 4 would leave T = 2 no conflict-free stride (34 pairs
// a row) and cost T = 8 16% (168 registers).
template <int T> struct tile_of;
template <> struct tile_of<2> : temporal_tile<2, 68, 30, 2> {
};
template <> struct tile_of<4> : temporal_tile<4, 72, 14, 4> {
};
template <> struct tile_of<8> : temporal_tile<8, 48, 24, 2> {
};

template <int T, int TILE_X, int ROWS, int RY>
static const void *temporal_kernel(temporal_tile<T, TILE_X, ROWS, RY>)
{
    return (const void *)jacobi_temporal<T, TILE_X, ROWS, RY>;
}

struct temporal_launch {
    dim3 blocks;
    int zchunk;
};

template <int T> static temporal_launch temporal_geometry(grid_shape g)
{
    using tile = tile_of<T>;
    const long resident = resident_blocks(temporal_kernel(tile{}), tile::threads, tile::smem_bytes);
    dim3 blocks(cl_ceil_div(g.nx, tile::out_x), cl_ceil_div(g.ny, tile::out_y));
    const int zchunk = pick_zchunk(g.nz - 1, (long)blocks.x * blocks.y, resident, 2 * T);
    blocks.z = cl_ceil_div(g.nz - 1, zchunk);
    return {blocks, zchunk};
}

template <int T, int TILE_X, int ROWS, int RY>
static void launch_tile(temporal_tile<T, TILE_X, ROWS, RY> tile, const float *in, float *out,
                        grid_shape g, cudaStream_t s)
{
    const temporal_launch l = temporal_geometry<T>(g);
    jacobi_temporal<T, TILE_X, ROWS, RY>
        <<<l.blocks, tile.threads, tile.smem_bytes, s>>>(in, out, g, l.zchunk);
    CL_LAUNCH_CHECK();
}

static int time_block = 0; // --tblock; 0: laplace_default_time_block

extern "C" const int laplace_default_time_block = 4;

extern "C" void laplace_set_time_block(int t) { time_block = t; }

// Passes of T iterations, then the rest as passes of 4, 2 and 1 (v5): the same
// arithmetic in every one, so any REPEAT gives the gold's values.
static void launch_v6(float **in, float **out, grid_shape g, int iterations, block_shape,
                      cudaStream_t s)
{
    const int t_max = time_block ? time_block : laplace_default_time_block;
    for (int left = iterations, t; left > 0; left -= t, swap(in, out)) {
        t = 1;
        while (t < t_max && 2 * t <= left)
            t *= 2;
        if (!has_interior(g))
            t = 1; // v5 launches nothing
        if (t == 8)
            launch_tile(tile_of<8>{}, *in, *out, g, s);
        else if (t == 4)
            launch_tile(tile_of<4>{}, *in, *out, g, s);
        else if (t == 2)
            launch_tile(tile_of<2>{}, *in, *out, g, s);
        else
            zmarch_once(*in, *out, g, s);
    }
}

// Stencil evaluations a pass of T does, over the useful ones (T x the interior points).
template <int T> static double temporal_work(grid_shape g)
{
    using tile = tile_of<T>;
    const temporal_launch l = temporal_geometry<T>(g);
    double evaluations = 0.0;
    for (unsigned z = 0; z < l.blocks.z; z++) {
        const int k0 = z * l.zchunk, k1 = min(k0 + l.zchunk, g.nz - 1);
        evaluations += (double)(k1 - k0 + 2 * T) * T;
    }
    evaluations *= (double)l.blocks.x * l.blocks.y * tile::tile_x * tile::tile_y;
    return evaluations / ((double)T * (g.nx - 2) * (g.ny - 2) * (g.nz - 2));
}

extern "C" double laplace_temporal_work(grid_shape g, int t)
{
    if (!has_interior(g))
        return 0.0;
    return t == 8 ? temporal_work<8>(g) : t == 4 ? temporal_work<4>(g) : temporal_work<2>(g);
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
    {{"v5-zmarch-vec", "z-marching, 16 bytes a lane, x neighbours by shuffles, y from shared rows"},
     launch_v5,
     BLOCK_FIXED},
    {{"v6-temporal-t",
      "T iterations a pass (--tblock 2, 4, 8): 3.5D blocking, one barrier a plane"},
     launch_v6,
     BLOCK_FIXED},
    {{"yours", laplace_yours_idea}, laplace_yours, BLOCK_FIXED},
};
extern "C" const int laplace_version_count = sizeof laplace_versions / sizeof laplace_versions[0];
extern "C" const char laplace_fastest_version[] = "v6-temporal-t";
