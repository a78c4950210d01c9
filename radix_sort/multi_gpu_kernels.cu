// The kernels of radix_sort --gpus (multi_gpu.h): each GPU's share of the input made
// where it lives, the cut search's counts, and the check's digests. The sorting itself
// is the suite's one-GPU sort (common/sort.cu) on each GPU.
#include "block_reduce.cuh"
#include "check.h"
#include "device.h"
#include "multi_gpu.h"

namespace
{

constexpr int threads = 256;

// Enough blocks to fill the GPU a few times over; the kernels loop over the rest.
unsigned grid_for(size_t count)
{
    const unsigned blocks = cl_ceil_div(count, threads), cap = 4096;
    return blocks < 1 ? 1 : blocks < cap ? blocks : cap;
}

struct few_values {
    uint32_t v[8];
};

// Napkin: writes 4 (8 with values) bytes a key; 2^29 keys, 2.1 GB: ~0.5 ms. Not timed
// (each timed run starts from a fresh input).
__global__ void fill_share(uint32_t *keys, uint32_t *values, size_t first, size_t count, size_t n,
                           int input, uint64_t key, few_values few)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        keys[i] = radix_input_key(input, first + i, n, key, few.v);
        if (values)
            values[i] = (uint32_t)(first + i);
    }
}

struct probe_values {
    uint32_t v[CL_TEAM_MAX_GPUS];
};

// A thread a probe and bound: 2 x 63 threads at most, ~30 loads each; a few us, all
// latency (a cut search takes at most 32 of these rounds).
__global__ void bounds(const uint32_t *keys, size_t count, uint32_t mask, probe_values probes,
                       int nprobes, unsigned long long *lt, unsigned long long *le)
{
    const int j = threadIdx.x >> 1;
    const bool or_equal = threadIdx.x & 1;
    if (j < nprobes)
        (or_equal ? le : lt)[j] = radix_first_above(keys, count, mask, probes.v[j], or_equal);
}

constexpr int merge_items = 8, merge_block_items = merge_items * threads;

// The merge in two launches: where each block's outputs start in the runs (a thread a
// block, one binary search over the runs), then each block's threads find their own
// starts within the block's pieces of the runs (at most log2(2048) + 1 steps, on data
// the block shares in L1) and merge 8 outputs each, 32 bytes of keys a thread.
// Napkin (2^29 keys on a GPU): reads and writes 2 GB of keys, 1.4 ms at the H200's
// copy rate; the threads' writes are whole 32-byte sectors, their reads runs of them.
__global__ void merge_partition(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                uint32_t mask, size_t blocks, size_t *splits)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k <= blocks) {
        const size_t total = na + nb, diag = k * merge_block_items;
        splits[k] = merge_split(a, na, b, nb, diag < total ? diag : total, mask);
    }
}

__global__ void merge_blocks(const uint32_t *a, const uint32_t *av, size_t na, const uint32_t *b,
                             const uint32_t *bv, size_t nb, uint32_t mask, const size_t *splits,
                             uint32_t *out, uint32_t *outv)
{
    const size_t total = na + nb, diag0 = blockIdx.x * (size_t)merge_block_items;
    const size_t diag1 = diag0 + merge_block_items < total ? diag0 + merge_block_items : total;
    const size_t i0 = splits[blockIdx.x], j0 = diag0 - i0;
    const size_t i1 = splits[blockIdx.x + 1], j1 = diag1 - i1;
    const size_t mine = (size_t)threadIdx.x * merge_items;
    if (diag0 + mine >= diag1)
        return;
    const size_t count = diag1 - diag0 - mine < merge_items ? diag1 - diag0 - mine : merge_items;
    const size_t i = i0 + merge_split(a + i0, i1 - i0, b + j0, j1 - j0, mine, mask);
    const size_t j = diag0 + mine - i;
    merge_run(a, av, na, b, bv, nb, i, j, count, mask, out + diag0 + mine,
              outv ? outv + diag0 + mine : nullptr);
}

// One element's contribution to the multiset hash, and with its place to the positional
// hash: SplitMix64's mix of the element (and of the place, then the element), so any
// change of an element, or of its place, moves the sums.
__device__ uint64_t element_word(uint32_t key, uint32_t value)
{
    return ((uint64_t)key << 32) | value;
}

// Napkin: reads 4 (8) bytes a key, once: 2^29 keys 2.1 GB, ~0.5 ms on an H200; not timed.
__global__ void digest(const uint32_t *keys, const uint32_t *values, size_t count, size_t first,
                       uint32_t mask, unsigned long long *sums)
{
    constexpr uint64_t multiset_key = 0x6d756c7469736574ull, position_key = 0x706c616365730000ull;
    unsigned long long multiset = 0, positional = 0, disordered = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t key = keys[i], value = values ? values[i] : 0;
        const uint64_t word = element_word(key, value);
        multiset += cl_rng_u64(multiset_key, word);
        positional += cl_rng_u64(cl_rng_u64(position_key, first + i), word);
        if (i + 1 < count) {
            const uint32_t next = keys[i + 1] & mask, here = key & mask;
            disordered += next < here || (values && next == here && values[i + 1] < value);
        }
    }
    multiset = block_reduce_sum(multiset);
    __syncthreads();
    positional = block_reduce_sum(positional);
    __syncthreads();
    disordered = block_reduce_sum(disordered);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[RADIX_DIGEST_MULTISET], multiset);
        atomicAdd(&sums[RADIX_DIGEST_POSITIONAL], positional);
        atomicAdd(&sums[RADIX_DIGEST_DISORDERED], disordered);
    }
}

} // namespace

extern "C" void radix_fill_share(uint32_t *keys, uint32_t *values, size_t first, size_t count,
                                 size_t n, int input, uint64_t seed, cudaStream_t stream)
{
    few_values few;
    radix_few_values(seed, few.v);
    if (count == 0)
        return;
    fill_share<<<grid_for(count), threads, 0, stream>>>(keys, values, first, count, n, input,
                                                        cl_rng_key(seed, 0), few);
    CL_LAUNCH_CHECK();
}

extern "C" void radix_bounds(const uint32_t *keys, size_t count, uint32_t mask,
                             const uint32_t *probes, int nprobes, unsigned long long *lt,
                             unsigned long long *le, cudaStream_t stream)
{
    probe_values p = {};
    for (int j = 0; j < nprobes; j++)
        p.v[j] = probes[j];
    bounds<<<1, 2 * CL_TEAM_MAX_GPUS, 0, stream>>>(keys, count, mask, p, nprobes, lt, le);
    CL_LAUNCH_CHECK();
}

extern "C" void radix_digest(const uint32_t *keys, const uint32_t *values, size_t count,
                             size_t first, uint32_t mask, unsigned long long *sums,
                             cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(sums, 0, RADIX_DIGEST_WORDS * sizeof *sums, stream));
    if (count == 0)
        return;
    digest<<<grid_for(count), threads, 0, stream>>>(keys, values, count, first, mask, sums);
    CL_LAUNCH_CHECK();
}

extern "C" size_t radix_merge_splits(size_t n) { return n / merge_block_items + 2; }

extern "C" void radix_merge(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                            uint32_t *values_out, size_t at, size_t na, size_t nb, uint32_t mask,
                            size_t *splits, cudaStream_t stream)
{
    const size_t total = na + nb;
    if (total == 0)
        return;
    const size_t blocks = (total + merge_block_items - 1) / merge_block_items;
    const uint32_t *a = keys_in + at, *b = a + na;
    const uint32_t *av = values_in ? values_in + at : nullptr, *bv = av ? av + na : nullptr;
    merge_partition<<<cl_ceil_div(blocks + 1, threads), threads, 0, stream>>>(a, na, b, nb, mask,
                                                                              blocks, splits);
    CL_LAUNCH_CHECK();
    merge_blocks<<<(unsigned)blocks, threads, 0, stream>>>(
        a, av, na, b, bv, nb, mask, splits, keys_out + at, values_out ? values_out + at : nullptr);
    CL_LAUNCH_CHECK();
}
