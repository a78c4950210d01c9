// yours: your fp32 matmul, C = alpha*A*B + beta*C, row-major (A m x k, B k x n, C m x n).
// `bin/matmul -k yours` runs and verifies it, `make check_matmul K=yours` scores it against
// the faster of the default version and cublasSgemm. Edit only this file.
//
// What is here: the plainest correct kernel, a thread an element, consecutive threads on
// consecutive columns (so a warp's loads of B and stores of C are coalesced).
// Things to try (the suite's ladder, README.md, has the times; 4096^3 on an H100):
//  - stage 32 x 32 tiles of A and B in shared memory (v3): each element then comes from
//    DRAM/L2 once a tile instead of once a product;
//  - have each thread compute several results of a column (v4), then an 8 x 8 block (v5):
//    one shared-memory load feeds 8, then 16, multiply-adds; float4 loads;
//  - split the block's tile among warps and copy the next k-slab with cp.async while
//    this one is multiplied (v6): the loads hide behind the math.
#include "check.h"
#include "matmul.h"

extern "C" const char matmul_yours_idea[] = "your kernel (matmul/yours.cu): a thread an element";
// The precisions yours takes: fp32, on the CUDA cores. To write a tensor-core kernel, add
// MATMUL_BIT(MATMUL_BF16) (or MATMUL_TF32, MATMUL_FP16) and read p.precision: A and B
// then hold 16-bit words (bf16: __nv_bfloat16, fp16: __half) or floats (tf32); C is fp32.
// `bin/matmul -k yours --precision bf16` runs it, checked as every version is.
extern "C" const unsigned matmul_yours_precisions = MATMUL_BIT(MATMUL_FP32);

__global__ void matmul_yours_kernel(matmul_args p)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= p.m || j >= p.n)
        return;
    const float *a = (const float *)p.a, *b = (const float *)p.b;
    float sum = 0.0f;
    for (int l = 0; l < p.k; l++)
        sum += a[(size_t)i * p.k + l] * b[(size_t)l * p.n + j];
    const size_t at = (size_t)i * p.n + j;
    p.c[at] = p.beta == 0.0f ? p.alpha * sum : p.alpha * sum + p.beta * p.c[at];
}

extern "C" void matmul_yours(const matmul_args *args, cudaStream_t stream)
{
    const dim3 threads(32, 8);
    // Columns on x (up to 2^31 - 1 blocks), rows on y (up to 65535 blocks of 8 rows).
    const dim3 blocks((args->n + threads.x - 1) / threads.x, (args->m + threads.y - 1) / threads.y);
    if (blocks.y > 65535)
        cl_die(CL_EXIT_USAGE, "yours: m = %d needs %u blocks in y, more than 65535", args->m,
               blocks.y);
    matmul_yours_kernel<<<blocks, threads, 0, stream>>>(*args);
    CL_LAUNCH_CHECK();
}
