// yours: your radix sort. `bin/radix_sort -k yours` runs it and compares every key (and
// value, with --pairs) with the CPU's, `make check_radix_sort K=yours` scores it against
// the faster of the default version and cub::DeviceRadixSort. Edit only this file.
//
// What is here: one bit a pass, any n, three launches a pass: flag the keys whose bit
// is 0, an exclusive scan of the flags (the suite's, common/scan.h; n + 1 entries, so
// the last one is the number of zeros), then a stable scatter: a zero goes to its scan
// value, a one after all the zeros and the ones before it. 32 passes over the keys.
// Things to try (the ladder in README.md):
//  - 4 bits a pass (v3): each tile counts its 16 digits, one scan over (digit, tile)
//    counts, each tile sorts itself in shared memory then scatters: 8 passes, not 32;
//  - 8 bits a pass in one sweep (v4): tiles rank their keys per warp and look back
//    over earlier tiles' digit counts: 4 passes, one launch each.
#include "check.h"
#include "radix_sort.h"
#include "scan.h"

extern "C" const char radix_yours_idea[] = "your sort (radix_sort/yours.cu): a bit a pass, "
                                           "flags + the suite's scan + scatter";

__global__ void flag_zeros(const uint32_t *keys, size_t n, int bit, int32_t *flags)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flags[i] = !((keys[i] >> bit) & 1);
    else if (i == n)
        flags[n] = 0; // the scan's last entry: the number of zeros
}

__global__ void scatter_by_bit(const uint32_t *keys_in, const uint32_t *values_in,
                               uint32_t *keys_out, uint32_t *values_out, size_t n, int bit,
                               const int32_t *zeros_before)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t key = keys_in[i];
    const size_t zeros = (uint32_t)zeros_before[n];
    const size_t to =
        (key >> bit) & 1 ? zeros + (i - (uint32_t)zeros_before[i]) : (uint32_t)zeros_before[i];
    keys_out[to] = key;
    if (values_out)
        values_out[to] = values_in[i];
}

extern "C" void radix_yours(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                            uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                            cudaStream_t stream)
{
    const unsigned threads = 256, blocks = (unsigned)((n + 1 + threads - 1) / threads);
    int32_t *flags = radix_workspace_scratch(ws);
    for (int b = 0; b < bits; b++) {
        // The last pass writes the output; the passes before it alternate with the
        // workspace's buffers, the first reading the input.
        const bool to_out = (bits - 1 - b) % 2 == 0;
        const uint32_t *src_keys = b == 0 ? keys_in : to_out ? radix_workspace_keys(ws) : keys_out;
        const uint32_t *src_values = b == 0   ? values_in
                                     : to_out ? radix_workspace_values(ws)
                                              : values_out;
        uint32_t *dst_keys = to_out ? keys_out : radix_workspace_keys(ws);
        uint32_t *dst_values =
            values_in ? (to_out ? values_out : radix_workspace_values(ws)) : NULL;
        flag_zeros<<<blocks, threads, 0, stream>>>(src_keys, n, b, flags);
        CL_LAUNCH_CHECK();
        cl_exclusive_scan_i32(flags, flags, n + 1, radix_workspace_scan(ws), stream);
        scatter_by_bit<<<blocks, threads, 0, stream>>>(src_keys, src_values, dst_keys, dst_values,
                                                       n, b, flags);
        CL_LAUNCH_CHECK();
    }
}
