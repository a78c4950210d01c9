// heat: 2D heat transfer (CUDA by Example, chapter 7): a DIM x DIM field where each
// step restores the constant heat sources and then blends every cell with its four
// neighbours, T + k (top + bottom + left + right - 4 T); an edge cell is its own
// missing neighbour.
//
// Versions:
//   v1-global      the book's first program: two kernels a step (restore the sources
//                  from a map, blend from global memory), 16x16 blocks, ping-pong
//   v2-texture     the book's second: the same two kernels reading through texture
//                  objects (2D, pitched, clamp addressing does the edges)
//   v3-shared      one kernel a step: a block loads its tile plus a one-cell halo into
//                  shared memory, restoring sources as it loads, then blends from
//                  shared memory
//   v4-temporal    temporal blocking: a block keeps a 64x64 tile (its 48x48 output
//                  plus an 8-cell halo), steps it 8 times on chip, writes the centre;
//                  one cooperative launch with a grid barrier between passes when all
//                  the tiles fit on the GPU at once, else a launch a pass
//   yours          yours.cu: the learner's slot
//
// Napkin math: a step reads and writes each cell once: 8 bytes a cell, 8.4 MB at
// 1024^2 (the field fits in L2: launches, not bytes, bound the one-step versions:
// 90 steps a frame are 90 to 180 launches), 134 MB at 4096^2 (0.045 ms at an H100's
// ~3 TB/s, 4 ms a frame). "Effective GB/s" is 8 bytes a cell a step over the time,
// so a version doing several steps a pass can exceed the copy rate.
#include <cooperative_groups.h>

#include "check.h"
#include "heat.h"
#include "launch.h"

// Cell (x, y) of a pitched buffer.
__device__ __forceinline__ size_t cell(const heat_grid &g, int x, int y)
{
    return (size_t)y * g.pitch + x;
}

static dim3 blocks_for(const heat_grid *g, dim3 threads)
{
    return dim3((g->dim + threads.x - 1) / threads.x, (g->dim + threads.y - 1) / threads.y);
}

static void swap_buffers(heat_state *s) { s->current ^= 1; }

// --- v1: global memory, two kernels a step ----------------------------------------------------

// The book's copy_const_kernel: a cell with a source takes its temperature.
__global__ void restore_sources(float *field, const float *source_map, heat_grid g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.dim || y >= g.dim)
        return;
    const float source = source_map[cell(g, x, y)];
    if (source != 0.0f)
        field[cell(g, x, y)] = source;
}

// The book's blend_kernel: five reads from global memory (four shared with the
// neighbouring threads through L1/L2), one write.
__global__ void blend_global(const float *in, float *out, heat_grid g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.dim || y >= g.dim)
        return;
    const float *row = in + (size_t)y * g.pitch;
    const float *up = y > 0 ? row - g.pitch : row, *down = y < g.dim - 1 ? row + g.pitch : row;
    out[cell(g, x, y)] = heat_blend(row[x], up[x], down[x], row[x > 0 ? x - 1 : x],
                                    row[x < g.dim - 1 ? x + 1 : x], g.k);
}

static void heat_v1(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream)
{
    const dim3 threads(16, 16), blocks = blocks_for(g, threads);
    for (int step = 0; step < steps; step++) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        restore_sources<<<blocks, threads, 0, stream>>>(in, s->source_map, *g);
        CL_LAUNCH_CHECK();
        blend_global<<<blocks, threads, 0, stream>>>(in, out, *g);
        CL_LAUNCH_CHECK();
        swap_buffers(s);
    }
}

// --- v2: texture objects ------------------------------------------------------------------------

// The book bound texture references (texture<float, 2>, cudaBindTexture2D) to the
// buffers; CUDA 12 removed them. A texture object is a value made once at setup
// (cudaCreateTextureObject) and passed to the kernel like any argument. Reads go
// through the texture cache, and clamp addressing returns the edge cell for a
// coordinate outside the grid: the edge rule, with no index arithmetic.
__global__ void restore_sources_texture(float *field, cudaTextureObject_t source_map, heat_grid g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.dim || y >= g.dim)
        return;
    const float source = tex2D<float>(source_map, x, y);
    if (source != 0.0f)
        field[cell(g, x, y)] = source;
}

__global__ void blend_texture(cudaTextureObject_t in, float *out, heat_grid g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.dim || y >= g.dim)
        return;
    out[cell(g, x, y)] =
        heat_blend(tex2D<float>(in, x, y), tex2D<float>(in, x, y - 1), tex2D<float>(in, x, y + 1),
                   tex2D<float>(in, x - 1, y), tex2D<float>(in, x + 1, y), g.k);
}

static void heat_v2(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream)
{
    const dim3 threads(16, 16), blocks = blocks_for(g, threads);
    for (int step = 0; step < steps; step++) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        const cudaTextureObject_t in_texture = s->tex[s->current], source_texture = s->tex[2];
        restore_sources_texture<<<blocks, threads, 0, stream>>>(in, source_texture, *g);
        CL_LAUNCH_CHECK();
        blend_texture<<<blocks, threads, 0, stream>>>(in_texture, out, *g);
        CL_LAUNCH_CHECK();
        swap_buffers(s);
    }
}

extern "C" void heat_create_textures(heat_state *s, const heat_grid *g)
{
    const float *buffers[3] = {s->field[0], s->field[1], s->source_map};
    for (int i = 0; i < 3; i++) {
        cudaResourceDesc resource = {};
        resource.resType = cudaResourceTypePitch2D;
        resource.res.pitch2D.devPtr = (void *)buffers[i];
        resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
        resource.res.pitch2D.width = g->dim;
        resource.res.pitch2D.height = g->dim;
        resource.res.pitch2D.pitchInBytes = g->pitch * sizeof(float);
        cudaTextureDesc texture = {};
        texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
        texture.filterMode = cudaFilterModePoint; // unnormalized integer coordinates: one cell
        texture.readMode = cudaReadModeElementType;
        CL_CUDA_CHECK(cudaCreateTextureObject(&s->tex[i], &resource, &texture, NULL));
    }
}

extern "C" void heat_destroy_textures(heat_state *s)
{
    for (int i = 0; i < 3; i++)
        CL_CUDA_CHECK(cudaDestroyTextureObject(s->tex[i]));
}

// --- v3: shared-memory tiles with a halo, sources fused ---------------------------------------

// The 1D shared-memory stencil of the CUDA basics notes in 2D: a block of 32x16 threads
// loads its tile and a one-cell halo (the threads on the tile's rim load the halo
// cell beyond them), then every neighbour read is a shared-memory read. Sources are
// restored as cells are loaded: one kernel a step instead of two, 12 bytes a cell
// from memory (field, map, result) instead of v1's 16 and two launches.
#define V3_BX 32
#define V3_BY 16

__global__ void __launch_bounds__(V3_BX *V3_BY)
    step_shared(const float *in, float *out, const float *source_map, heat_grid g)
{
    __shared__ float tile[V3_BY + 2][V3_BX + 2];
    const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    const int x = blockIdx.x * V3_BX + threadIdx.x, y = blockIdx.y * V3_BY + threadIdx.y;
    // Clamping to the grid gives the edge rule: a missing neighbour reads the edge
    // cell itself. Threads past the grid load a clamped cell and write nothing.
    auto load = [&](int cx, int cy) {
        const size_t i = cell(g, min(max(cx, 0), g.dim - 1), min(max(cy, 0), g.dim - 1));
        return heat_restore(in[i], source_map[i]);
    };
    tile[ty][tx] = load(x, y);
    if (threadIdx.x == 0)
        tile[ty][0] = load(x - 1, y);
    if (threadIdx.x == V3_BX - 1)
        tile[ty][V3_BX + 1] = load(x + 1, y);
    if (threadIdx.y == 0)
        tile[0][tx] = load(x, y - 1);
    if (threadIdx.y == V3_BY - 1)
        tile[V3_BY + 1][tx] = load(x, y + 1);
    __syncthreads();
    if (x < g.dim && y < g.dim)
        out[cell(g, x, y)] = heat_blend(tile[ty][tx], tile[ty - 1][tx], tile[ty + 1][tx],
                                        tile[ty][tx - 1], tile[ty][tx + 1], g.k);
}

static void heat_v3(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream)
{
    const dim3 threads(V3_BX, V3_BY), blocks = blocks_for(g, threads);
    for (int step = 0; step < steps; step++) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        step_shared<<<blocks, threads, 0, stream>>>(in, out, s->source_map, *g);
        CL_LAUNCH_CHECK();
        swap_buffers(s);
    }
}

// --- v4: temporal blocking
// ------------------------------------------------------------------------

// Several steps a launch. A block of 64x4 threads holds a 64x64 tile: thread (tx, ty)
// keeps a column of 16 cells in registers (rows 16 ty ... 16 ty + 15) and their
// source temperatures. Each step it restores and publishes its cells in shared
// memory, reads its left and right neighbours and the cells above and below its
// segment from there (the column's own neighbours are registers), and blends. After s
// steps the cells within s of the tile's rim are wrong (their neighbours beyond the
// tile were never loaded), so with up to V4_STEPS steps a launch a block writes only
// the centre, 64 - 2 V4_STEPS a side; neighbouring tiles overlap by the halo. Two
// shared buffers, alternating, need one barrier a step; a one-cell pad around each
// lets rim cells read garbage instead of testing; only the blocks whose tile reaches
// the grid's edge test for it (AT_EDGE). The sources are rectangles, so no map is
// read: a cell lies in rectangle i when its column and its row both do, and a block
// computes a bit mask of rectangles for each of its 64 columns and 64 rows.
// Napkin math (8 steps, 48x48 out of 64x64): global traffic per 8 steps is 1.78 reads
// + 1 write a cell (0.35 bytes a cell a step instead of 8); the work is the whole
// tile each step, 1.78x the useful cells, ~11 instructions and 12 bytes of shared
// memory a cell: at 1024^2 and 90 steps 168M cell updates, ~60-70 us of issue or of
// shared-memory bandwidth across 132 SMs. It runs at about 2.5x that (README.md has
// the times), so barriers and latency, not issue, set the pace. What helped: one
// launch, the step loop unrolled by 2 (a few registers spill), the same select a cell
// in every thread (a branch for threads holding sources made the tiles on the big
// source the slowest, and every pass waits for the slowest). 8 steps a pass: 6 is
// faster at 4096^2 but slower at 1024^2; 4 or 12 are slower at both.
#ifndef HEAT_V4_STEPS
#define HEAT_V4_STEPS 8
#endif
#ifndef HEAT_V4_ROWS
#define HEAT_V4_ROWS 16
#endif
#define V4_TILE 64
#define V4_OUT (V4_TILE - 2 * HEAT_V4_STEPS)
#define V4_PADDED (V4_TILE + 2)
#define V4_THREADS (V4_TILE * V4_TILE / HEAT_V4_ROWS)

typedef float v4_tile[V4_PADDED][V4_PADDED];

template <bool AT_EDGE>
__device__ __forceinline__ void temporal_steps(float (&value)[HEAT_V4_ROWS],
                                               const float (&source)[HEAT_V4_ROWS], v4_tile *tiles,
                                               int x, int y0, int steps, const heat_grid &g)
{
    const int col = threadIdx.x + 1, row0 = threadIdx.y * HEAT_V4_ROWS + 1; // padded indices
#pragma unroll 2
    for (int step = 0; step < steps; step++) {
        v4_tile &t = tiles[step & 1];
        // Every thread restores every cell (a select each): a branch for the threads that
        // hold sources would make the tiles on the big source the slowest, and at
        // 1024^2 every pass waits for the slowest tile.
#pragma unroll
        for (int r = 0; r < HEAT_V4_ROWS; r++)
            value[r] = heat_restore(value[r], source[r]);
#pragma unroll
        for (int r = 0; r < HEAT_V4_ROWS; r++)
            t[row0 + r][col] = value[r];
        __syncthreads();
        const float below = t[row0 + HEAT_V4_ROWS][col];
        float previous = t[row0 - 1][col]; // the old value above row r
        // In place, top to bottom: row r - 1's old value is carried in `previous`,
        // row r + 1's is not yet overwritten; no second array, no copies.
#pragma unroll
        for (int r = 0; r < HEAT_V4_ROWS; r++) {
            const float centre = value[r];
            float up = previous, down = r == HEAT_V4_ROWS - 1 ? below : value[r + 1];
            float left = t[row0 + r][col - 1], right = t[row0 + r][col + 1];
            if (AT_EDGE) { // an edge cell is its own missing neighbour
                const int y = y0 + r;
                up = y == 0 ? centre : up;
                down = y == g.dim - 1 ? centre : down;
                left = x == 0 ? centre : left;
                right = x == g.dim - 1 ? centre : right;
            }
            value[r] = heat_blend(centre, up, down, left, right, g.k);
            previous = centre;
        }
    }
}

// The rectangles (of g.sources) holding coordinate c in [lo, hi): a bit each.
__device__ __forceinline__ unsigned rects_holding(const heat_layout &l, int c, bool rows)
{
    unsigned mask = 0;
#pragma unroll
    for (int i = 0; i < HEAT_MAX_SOURCES; i++) {
        const int lo = rows ? l.rect[i].y0 : l.rect[i].x0, hi = rows ? l.rect[i].y1 : l.rect[i].x1;
        if (i < l.count && c >= lo && c < hi)
            mask |= 1u << i;
    }
    return mask;
}

// Registers: 64 a thread lets 1024 / V4_THREADS blocks share an SM (4 of 256 threads:
// at 1024^2 the 484 tiles then run in one wave).
// PERSISTENT: when every tile's block fits on the GPU at once (up to 1056^2 on an H100:
// 4 blocks on each of 132 SMs hold 22 x 22 tiles of 48), one cooperative launch does all
// the steps: a grid-wide barrier between the passes replaces a launch, and the masks and
// sources stay in registers.
template <bool PERSISTENT>
__global__ void __launch_bounds__(V4_THREADS, 1024 / V4_THREADS)
    steps_temporal(float *in, float *out, heat_grid g, int steps)
{
    __shared__ v4_tile tiles[2];
    __shared__ unsigned column_rects[V4_TILE], row_rects[V4_TILE];
    __shared__ float rect_temp[HEAT_MAX_SOURCES];
    const int tile_x0 = blockIdx.x * V4_OUT - HEAT_V4_STEPS;
    const int tile_y0 = blockIdx.y * V4_OUT - HEAT_V4_STEPS;
    const int x = tile_x0 + threadIdx.x, y0 = tile_y0 + threadIdx.y * HEAT_V4_ROWS;
    const int thread = threadIdx.y * V4_TILE + threadIdx.x;
    if (thread < V4_TILE)
        column_rects[thread] = rects_holding(g.sources, tile_x0 + thread, false);
    else if (thread < 2 * V4_TILE)
        row_rects[thread - V4_TILE] = rects_holding(g.sources, tile_y0 + thread - V4_TILE, true);
    else if (thread < 2 * V4_TILE + HEAT_MAX_SOURCES)
        rect_temp[thread - 2 * V4_TILE] = g.sources.rect[thread - 2 * V4_TILE].temp;
    // The pads are read (by rim cells, whose results are thrown away), never written:
    // zero them so nothing uninitialised is read.
    for (int i = thread; i < 2 * 4 * V4_PADDED; i += V4_THREADS) {
        const int b = i / (4 * V4_PADDED), side = i / V4_PADDED % 4, j = i % V4_PADDED;
        float *pad = side == 0   ? &tiles[b][0][j]
                     : side == 1 ? &tiles[b][V4_PADDED - 1][j]
                     : side == 2 ? &tiles[b][j][0]
                                 : &tiles[b][j][V4_PADDED - 1];
        *pad = 0.0f;
    }
    __syncthreads();
    const bool column_in_grid = x >= 0 && x < g.dim;
    float value[HEAT_V4_ROWS], source[HEAT_V4_ROWS];
#pragma unroll
    for (int r = 0; r < HEAT_V4_ROWS; r++) {
        const unsigned rects =
            column_rects[threadIdx.x] & row_rects[threadIdx.y * HEAT_V4_ROWS + r];
        source[r] = rects ? rect_temp[__ffs(rects) - 1] : 0.0f;
    }
    const bool at_edge =
        tile_x0 <= 0 || tile_y0 <= 0 || tile_x0 + V4_TILE >= g.dim || tile_y0 + V4_TILE >= g.dim;
    const int tx = threadIdx.x;
    const bool writes_column = column_in_grid && tx >= HEAT_V4_STEPS && tx < HEAT_V4_STEPS + V4_OUT;
    for (int done = 0; done < steps; done += HEAT_V4_STEPS) {
#pragma unroll
        for (int r = 0; r < HEAT_V4_ROWS; r++) {
            const int y = y0 + r;
            value[r] = column_in_grid && y >= 0 && y < g.dim ? in[cell(g, x, y)] : 0.0f;
        }
        const int now = min(HEAT_V4_STEPS, steps - done);
        // A block-uniform branch: the tile holds a grid edge (or cells beyond it) or not.
        if (at_edge)
            temporal_steps<true>(value, source, tiles, x, y0, now, g);
        else
            temporal_steps<false>(value, source, tiles, x, y0, now, g);
#pragma unroll
        for (int r = 0; r < HEAT_V4_ROWS; r++) {
            const int y = y0 + r, tile_row = threadIdx.y * HEAT_V4_ROWS + r;
            if (writes_column && y < g.dim && tile_row >= HEAT_V4_STEPS &&
                tile_row < HEAT_V4_STEPS + V4_OUT)
                out[cell(g, x, y)] = value[r];
        }
        if (!PERSISTENT)
            return;
        cooperative_groups::this_grid().sync(); // every tile written before any is read
        float *swap = in;
        in = out;
        out = swap;
    }
}

// Whether one cooperative launch can hold every tile of this grid at once.
static bool v4_fits_at_once(unsigned tiles)
{
    int device, cooperative;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    return cooperative &&
           tiles <= (unsigned)cl_kernel_fit_for((const void *)steps_temporal<true>, V4_THREADS, 0)
                        .resident;
}

static void heat_v4(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream)
{
    const dim3 threads(V4_TILE, V4_TILE / HEAT_V4_ROWS);
    const dim3 blocks((g->dim + V4_OUT - 1) / V4_OUT, (g->dim + V4_OUT - 1) / V4_OUT);
    const int passes = (steps + HEAT_V4_STEPS - 1) / HEAT_V4_STEPS;
    if (v4_fits_at_once(blocks.x * blocks.y)) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        heat_grid grid = *g;
        void *args[] = {&in, &out, &grid, &steps};
        CL_CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)steps_temporal<true>, blocks,
                                                  threads, args, 0, stream));
        s->current ^= passes & 1;
        return;
    }
    for (int done = 0; done < steps; done += HEAT_V4_STEPS) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        steps_temporal<false><<<blocks, threads, 0, stream>>>(in, out, *g, steps - done);
        CL_LAUNCH_CHECK();
        swap_buffers(s);
    }
}

// --- the version table ------------------------------------------------------------------------

extern "C" const heat_version heat_versions[] = {
    {{"v1-global", "the book's: restore kernel + blend kernel a step, global memory"}, heat_v1},
    {{"v2-texture", "the book's with texture objects: 2D, pitched, clamp addressing"}, heat_v2},
    {{"v3-shared", "one kernel a step: shared tile + halo, sources restored as loaded"}, heat_v3},
    {{"v4-temporal", "8 steps a pass on a 64x64 shared tile; one launch when the tiles fit"},
     heat_v4},
    {{"yours", heat_yours_idea}, heat_yours},
};
extern "C" const int heat_version_count = sizeof heat_versions / sizeof heat_versions[0];
extern "C" const char heat_fastest_version[] = "v4-temporal";
