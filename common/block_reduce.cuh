// Sums across a warp and across a block, CUB-style layers: the block level is built
// on the warp level. Device code only; include from .cu files.
#ifndef CUDALAB_BLOCK_REDUCE_CUH
#define CUDALAB_BLOCK_REDUCE_CUH

// Sum over the 32 lanes of a full warp by shuffling down (5 steps, no shared
// memory, no barrier). Lane 0 holds the sum; other lanes hold partial sums.
template <typename T> __device__ __forceinline__ T warp_reduce_sum(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The same sum in every lane: a butterfly (shuffle XOR), 5 steps.
template <typename T> __device__ __forceinline__ T warp_sum_all(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Sum over the block: each warp reduces by shuffles, warp 0 reduces the warp sums.
// Thread 0 holds the result. blockDim.x must be a multiple of 32 (at most 1024) and
// every thread must call it; a second call in the same kernel needs a
// __syncthreads() in between, since the warp sums share one shared array.
template <typename T> __device__ T block_reduce_sum(T v)
{
    __shared__ T warp_sums[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_reduce_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : T(0);
        v = warp_reduce_sum(v);
    }
    return v;
}

#endif
