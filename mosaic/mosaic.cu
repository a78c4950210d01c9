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
//   v3-cell-blocks  one pass: a block a cell sums the cell (a block reduction a
//                   channel) and writes the average into the cell's pixels
//   yours           yours.cu: the learner's slot
//
// Napkin math: the filter reads each pixel once and writes it once, 6 bytes a pixel:
// 100 MB at 4096^2, 34 us at an H100's ~2.97 TB/s copy rate.
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

// --- v3: a block a cell, one pass -----------------------------------------------------------

// A block of 256 threads takes one cell: threads stride over the cell's pixels (a warp
// reads 32 neighbouring pixels of a row where the cell is 32 or more wide), sum three
// channels, reduce them across the block, then write the average to every pixel of the
// cell. The image is read once and written once; the cell sums go to the totals.
__global__ void __launch_bounds__(256)
    cell_block(const uint8_t *in, uint8_t *out, unsigned long long *cell_sums, mosaic_shape s)
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
            cell_sums[3 * (size_t)blockIdx.x + c] = total;
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

static void mosaic_v3(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                      mosaic_workspace *ws, cudaStream_t stream)
{
    const size_t cells = cell_count(s);
    cell_block<<<(unsigned)cells, 256, 0, stream>>>(in, out, ws->cell_sums, s);
    CL_LAUNCH_CHECK();
    mosaic_totals_from_cells(ws->cell_sums, cells, totals, stream);
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
    {{"v3-cell-blocks", "one pass: a block a cell, block reductions, writes the cell"}, mosaic_v3},
    {{"yours", mosaic_yours_idea}, mosaic_yours},
};
extern "C" const int mosaic_version_count = sizeof mosaic_versions / sizeof mosaic_versions[0];
extern "C" const int mosaic_fastest_version = 2;
