// Radix-sort building blocks shared by the suite's sorts (common/sort.cu and the
// radix_sort exercise's ladder). Device code, plus one host helper for the passes'
// buffers.
#ifndef CUDALAB_SORT_CUH
#define CUDALAB_SORT_CUH

#include <stdint.h>

// The digit of `key` a pass sorts by: `mask` (2^width - 1) of the bits from `shift`.
__device__ __forceinline__ unsigned digit_of(uint32_t key, int shift, unsigned mask)
{
    return (key >> shift) & mask;
}

// The buffers pass p reads and writes when a sort takes `passes` passes: the last one
// writes out, the ones before alternate with the workspace, the first reads in (which
// is never written).
template <typename T>
static inline void pass_buffers(int p, int passes, const T *in, T *out, T *alternate, const T **src,
                                T **dst)
{
    *dst = (passes - 1 - p) % 2 == 0 ? out : alternate;
    *src = p == 0 ? in : ((passes - p) % 2 == 0 ? out : alternate);
}

// Warp level: the lanes among `holders` whose bit B of d equals this lane's: the ballot
// of the lanes with the bit set, complemented where this lane's bit is clear, both
// from one predicate. Written in C (`__ballot_sync(m, (d >> B) & 1)`, then a select)
// ptxas derived the predicate twice and the mask once more: ~7 instructions a bit;
// this is 3 (the vote, a predicated NOT, the AND), and ptxas loads 7 of the 8
// predicates with one R2P. volatile: a vote must not be moved where lanes outside
// `holders` run it (a plain asm statement counts as free of side effects).
template <int B> __device__ __forceinline__ unsigned lanes_with_bit_of(unsigned holders, unsigned d)
{
    unsigned lanes;
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
                 "and.b32 t, %1, %2;\n\t"
                 "setp.ne.u32 p, t, 0;\n\t"
                 "vote.sync.ballot.b32 %0, p, %3;\n\t"
                 "@!p not.b32 %0, %0;\n\t}"
                 : "=r"(lanes)
                 : "r"(d), "n"(1u << B), "r"(holders));
    return lanes;
}

// Warp level: the lanes among `holders` (every lane of the warp that calls) whose
// 8-bit digit equals this lane's: the AND over the digit's 8 bits of the lanes that
// agree on the bit. Eight ballots replace __match_any_sync, whose latency dominated
// the one-sweep sort's ranking (ncu: 63% of the stalls were short-scoreboard waits).
__device__ __forceinline__ unsigned lanes_with_digit(unsigned holders, unsigned d)
{
    return holders & lanes_with_bit_of<0>(holders, d) & lanes_with_bit_of<1>(holders, d) &
           lanes_with_bit_of<2>(holders, d) & lanes_with_bit_of<3>(holders, d) &
           lanes_with_bit_of<4>(holders, d) & lanes_with_bit_of<5>(holders, d) &
           lanes_with_bit_of<6>(holders, d) & lanes_with_bit_of<7>(holders, d);
}

// Warp level: this lane's place among the keys of digit d that the warp has ranked
// with `counters` (one per digit, in shared memory), the lanes of this item included:
// the group of lanes sharing d adds itself to counters[d] through its highest lane
// (found by one FLO; the lowest took a bit reverse too), which passes the old count on.
// Called item by item, it keeps the items in order (stability) without a barrier: item
// i + 1's leader adds only after the __shfl_sync of item i, which it joins (holders
// shrink, never grow, from item to item) and which cannot finish before item i's leader
// has its atomicAdd's result; so a digit's counts are added item by item, and CUDA need
// not order the lanes' atomics for us.
__device__ __forceinline__ unsigned warp_rank_by_digit(unsigned holders, unsigned d,
                                                       unsigned *counters)
{
    const int lane = threadIdx.x & 31;
    const unsigned peers = lanes_with_digit(holders, d);
    const int leader = 31 - __clz(peers);
    unsigned before = 0;
    if (lane == leader)
        before = atomicAdd(&counters[d], (unsigned)__popc(peers));
    before = __shfl_sync(holders, before, leader);
    return before + __popc(peers & ((1u << lane) - 1));
}

#endif
