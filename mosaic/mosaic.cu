// mosaic: the photo-mosaic filter of the course's image assignment on the GPU: every
// c x c cell of an RGB image becomes its average colour, and the image's average colour
// comes from the cells' sums.
//
// Versions:
//   v1-atomics      a thread a pixel adds its channels to its cell's sums (64-bit
//                   atomics), a second kernel writes each pixel's cell average
//   v2-staged       the course write-up's design: 2 x 2 sums staged level by level into
//                   an integer buffer (within each cell, so any c works and partial
//                   cells stay exact) until one sum a cell, then the broadcast
//   v3-row-blocks   one pass: a block a row of cells reads it in 16-byte chunks, adds
//                   them into the cells' sums in shared memory, writes 16-byte chunks
//   v4-staged-tiles one pass over tiles of a cell row: 16-byte loads staged in shared
//                   memory, four in flight a thread, column sums, then cell sums; the
//                   tile's rows all equal one mosaic row, stored with 16-byte writes
//   yours           yours.cu: the learner's slot
//
// Napkin math: the filter reads each pixel once and writes it once, 6 bytes a pixel:
// 100 MB at 4096^2, 34 us at an H100's ~2.97 TB/s copy rate.
#include <cuda_pipeline.h>

#include "block_reduce.cuh"
#include "check.h"
#include "device.h"
#include "mosaic.h"

struct mosaic_workspace {
    mosaic_shape shape;
    unsigned long long *cell_sums; // 3 a cell
    unsigned long long *levels[2]; // v2: ping-pong level buffers, 3 sums an element
};

// Cell (cx, cy)'s pixel box and pixel count.
__device__ __forceinline__ void cell_box(mosaic_shape s, int cx, int cy, int &x0, int &y0, int &x1,
                                         int &y1)
{
    x0 = cx * s.cell;
    y0 = cy * s.cell;
    x1 = min(x0 + s.cell, s.width);
    y1 = min(y0 + s.cell, s.height);
}

__device__ __forceinline__ uint8_t average_of(unsigned long long sum, unsigned long long count)
{
    return (uint8_t)((sum + count / 2) / count); // mosaic_average, the rule in mosaic.h
}

// Every pixel takes its cell's average (v1, v2).
__global__ void broadcast_averages(const unsigned long long *cell_sums, uint8_t *out,
                                   mosaic_shape s)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (size_t)s.width * s.height)
        return;
    const int x = (int)(p % s.width), y = (int)(p / s.width);
    const int cx = x / s.cell, cy = y / s.cell;
    int x0, y0, x1, y1;
    cell_box(s, cx, cy, x0, y0, x1, y1);
    const unsigned long long count = (unsigned long long)(x1 - x0) * (y1 - y0);
    const unsigned long long *sums =
        cell_sums + 3 * ((size_t)cy * ((s.width + s.cell - 1) / s.cell) + cx);
    for (int c = 0; c < 3; c++)
        out[3 * p + c] = average_of(sums[c], count);
}

// totals[c] = the sum over cells of cell_sums[3 cell + c]: grid-stride partial sums,
// a block reduction a channel, one atomicAdd a block a channel.
__global__ void __launch_bounds__(256)
    totals_kernel(const unsigned long long *cell_sums, size_t cells, unsigned long long *totals)
{
    unsigned long long partial[3] = {0, 0, 0};
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * blockDim.x)
        for (int c = 0; c < 3; c++)
            partial[c] += cell_sums[3 * i + c];
    for (int c = 0; c < 3; c++) {
        const unsigned long long sum = block_reduce_sum(partial[c]);
        if (threadIdx.x == 0)
            atomicAdd(&totals[c], sum);
        __syncthreads(); // block_reduce_sum's shared array is reused by the next channel
    }
}

extern "C" void mosaic_totals_from_cells(const unsigned long long *cell_sums, size_t cells,
                                         unsigned long long *totals, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(totals, 0, 3 * sizeof(unsigned long long), stream));
    const unsigned blocks = (unsigned)(cells < 256 * 512 ? (cells + 255) / 256 : 512);
    totals_kernel<<<blocks, 256, 0, stream>>>(cell_sums, cells, totals);
    CL_LAUNCH_CHECK();
}

static size_t cell_count(mosaic_shape s)
{
    return (size_t)mosaic_cells_x(s) * (size_t)mosaic_cells_y(s);
}

static unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

// --- v1: a thread a pixel, atomics a cell ------------------------------------------------

__global__ void add_pixels_to_cells(const uint8_t *in, unsigned long long *cell_sums,
                                    mosaic_shape s)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (size_t)s.width * s.height)
        return;
    const int x = (int)(p % s.width), y = (int)(p / s.width);
    const size_t cell = (size_t)(y / s.cell) * ((s.width + s.cell - 1) / s.cell) + x / s.cell;
    for (int c = 0; c < 3; c++)
        atomicAdd(&cell_sums[3 * cell + c], (unsigned long long)in[3 * p + c]);
}

static void mosaic_v1(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                      mosaic_workspace *ws, cudaStream_t stream)
{
    const size_t pixels = (size_t)s.width * s.height, cells = cell_count(s);
    CL_CUDA_CHECK(
        cudaMemsetAsync(ws->cell_sums, 0, 3 * cells * sizeof(unsigned long long), stream));
    add_pixels_to_cells<<<blocks_for(pixels, 256), 256, 0, stream>>>(in, ws->cell_sums, s);
    CL_LAUNCH_CHECK();
    broadcast_averages<<<blocks_for(pixels, 256), 256, 0, stream>>>(ws->cell_sums, out, s);
    CL_LAUNCH_CHECK();
    mosaic_totals_from_cells(ws->cell_sums, cells, totals, stream);
}

// --- v2: staged 2 x 2 sums (the write-up's design) ---------------------------------------------

// Level l of a cell is an n_l x n_l grid of sums, n_l = ceil(c / 2^l): element (a, b)
// sums the cell's pixels in columns [a 2^l, (a + 1) 2^l) and rows [b 2^l, (b + 1) 2^l)
// (those inside the cell and the image). Level 1 sums 2 x 2 pixels; level l + 1 sums
// 2 x 2 elements of level l; at n = 1 the one element is the cell's sum. Storage:
// cell-major, element (cell, a, b) at ((cell n + b) n + a) 3 + channel.
__global__ void first_level(const uint8_t *in, unsigned long long *level, mosaic_shape s, int n)
{
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int cells_x = (s.width + s.cell - 1) / s.cell;
    const size_t per_cell = (size_t)n * n;
    if (e >= per_cell * cells_x * ((s.height + s.cell - 1) / s.cell))
        return;
    const size_t cell = e / per_cell;
    const int a = (int)(e % per_cell % n), b = (int)(e % per_cell / n);
    const int cx = (int)(cell % cells_x), cy = (int)(cell / cells_x);
    int x0, y0, x1, y1;
    cell_box(s, cx, cy, x0, y0, x1, y1);
    unsigned long long sum[3] = {0, 0, 0};
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            const int x = x0 + 2 * a + dx, y = y0 + 2 * b + dy;
            if (x < x1 && y < y1)
                for (int c = 0; c < 3; c++)
                    sum[c] += in[3 * ((size_t)y * s.width + x) + c];
        }
    for (int c = 0; c < 3; c++)
        level[3 * e + c] = sum[c];
}

__global__ void next_level(const unsigned long long *below, unsigned long long *level, size_t cells,
                           int n_below, int n)
{
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t per_cell = (size_t)n * n;
    if (e >= per_cell * cells)
        return;
    const size_t cell = e / per_cell;
    const int a = (int)(e % per_cell % n), b = (int)(e % per_cell / n);
    unsigned long long sum[3] = {0, 0, 0};
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            const int ca = 2 * a + dx, cb = 2 * b + dy;
            if (ca < n_below && cb < n_below) {
                const size_t child = (cell * n_below + cb) * n_below + ca;
                for (int c = 0; c < 3; c++)
                    sum[c] += below[3 * child + c];
            }
        }
    for (int c = 0; c < 3; c++)
        level[3 * e + c] = sum[c];
}

static void mosaic_v2(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                      mosaic_workspace *ws, cudaStream_t stream)
{
    const size_t pixels = (size_t)s.width * s.height, cells = cell_count(s);
    // c = 1: every pixel is its own cell; level "1" with n = 1 sums the one pixel.
    int n = (s.cell + 1) / 2;
    unsigned long long *level = n == 1 ? ws->cell_sums : ws->levels[0];
    first_level<<<blocks_for(cells * n * n, 256), 256, 0, stream>>>(in, level, s, n);
    CL_LAUNCH_CHECK();
    for (int which = 1; n > 1; which ^= 1) {
        const int n_next = (n + 1) / 2;
        unsigned long long *next = n_next == 1 ? ws->cell_sums : ws->levels[which];
        next_level<<<blocks_for(cells * n_next * n_next, 256), 256, 0, stream>>>(level, next, cells,
                                                                                 n, n_next);
        CL_LAUNCH_CHECK();
        level = next;
        n = n_next;
    }
    broadcast_averages<<<blocks_for(pixels, 256), 256, 0, stream>>>(ws->cell_sums, out, s);
    CL_LAUNCH_CHECK();
    mosaic_totals_from_cells(ws->cell_sums, cells, totals, stream);
}

// --- 16-byte chunks (v3, v4) ----------------------------------------------------------------

// v3 and v4 move the image in 16-byte chunks aligned in memory. A row segment need not
// start on a 16-byte boundary (rows are 3 * width bytes, and the streamed job hands in
// bands), so a segment's chunks count from the boundary at or below its first byte and
// the first and last chunk hold bytes of the neighbours.
__device__ __forceinline__ const uint8_t *chunk_floor(const uint8_t *p)
{
    return (const uint8_t *)((uintptr_t)p & ~(uintptr_t)15);
}

// The 16 bytes at the aligned address a, one load; bytes of a chunk running past the
// image [lo, hi) (its first and last) are read one by one, those outside as zero.
__device__ __forceinline__ uint4 load_chunk(const uint8_t *a, const uint8_t *lo, const uint8_t *hi)
{
    if (a >= lo && a + 16 <= hi)
        return *(const uint4 *)a;
    uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int b = 0; b < 16; b++)
        if (a + b >= lo && a + b < hi)
            w[b / 4] |= (uint32_t)a[b] << (8 * (b % 4));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// Writes the bytes of w (16, little-endian words) at the aligned address a that lie in
// the segment [lo, hi): one 16-byte store when all do, else byte by byte (the others
// belong to a neighbouring block's segment).
__device__ __forceinline__ void store_chunk(uint8_t *a, const uint32_t w[4], const uint8_t *lo,
                                            const uint8_t *hi)
{
    if (a >= lo && a + 16 <= hi) {
        *(uint4 *)a = make_uint4(w[0], w[1], w[2], w[3]);
        return;
    }
#pragma unroll
    for (int b = 0; b < 16; b++)
        if (a + b >= lo && a + b < hi)
            a[b] = (uint8_t)(w[b / 4] >> (8 * (b % 4)));
}

// Thread totals of one channel each -> the block's -> one atomicAdd a channel.
__device__ void add_block_totals(const unsigned long long partial[3], unsigned long long *totals)
{
    for (int c = 0; c < 3; c++) {
        const unsigned long long sum = block_reduce_sum(partial[c]);
        if (threadIdx.x == 0)
            atomicAdd(&totals[c], sum);
        __syncthreads(); // block_reduce_sum's shared array is reused by the next channel
    }
}

__device__ __forceinline__ void add_to_channel(unsigned long long partial[3], int c,
                                               unsigned long long v)
{
    partial[0] += c == 0 ? v : 0; // three selects keep partial[] in registers
    partial[1] += c == 1 ? v : 0;
    partial[2] += c == 2 ? v : 0;
}

// --- v3: a block a row of cells, 16-byte loads, a block reduction --------------------------

// A block takes one row of cells (up to 1024 cells of it: wider images use several
// blocks). The rows of the band are read in 16-byte chunks; a thread adds a chunk's
// bytes by channel in registers, cell by cell, and adds each run to the block's cell
// sums in shared memory (64-bit shared atomics: the block reduction). Then every
// thread writes 16-byte chunks of the band from the cells' averages.
// Traffic is the floor (6 bytes a pixel), but a thread has one chunk in flight and
// decodes it byte by byte, so it stays latency bound; see v4.
enum { V3_THREADS = 256, V3_CELLS = 1024 };

// A row segment of one block: bytes [0, bytes) from seg; cells of 3 * cell bytes.
struct segment_cells {
    int bytes, cell_bytes;
};

// Adds the chunk w, whose byte 0 lies at offset first in the segment (negative: before
// it), to sums[3 * cell + channel].
__device__ __forceinline__ void add_chunk(const uint32_t w[4], int first, segment_cells g,
                                          unsigned long long *sums)
{
    const int ch0 = (first % 3 + 3) % 3; // channel of byte 0
    int cell = max(first, 0) / g.cell_bytes, boundary = (cell + 1) * g.cell_bytes;
    unsigned run[3] = {0, 0, 0}; // run[j]: bytes b = j mod 3 of the current cell
#pragma unroll
    for (int b = 0; b < 16; b++) {
        const int at = first + b;
        if (at == boundary && at < g.bytes) {
#pragma unroll
            for (int j = 0; j < 3; j++)
                if (run[j])
                    atomicAdd(&sums[3 * cell + (ch0 + j) % 3], (unsigned long long)run[j]);
            run[0] = run[1] = run[2] = 0;
            cell++;
            boundary += g.cell_bytes;
        }
        if (at >= 0 && at < g.bytes)
            run[b % 3] += (w[b / 4] >> (8 * (b % 4))) & 0xFF;
    }
#pragma unroll
    for (int j = 0; j < 3; j++)
        if (run[j])
            atomicAdd(&sums[3 * cell + (ch0 + j) % 3], (unsigned long long)run[j]);
}

// The chunk whose byte 0 lies at offset first in the segment, from the cells' averages.
__device__ __forceinline__ void mosaic_chunk(uint32_t w[4], int first, segment_cells g,
                                             const uint8_t *average)
{
    const int ch0 = (first % 3 + 3) % 3;
    int cell = max(first, 0) / g.cell_bytes, boundary = (cell + 1) * g.cell_bytes;
    w[0] = w[1] = w[2] = w[3] = 0;
#pragma unroll
    for (int b = 0; b < 16; b++) {
        const int at = first + b;
        if (at == boundary) {
            cell++;
            boundary += g.cell_bytes;
        }
        if (at >= 0 && at < g.bytes)
            w[b / 4] |= (uint32_t)average[3 * cell + (ch0 + b % 3) % 3] << (8 * (b % 4));
    }
}

__global__ void __launch_bounds__(V3_THREADS)
    cell_row_blocks(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s)
{
    __shared__ unsigned long long sums[3 * V3_CELLS];
    __shared__ uint8_t average[3 * V3_CELLS];
    const int x0 = blockIdx.x * V3_CELLS * s.cell, x1 = min(x0 + V3_CELLS * s.cell, s.width);
    const int y0 = blockIdx.y * s.cell, y1 = min(y0 + s.cell, s.height);
    const int cells = (x1 - x0 + s.cell - 1) / s.cell;
    const segment_cells g = {3 * (x1 - x0), 3 * s.cell};
    const uint8_t *in_end = in + 3 * (size_t)s.width * s.height;
    for (int i = threadIdx.x; i < 3 * cells; i += V3_THREADS)
        sums[i] = 0;
    __syncthreads();

    const int per_row = g.bytes / 16 + 2, chunks = per_row * (y1 - y0);
    for (int i = threadIdx.x; i < chunks; i += V3_THREADS) {
        const uint8_t *seg = in + 3 * ((size_t)(y0 + i / per_row) * s.width + x0);
        const uint8_t *a = chunk_floor(seg) + 16 * (i % per_row);
        if (a >= seg + g.bytes)
            continue;
        const uint4 v = load_chunk(a, in, in_end);
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
        add_chunk(w, (int)(a - seg), g, sums);
    }
    __syncthreads();

    unsigned long long partial[3] = {0, 0, 0};
    for (int i = threadIdx.x; i < 3 * cells; i += V3_THREADS) {
        const int cell = i / 3, width = min(s.cell, x1 - x0 - cell * s.cell);
        average[i] = average_of(sums[i], (unsigned long long)width * (y1 - y0));
        add_to_channel(partial, i % 3, sums[i]);
    }
    add_block_totals(partial, totals); // its barriers also publish average[]

    for (int i = threadIdx.x; i < chunks; i += V3_THREADS) {
        uint8_t *seg = out + 3 * ((size_t)(y0 + i / per_row) * s.width + x0);
        uint8_t *a = (uint8_t *)chunk_floor(seg) + 16 * (i % per_row);
        if (a >= seg + g.bytes)
            continue;
        uint32_t w[4];
        mosaic_chunk(w, (int)(a - seg), g, average);
        store_chunk(a, w, seg, seg + g.bytes);
    }
}

static void mosaic_v3(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                      mosaic_workspace *ws, cudaStream_t stream)
{
    (void)ws;
    CL_CUDA_CHECK(cudaMemsetAsync(totals, 0, 3 * sizeof(unsigned long long), stream));
    const dim3 grid((unsigned)((mosaic_cells_x(s) + V3_CELLS - 1) / V3_CELLS),
                    (unsigned)mosaic_cells_y(s));
    cell_row_blocks<<<grid, V3_THREADS, 0, stream>>>(in, out, totals, s);
    CL_LAUNCH_CHECK();
}

// --- v4: staged tiles, the mosaic written from a row pattern ------------------------------

// A block takes a tile: one row of cells, up to 512 pixels wide (whole cells). Three
// steps, each at full width of the block:
//  1. strips of up to 16 rows are copied into shared memory by 16-byte asynchronous
//     copies (cp.async: every chunk of the strip in flight at once, no registers held
//     for them; v3 had one chunk in flight a thread), and each thread adds its two
//     pixel columns down the strip: no per-byte decoding, no atomics;
//  2. column sums -> cell sums -> averages, written as the tile's mosaic row: every
//     row of a cell row is the same bytes, so it is built once, in shared memory;
//  3. the tile's rows are written with 16-byte stores cut from that row (a funnel shift
//     of two words aligns it to each chunk), only edge chunks byte by byte.
// The image average comes from the tiles' sums (an atomicAdd a channel a tile).
// Napkin math at 4096^2, c = 16: 2048 tiles of 24 KB in and 24 KB out, 100 MB in all:
// 34 us at the ~2.97 TB/s device copy rate. Measured on an H100 (README): plain 16-byte
// loads, four in flight a thread, gave 68-70% of that; cp.async 72-75%; and holding
// the kernel to 40 registers so that six blocks share an SM (six tiles in different
// steps overlap one another's loads and stores) 72-78%. The column sums reuse the
// strip's shared memory (33 -> 27 KB a block).
// Cells wider than a tile (c > 512) take cell_block below: a block a cell, which then
// has >= 262,144 pixels of work.
enum { V4_THREADS = 256, V4_TILE = 512, V4_STRIP = 16, V4_ROW_CHUNKS = (3 * V4_TILE + 30) / 16 };

#if __CUDA_ARCH__ >= 800
#define V4_BLOCKS_AN_SM 6
#else
#define V4_BLOCKS_AN_SM 4 // Turing holds 1024 threads an SM
#endif
__global__ void __launch_bounds__(V4_THREADS, V4_BLOCKS_AN_SM)
    staged_tiles(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                 int tile_cells)
{
    __shared__ __align__(16) uint8_t strip[V4_STRIP][16 * V4_ROW_CHUNKS];
    // After the last strip the column sums take its place (less shared memory a block,
    // more blocks an SM).
    unsigned(*column_sums)[3] = (unsigned(*)[3])strip;
    __shared__ uint32_t row_words[3 * V4_TILE / 4 + 2]; // the tile's mosaic row
    uint8_t *row = (uint8_t *)row_words;
    const int c = s.cell;
    const int x0 = blockIdx.x * tile_cells * c, x1 = min(x0 + tile_cells * c, s.width);
    const int y0 = blockIdx.y * c, y1 = min(y0 + c, s.height);
    const int w = x1 - x0, row_bytes = 3 * w;
    const uint8_t *in_end = in + 3 * (size_t)s.width * s.height;

    // 1. Column sums, strip by strip.
    unsigned column[2][3] = {{0, 0, 0}, {0, 0, 0}}; // columns threadIdx.x, + 256
    for (int ys = y0; ys < y1; ys += V4_STRIP) {
        const int rows = min(V4_STRIP, y1 - ys), chunks = rows * V4_ROW_CHUNKS;
        for (int i = threadIdx.x; i < chunks; i += V4_THREADS) {
            const int r = i / V4_ROW_CHUNKS, k = i % V4_ROW_CHUNKS;
            const uint8_t *seg = in + 3 * ((size_t)(ys + r) * s.width + x0);
            const uint8_t *a = chunk_floor(seg) + 16 * k;
            if (a >= seg + row_bytes)
                continue;
            if (a >= in && a + 16 <= in_end)
                __pipeline_memcpy_async(&strip[r][16 * k], a, 16);
            else
                *(uint4 *)&strip[r][16 * k] = load_chunk(a, in, in_end);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        for (int r = 0; r < rows; r++) {
            const int lead = (int)((uintptr_t)(in + 3 * ((size_t)(ys + r) * s.width + x0)) & 15);
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int x = threadIdx.x + h * V4_THREADS;
                if (x < w)
                    for (int ch = 0; ch < 3; ch++)
                        column[h][ch] += strip[r][lead + 3 * x + ch];
            }
        }
        __syncthreads(); // the next strip overwrites this one
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int x = threadIdx.x + h * V4_THREADS;
        if (x < w)
            for (int ch = 0; ch < 3; ch++)
                column_sums[x][ch] = column[h][ch];
    }
    __syncthreads();

    // 2. A thread a (cell, channel): the cell's sum, its average into the mosaic row.
    const int cells = (w + c - 1) / c;
    unsigned long long partial[3] = {0, 0, 0};
    for (int i = threadIdx.x; i < 3 * cells; i += V4_THREADS) {
        const int ch = i % 3, first = i / 3 * c, last = min(first + c, w);
        unsigned sum = 0; // <= 512^2 * 255 < 2^32
        for (int x = first; x < last; x++)
            sum += column_sums[x][ch];
        const uint8_t avg = average_of(sum, (unsigned long long)(last - first) * (y1 - y0));
        for (int x = first; x < last; x++)
            row[3 * x + ch] = avg;
        add_to_channel(partial, ch, sum);
    }
    add_block_totals(partial, totals); // its barriers also publish row[]

    // 3. Every row of the tile is the mosaic row: 16-byte chunks cut from it.
    const int chunks = (y1 - y0) * V4_ROW_CHUNKS;
    for (int i = threadIdx.x; i < chunks; i += V4_THREADS) {
        uint8_t *seg = out + 3 * ((size_t)(y0 + i / V4_ROW_CHUNKS) * s.width + x0);
        uint8_t *a = (uint8_t *)chunk_floor(seg) + 16 * (i % V4_ROW_CHUNKS);
        const int first = (int)(a - seg);
        if (first >= row_bytes)
            continue;
        uint32_t v[4] = {0, 0, 0, 0};
        if (first >= 0 && first + 16 <= row_bytes) {
            const int q = first >> 2, shift = 8 * (first & 3);
#pragma unroll
            for (int u = 0; u < 4; u++)
                v[u] = __funnelshift_r(row_words[q + u], row_words[q + u + 1], shift);
        } else {
#pragma unroll
            for (int b = 0; b < 16; b++)
                if (first + b >= 0 && first + b < row_bytes)
                    v[b / 4] |= (uint32_t)row[first + b] << (8 * (b % 4));
        }
        store_chunk(a, v, seg, seg + row_bytes);
    }
}

// A block a cell (v4 for cells wider than its tiles): threads stride over the cell's
// pixels, a block reduction a channel, then the average into every pixel of the cell.
__global__ void __launch_bounds__(256)
    cell_block(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s)
{
    __shared__ uint8_t average[3];
    const int cells_x = (s.width + s.cell - 1) / s.cell;
    const int cx = blockIdx.x % cells_x, cy = blockIdx.x / cells_x;
    int x0, y0, x1, y1;
    cell_box(s, cx, cy, x0, y0, x1, y1);
    const int w = x1 - x0, pixels = w * (y1 - y0);
    unsigned long long sum[3] = {0, 0, 0};
    for (int i = threadIdx.x; i < pixels; i += blockDim.x) {
        const uint8_t *px = in + 3 * ((size_t)(y0 + i / w) * s.width + x0 + i % w);
        for (int c = 0; c < 3; c++)
            sum[c] += px[c];
    }
    for (int c = 0; c < 3; c++) {
        const unsigned long long total = block_reduce_sum(sum[c]);
        if (threadIdx.x == 0) {
            atomicAdd(&totals[c], total);
            average[c] = average_of(total, (unsigned long long)pixels);
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < pixels; i += blockDim.x) {
        uint8_t *px = out + 3 * ((size_t)(y0 + i / w) * s.width + x0 + i % w);
        for (int c = 0; c < 3; c++)
            px[c] = average[c];
    }
}

static void mosaic_v4(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                      mosaic_workspace *ws, cudaStream_t stream)
{
    (void)ws;
    CL_CUDA_CHECK(cudaMemsetAsync(totals, 0, 3 * sizeof(unsigned long long), stream));
    if (s.cell > V4_TILE) {
        cell_block<<<(unsigned)cell_count(s), 256, 0, stream>>>(in, out, totals, s);
    } else {
        const int tile_cells = V4_TILE / s.cell, tile_w = tile_cells * s.cell;
        const dim3 grid((unsigned)((s.width + tile_w - 1) / tile_w), (unsigned)mosaic_cells_y(s));
        staged_tiles<<<grid, V4_THREADS, 0, stream>>>(in, out, totals, s, tile_cells);
    }
    CL_LAUNCH_CHECK();
}

// --- the workspace -------------------------------------------------------------------------------

// v2's first level has ceil(c / 2)^2 elements a cell, 3 sums each.
static size_t level_bytes(mosaic_shape s)
{
    const size_t n = (size_t)(s.cell + 1) / 2;
    return cell_count(s) * n * n * 3 * sizeof(unsigned long long);
}

extern "C" size_t mosaic_workspace_bytes(mosaic_shape s)
{
    return cell_count(s) * 3 * sizeof(unsigned long long) + 2 * level_bytes(s);
}

extern "C" mosaic_workspace *mosaic_workspace_create(mosaic_shape s)
{
    cl_require_device_memory(mosaic_workspace_bytes(s), 0);
    mosaic_workspace *ws = new mosaic_workspace();
    ws->shape = s;
    CL_CUDA_CHECK(
        cudaMalloc((void **)&ws->cell_sums, cell_count(s) * 3 * sizeof(unsigned long long)));
    for (int i = 0; i < 2; i++)
        CL_CUDA_CHECK(cudaMalloc((void **)&ws->levels[i], level_bytes(s)));
    return ws;
}

extern "C" void mosaic_workspace_destroy(mosaic_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->cell_sums));
    CL_CUDA_CHECK(cudaFree(ws->levels[0]));
    CL_CUDA_CHECK(cudaFree(ws->levels[1]));
    delete ws;
}

extern "C" unsigned long long *mosaic_workspace_cell_sums(mosaic_workspace *ws)
{
    return ws->cell_sums;
}

extern "C" const mosaic_version mosaic_versions[] = {
    {{"v1-atomics", "a thread a pixel: 64-bit atomics into cell sums, then a broadcast"},
     mosaic_v1},
    {{"v2-staged", "the write-up's: 2 x 2 sums staged within each cell, then a broadcast"},
     mosaic_v2},
    {{"v3-row-blocks", "a block a row of cells: 16-byte loads, shared-memory cell sums"},
     mosaic_v3},
    {{"v4-staged-tiles", "tiles staged by 16-byte loads, column sums, a mosaic row stored"},
     mosaic_v4},
    {{"yours", mosaic_yours_idea}, mosaic_yours},
};
extern "C" const int mosaic_version_count = sizeof mosaic_versions / sizeof mosaic_versions[0];
extern "C" const char mosaic_fastest_version[] = "v4-staged-tiles";
