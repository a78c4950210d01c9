// yours: your transpose, B = A^T for a row-major rows x cols matrix A (B is cols x rows).
// `bin/transpose -k yours` runs and verifies it, `make check_transpose K=yours` scores it
// against the faster of the default version and cublasSgeam. Edit only this file.
//
// What is here: a thread an element in blocks of 16 x 16: reads along A's rows, writes
// down B's columns. A warp covers two neighbouring rows of 16, so each 32-byte sector a
// write touches takes two of its elements (v1's warps cover one row of 32: one element a
// sector), which makes it faster than v1 and still far from the copy rate (README.md's
// tables have its row). Correct for any shape.
// Things to try (README.md has the ladder's times at 16384 x 16384 and the copy rate):
//  - a 32 x 32 tile in shared memory, read along A's rows and written along B's rows,
//    so both global sides are coalesced (v2); then look at the shared-memory bank
//    conflicts of reading the tile down a column (ncu's
//    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum) and pad the tile to 33
//    columns (v3);
//  - four elements a thread with float4 loads and stores (v4): rows must start on 16
//    bytes, so keep a one-float path for sides that are not a multiple of 4.
#include "check.h"
#include "transpose.h"

extern "C" const char transpose_yours_idea[] =
    "your kernel (transpose/yours.cu): a thread an element, strided writes";

enum { YOURS_SIDE = 16 }; // blocks of 16 x 16 threads

__global__ void transpose_yours_kernel(const float *a, float *b, size_t rows, size_t cols)
{
    size_t c = (size_t)blockIdx.x * YOURS_SIDE + threadIdx.x;
    if (c >= cols)
        return;
    for (size_t r = (size_t)blockIdx.y * YOURS_SIDE + threadIdx.y; r < rows;
         r += (size_t)gridDim.y * YOURS_SIDE)
        b[c * rows + r] = a[r * cols + c];
}

extern "C" void transpose_yours(const float *a, float *b, size_t rows, size_t cols,
                                cudaStream_t stream)
{
    // gridDim.y is at most 65535: past 65535 x 16 rows each thread loops down its column.
    size_t row_blocks = (rows + YOURS_SIDE - 1) / YOURS_SIDE;
    dim3 grid((unsigned)((cols + YOURS_SIDE - 1) / YOURS_SIDE),
              (unsigned)(row_blocks < 65535 ? row_blocks : 65535));
    transpose_yours_kernel<<<grid, dim3(YOURS_SIDE, YOURS_SIDE), 0, stream>>>(a, b, rows, cols);
    CL_LAUNCH_CHECK();
}
