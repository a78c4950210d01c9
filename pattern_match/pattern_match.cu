// pattern_match: how often each word of a list occurs in a text (the Oxford CUDA
// course's practical 9), at every byte position, overlapping occurrences included.
//
// The course's trick, kept by every version: 4 text bytes packed in a 32-bit int are
// compared with 4 word bytes in one integer compare; a word that starts at byte offset
// k = 1, 2, 3 of an int is read as (int i >> 8k) | (int i+1 << (32 - 8k)) (a funnel
// shift). A word of L bytes is ceil(L/4) packed ints, the last one masked.
//
// Versions:
//   v1-course    the practical's design: one block, a thread a word, the text through
//                shared memory in chunks of 256 ints with the offset-1/2/3 ints
//                precomputed. The reference: one SM does all the work.
//   v2-constant  every SM: a thread a text int (4 positions), every word from constant
//                memory (the whole warp reads the same word: a broadcast), the 4 windows
//                by __funnelshift_r, counts in shared memory and one atomicAdd a word a
//                block. Work is positions x words: fine for 32 words, slow for 1024.
//   v3-prefix    a position costs one lookup, whatever the word count: a table of
//                2^16 entries in shared memory, indexed by the position's first two
//                bytes, says which words can start there (0: none, most positions); the
//                candidates are compared exactly; counts aggregated across the warp
//                (labeled_partition) before one shared-memory atomic. A thread a text int.
//   v4-queue     v3's table and compare, with the work reorganised: a lane filters 16
//                positions (one 16-byte load, the next chunk's load already in flight),
//                the warp compacts its candidates into a shared-memory queue and then
//                all 32 lanes compare one candidate each: no lane idles while another
//                compares (in v3 a warp waits for its slowest lane at every position).
//   v5-longest   one count a position: only the longest word at a position is counted
//                (the others are its prefixes; a word adds its prefixes' counts at the
//                end). A byte table of the first two bytes settles most positions in
//                the filter (the longest word of 1 or 2 bytes, on the lane's own shared
//                counter); where a longer word may start, the position is queued and
//                looks up its 3- and 4-byte trie nodes in a cuckoo table (two loads);
//                where a word of 5 bytes or more may go on, it joins the warp's tail,
//                which walks a deeper trie 4 bytes a level, 32 positions at a time.
//   v6-automaton Aho and Corasick's automaton as a full table in shared memory: a thread
//                scans its own region byte by byte, a shared load a byte (a copy of the
//                table a lane where it fits, so a warp's loads never share a bank) and a
//                count a byte, or one for two bytes where the first ends no word; two
//                lanes load each 32-byte sector of the text together. No filter, no
//                queue. Bigger lists keep their shallowest states' rows in shared memory
//                and read the rest from L1 / L2.
//
// Napkin math (1 GB text, H100: device copy 2.98 TB/s read + write): reading the text
// once at the copy rate takes 0.34 ms. The filter costs ~10 instructions a position
// (funnel shift, table index, shared load, test, queue): 1e10 instructions, 132 SMs x
// 4 schedulers x 32 lanes x 1.98 GHz = 33e12 lane-instructions/s: 0.30 ms, so
// v4 sits at the edge of compute and memory; every candidate adds ~30 more.
// Measured (the README's tables; the default 32 words, 22% of positions candidates): v4
// is issue-bound (ncu: a scheduler issues in most cycles, 20 of 32 lanes active, DRAM
// nearly idle); v5 too, at the same time on the H100 and the H200 (see v5's kernel); v6 is
// bound by L1's data pipe (see v6's kernel).
#include <cooperative_groups.h>
#include <cstring>

#include "check.h"
#include "device.h"
#include "launch.h"
#include "report.h"
#include "pattern_match.h"
#include "tables.h"
#include "scan.cuh"

namespace cg = cooperative_groups;

// The 4 text bytes from byte offset 8 * shift_bytes of `lo` on: the practical's
// (lo >> 8k) + (hi << (32 - 8k)), one instruction.
__device__ __forceinline__ uint32_t window_at(uint32_t lo, uint32_t hi, int offset)
{
    return __funnelshift_r(lo, hi, 8 * offset);
}

// The 4 bytes at text position p.
__device__ __forceinline__ uint32_t window_of(const uint32_t *text32, size_t p)
{
    return window_at(__ldg(&text32[p / 4]), __ldg(&text32[p / 4 + 1]), (int)(p % 4));
}

// The tables as a block sees them: the pair table in shared memory (or, where a GPU
// has too little shared memory for its 128 KB, read from global memory), the rest in
// shared memory, and the block's counts by distinct word.
struct tables_view {
    const uint16_t *pair, *single, *group_start;
    const prefix_entry *entries;
    const long_slot *long_words;
    const uint32_t (*packed)[PM_WORD_INTS];
    uint32_t *count;
};

enum {
    SHARED_SMALL_BYTES =
        256 * 2 + GROUP_START_SLOTS * 2 + PM_MAX_WORDS * 8 + LONG_SLOTS * 8 + PM_MAX_WORDS * 4,
    SHARED_PAIR_BYTES = PAIR_SLOTS * 2,
};

__device__ static void copy_to_shared(void *dst, const void *src, int bytes)
{
    uint4 *d = static_cast<uint4 *>(dst);
    const uint4 *s = static_cast<const uint4 *>(src);
    for (int i = threadIdx.x; i < bytes / 16; i += blockDim.x)
        d[i] = __ldg(&s[i]);
}

// Copies the tables into shared memory at `shared` (SMEM_PAIRS: the pair table first)
// and zeroes the counts; returns the view and where the block's own space starts.
template <bool SMEM_PAIRS>
__device__ tables_view load_tables(char *shared, const prefix_tables *t, char **rest)
{
    tables_view v;
    if (SMEM_PAIRS) {
        copy_to_shared(shared, t->pair, SHARED_PAIR_BYTES);
        v.pair = reinterpret_cast<const uint16_t *>(shared);
        shared += SHARED_PAIR_BYTES;
    } else {
        v.pair = t->pair;
    }
    copy_to_shared(shared, t->single, 256 * 2);
    v.single = reinterpret_cast<const uint16_t *>(shared);
    shared += 256 * 2;
    copy_to_shared(shared, t->group_start, GROUP_START_SLOTS * 2);
    v.group_start = reinterpret_cast<const uint16_t *>(shared);
    shared += GROUP_START_SLOTS * 2;
    copy_to_shared(shared, t->entries, padded_to_16(t->entries_used * 8));
    v.entries = reinterpret_cast<const prefix_entry *>(shared);
    shared += PM_MAX_WORDS * 8;
    copy_to_shared(shared, t->long_words, LONG_SLOTS * 8);
    v.long_words = reinterpret_cast<const long_slot *>(shared);
    shared += LONG_SLOTS * 8;
    v.count = reinterpret_cast<uint32_t *>(shared);
    for (int d = threadIdx.x; d < t->distinct; d += blockDim.x)
        v.count[d] = 0;
    shared += PM_MAX_WORDS * 4;
    v.packed = t->packed; // read only on a first-int match of a word over 4 bytes
    *rest = shared;
    __syncthreads();
    return v;
}

// The ints of a word of more than 4 bytes after its first, against the text at p.
__device__ __forceinline__ bool rest_matches(const uint32_t *text32, size_t p,
                                             const uint32_t *packed, int len)
{
    const int ints = (len + 3) / 4;
    for (int j = 1; j < ints; j++) {
        uint32_t mask = j == ints - 1 ? last_int_mask(len) : 0xffffffffu;
        if ((window_of(text32, p + 4 * (size_t)j) & mask) != packed[j])
            return false;
    }
    return true;
}

// Calls add(distinct word) for every word that occurs at text position p (< n), whose
// first 4 bytes are `window`, `entry` being the pair table's (non-zero) entry for it.
template <class Add>
__device__ __forceinline__ void count_words_at(const tables_view &v, const uint32_t *text32,
                                               size_t n, size_t p, uint32_t window, uint32_t entry,
                                               Add add)
{
    if (entry & SINGLE_FLAG)
        add(v.single[window & 0xffu]);
    const size_t room = n - p;
    const uint32_t group = entry & GROUP_MASK;
    if (group)
        for (int i = v.group_start[group - 1]; i < v.group_start[group]; i++) {
            const prefix_entry e = v.entries[i]; // a 2- or 3-byte word
            if ((window & (e.len == 2 ? 0xffffu : 0xffffffu)) == e.first && e.len <= room)
                add(e.distinct);
        }
    if ((entry & LONG_FLAG) && room >= 4)
        for (uint32_t slot = long_slot_of(window); v.long_words[slot].count;
             slot = (slot + 1) % LONG_SLOTS) {
            const long_slot found = v.long_words[slot];
            if (found.key != window)
                continue;
            for (int i = found.start; i < found.start + found.count; i++) {
                const prefix_entry e = v.entries[i]; // its first 4 bytes are the window's
                if (e.len <= room &&
                    (e.len == 4 || rest_matches(text32, p, v.packed[e.distinct], e.len)))
                    add(e.distinct);
            }
            break;
        }
}

// Adds the block's counts to the words' (a word listed twice gets its distinct word's).
__device__ void flush_counts(const tables_view &v, const prefix_tables *t,
                             unsigned long long *counts)
{
    __syncthreads();
    for (int w = threadIdx.x; w < t->words; w += blockDim.x) {
        uint32_t c = v.count[t->distinct_of[w]];
        if (c)
            atomicAdd(&counts[w], (unsigned long long)c);
    }
}

// --- v1: the course's design ------------------------------------------------------------

// One block; thread w owns word w and keeps its count in a register. Each chunk of 256
// text ints (and the 8 after it, for a word that starts near the end of the chunk) is
// staged in shared memory 4 times: chunk[k][i] = the 4 bytes from byte 4i + k. Two
// things keep one SM busy: the next chunk's ints are loaded into registers while this
// one is compared, and the first ints of 32 positions are compared before any branch
// (a bit each), so the shared loads overlap instead of waiting one by one.
// Napkin math: ~4 instructions a position for a word's thread (a shared load the whole
// warp shares, mask, compare, set a bit): one warp issues at most one instruction a
// cycle: ~2 s a gigabyte for up to 32 words; 1024 words are 32 warps on the SM's 4
// schedulers: ~20 s. Measured (H100): 15.7 s a GB with 32 words, 41 s with 1024: a
// lone warp waits on its own dependent instructions, which no other warp hides. One SM
// does everything: the reference the others are measured by.
enum {
    COURSE_CHUNK_INTS = 256,
    COURSE_ROW = COURSE_CHUNK_INTS + PM_WORD_INTS,
    COURSE_MIN_THREADS = 32,
    COURSE_LOADS = (COURSE_ROW + 1 + COURSE_MIN_THREADS - 1) / COURSE_MIN_THREADS,
};

// Does the word (ints packed ints, the last masked) start at chunk[k][i]?
__device__ __forceinline__ bool course_match(const uint32_t (*chunk)[COURSE_ROW], int i, int k,
                                             const uint32_t (&word)[PM_WORD_INTS], int ints,
                                             uint32_t last_mask)
{
    bool hit = true;
#pragma unroll
    for (int j = 0; j < PM_WORD_INTS; j++)
        if (j < ints && hit)
            hit = (chunk[k][i + j] & (j == ints - 1 ? last_mask : 0xffffffffu)) == word[j];
    return hit;
}

// This thread's share of the COURSE_ROW + 1 ints from int c on (0 past the buffer).
__device__ __forceinline__ void course_load(const uint32_t *text32, size_t c, size_t readable_ints,
                                            uint32_t (&ints)[COURSE_LOADS])
{
#pragma unroll
    for (int r = 0; r < COURSE_LOADS; r++) {
        const size_t i = threadIdx.x + (size_t)r * blockDim.x;
        ints[r] = i <= COURSE_ROW && c + i < readable_ints ? text32[c + i] : 0u;
    }
}

__global__ void __launch_bounds__(PM_MAX_WORDS)
    course_kernel(const uint32_t *text32, size_t n, size_t readable_ints, const pm_words *words,
                  unsigned long long *counts)
{
    __shared__ uint32_t raw[COURSE_ROW + 1];
    __shared__ uint32_t chunk[4][COURSE_ROW];
    const int w = threadIdx.x;
    const bool mine = w < words->count;
    uint32_t word[PM_WORD_INTS];
    int len = 1;
    if (mine) {
        len = words->len[w];
        for (int j = 0; j < PM_WORD_INTS; j++)
            word[j] = words->packed[w][j];
    }
    const int ints = (len + 3) / 4;
    const uint32_t last_mask = last_int_mask(len);
    const uint32_t first_mask = ints == 1 ? last_mask : 0xffffffffu;
    unsigned long long found = 0;
    uint32_t next[COURSE_LOADS];
    course_load(text32, 0, readable_ints, next);
    for (size_t c = 0; 4 * c < n; c += COURSE_CHUNK_INTS) {
#pragma unroll
        for (int r = 0; r < COURSE_LOADS; r++)
            if (threadIdx.x + r * blockDim.x <= COURSE_ROW)
                raw[threadIdx.x + r * blockDim.x] = next[r];
        __syncthreads();
        course_load(text32, c + COURSE_CHUNK_INTS, readable_ints, next); // in flight meanwhile
        for (int i = threadIdx.x; i < COURSE_ROW; i += blockDim.x) {
            const uint32_t a = raw[i], b = raw[i + 1];
            chunk[0][i] = a;
            for (int k = 1; k < 4; k++)
                chunk[k][i] = (a >> (8 * k)) + (b << (32 - 8 * k));
        }
        __syncthreads();
        const size_t room = n - 4 * c; // text bytes from the chunk's first on
        uint32_t hits = 0;
        if (mine && room >= 4 * COURSE_CHUNK_INTS + PM_MAX_WORD_BYTES) {
            // A whole chunk: every word that starts in it ends inside the text.
            for (int i = 0; i < COURSE_CHUNK_INTS; i += 8) {
                // first[k] bit ii: the first int matches at chunk[k][i + ii]; four
                // independent chains, so one warp is not waiting on each compare.
                uint32_t first[4] = {0, 0, 0, 0};
#pragma unroll
                for (int ii = 0; ii < 8; ii++)
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        first[k] |= (uint32_t)((chunk[k][i + ii] & first_mask) == word[0]) << ii;
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    if (ints == 1)
                        hits += __popc(first[k]);
                    else
                        for (uint32_t m = first[k]; m; m &= m - 1)
                            hits += course_match(chunk, i + __ffs(m) - 1, k, word, ints, last_mask);
                }
            }
        } else if (mine) {
            // The text's last chunk: positions p with p + len <= n.
            const int last = (int)room - len;
            for (int p = 0; p < 4 * COURSE_CHUNK_INTS && p <= last; p++)
                hits += course_match(chunk, p / 4, p % 4, word, ints, last_mask);
        }
        found += hits;
        __syncthreads();
    }
    if (mine)
        counts[w] = found;
}

// --- v2: a thread a text int, the words in constant memory ----------------------------

// The words as v2 reads them: the first int, its mask and the length a word (one
// constant-cache line serves the whole warp), the other ints apart.
struct constant_head {
    uint32_t first, mask, len;
};
__constant__ constant_head c_head[PM_MAX_WORDS];
__constant__ uint32_t c_packed[PM_MAX_WORDS][PM_WORD_INTS];
static const pm_device_words *constant_owner; // whose words constant memory holds

enum { CONSTANT_THREADS = 256, CONSTANT_BLOCKS_PER_SM = 8 };

// Napkin math: ~4 instructions a word a position (mask, compare, bound, add): with 32
// words 128 a position, ~1e11 lane-instructions for 1 GB at 33e12/s: ~4 ms; 1024 words
// 32x that. The text is read once; the words cost nothing to fetch.
__global__ void __launch_bounds__(CONSTANT_THREADS)
    constant_words_kernel(const uint32_t *text32, size_t n, int nwords, unsigned long long *counts)
{
    __shared__ uint32_t block_count[PM_MAX_WORDS];
    for (int w = threadIdx.x; w < nwords; w += blockDim.x)
        block_count[w] = 0;
    __syncthreads();
    const size_t ints = (n + 3) / 4;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < ints;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t lo = text32[i], hi = text32[i + 1];
        uint32_t window[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            window[k] = window_at(lo, hi, k);
        // Bytes from position 4i to the end of the text (capped: words are <= 32 bytes).
        const uint32_t room = n - 4 * i < 64 ? (uint32_t)(n - 4 * i) : 64u;
        for (int w = 0; w < nwords; w++) {
            const constant_head h = c_head[w];
            uint32_t hits = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                bool hit = (window[k] & h.mask) == h.first && h.len + k <= room;
                if (hit && h.len > 4)
                    hit = rest_matches(text32, 4 * i + k, c_packed[w], (int)h.len);
                hits += hit;
            }
            if (hits)
                atomicAdd(&block_count[w], hits);
        }
    }
    __syncthreads();
    for (int w = threadIdx.x; w < nwords; w += blockDim.x)
        if (block_count[w])
            atomicAdd(&counts[w], (unsigned long long)block_count[w]);
}

// --- v3: the prefix table, a thread a text int ----------------------------------------

enum { PREFIX_THREADS = 1024 };

// Napkin math: ~8 instructions a position without a candidate (funnel shift, slot,
// shared load, test, loop): 8e9 for 1 GB, 0.25 ms of issue; but a warp runs
// count_words_at whenever any of its 32 lanes has a candidate, at each of the 4
// positions, so common words make every lane pay for the busiest one.
template <bool SMEM_PAIRS>
__global__ void __launch_bounds__(PREFIX_THREADS, 1)
    prefix_kernel(const uint32_t *text32, size_t n, const prefix_tables *t,
                  unsigned long long *counts)
{
    extern __shared__ uint4 shared_raw[];
    char *own;
    const tables_view v = load_tables<SMEM_PAIRS>(reinterpret_cast<char *>(shared_raw), t, &own);
    // Equal words found by several lanes at once: one atomic for the group of them.
    auto add = [&](uint32_t d) {
        cg::coalesced_group active = cg::coalesced_threads();
        cg::coalesced_group same = cg::labeled_partition(active, d);
        if (same.thread_rank() == 0)
            atomicAdd(&v.count[d], (uint32_t)same.num_threads());
    };
    const size_t ints = (n + 3) / 4;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < ints;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t lo = text32[i], hi = text32[i + 1];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const size_t p = 4 * i + k;
            const uint32_t window = window_at(lo, hi, k);
            const uint32_t entry = v.pair[pair_slot(window)];
            if (entry && p < n)
                count_words_at(v, text32, n, p, window, entry, add);
        }
    }
    flush_counts(v, t, counts);
}

// --- v4: the prefix table, candidates queued per warp -----------------------------------

enum {
    QUEUE_THREADS = 1024,
    QUEUE_LANE_BYTES = 16,
    QUEUE_CHUNK = 32 * QUEUE_LANE_BYTES, // bytes a warp filters a step
    QUEUE_WARP_BYTES = QUEUE_CHUNK * 4,  // its queue: one entry a position at most
};

// A lane's 16 bytes of chunk c (zero past the text).
__device__ __forceinline__ uint4 lane_bytes(const uint4 *text128, size_t n, size_t c, int lane)
{
    const size_t first = c * QUEUE_CHUNK + (size_t)lane * QUEUE_LANE_BYTES;
    return first < n ? text128[first / QUEUE_LANE_BYTES] : make_uint4(0, 0, 0, 0);
}

// The int after chunk c (the bytes lane 31's last windows reach), 0 past the text.
__device__ __forceinline__ uint32_t int_after_chunk(const uint32_t *text32, size_t n, size_t c)
{
    const size_t next = (c + 1) * QUEUE_CHUNK;
    return next < n ? __ldg(&text32[next / 4]) : 0u;
}

// Napkin math: per position ~10 instructions (funnel shift, slot, shared load, test,
// predicated queue store); per candidate ~30 (the window again from L1, the group's
// entries, a shared atomic), now spread over all 32 lanes. 1 GB with 15% candidates:
// 1e10 + 4.5e9 lane-instructions, ~0.45 ms of issue at 33e12/s; the text takes 0.34 ms
// at the copy rate, so compute bounds this kernel on an H100.
template <bool SMEM_PAIRS>
__global__ void __launch_bounds__(QUEUE_THREADS, 1)
    queue_kernel(const uint32_t *text32, size_t n, const prefix_tables *t,
                 unsigned long long *counts)
{
    extern __shared__ uint4 shared_raw[];
    char *own;
    const tables_view v = load_tables<SMEM_PAIRS>(reinterpret_cast<char *>(shared_raw), t, &own);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t *queue = reinterpret_cast<uint32_t *>(own) + warp * (QUEUE_WARP_BYTES / 4);
    auto add = [&](uint32_t d) { atomicAdd(&v.count[d], 1u); };

    const uint4 *text128 = reinterpret_cast<const uint4 *>(text32);
    const size_t chunks = (n + QUEUE_CHUNK - 1) / QUEUE_CHUNK;
    const size_t warps = (size_t)gridDim.x * (blockDim.x / 32);
    size_t c = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
    uint4 bytes = lane_bytes(text128, n, c, lane);
    for (; c < chunks; c += warps) {
        const uint4 next = lane_bytes(text128, n, c + warps, lane); // in flight meanwhile
        const size_t first = c * QUEUE_CHUNK + (size_t)lane * QUEUE_LANE_BYTES;
        uint32_t after = __shfl_down_sync(0xffffffffu, bytes.x, 1);
        if (lane == 31)
            after = int_after_chunk(text32, n, c);
        const uint32_t x[5] = {bytes.x, bytes.y, bytes.z, bytes.w, after};
        const int room = first < n ? (n - first < QUEUE_LANE_BYTES ? (int)(n - first) : 16) : 0;

        uint32_t entry[QUEUE_LANE_BYTES], candidates = 0;
#pragma unroll
        for (int j = 0; j < QUEUE_LANE_BYTES; j++) {
            entry[j] = v.pair[pair_slot(window_at(x[j / 4], x[j / 4 + 1], j % 4))];
            candidates |= (entry[j] != 0 && j < room) << j;
        }
        // The warp's candidates in lane order: an inclusive scan of the counts.
        const int mine = __popc(candidates);
        const int end = warp_inclusive_scan(mine);
        const int total = __shfl_sync(0xffffffffu, end, 31);
        int at = end - mine;
#pragma unroll
        for (int j = 0; j < QUEUE_LANE_BYTES; j++)
            if (candidates >> j & 1u)
                queue[at++] = (uint32_t)(lane * QUEUE_LANE_BYTES + j) | entry[j] << 16;
        __syncwarp();
        for (int q = lane; q < total; q += 32) {
            const uint32_t item = queue[q];
            const size_t p = c * QUEUE_CHUNK + (item & 0xffffu);
            count_words_at(v, text32, n, p, window_of(text32, p), item >> 16, add);
        }
        __syncwarp();
        bytes = next;
    }
    flush_counts(v, t, counts);
}

// The v5 tables as a block sees them.
struct longest_view {
    const uint8_t *pair;
    const uint2 *nodes, *deep;
    const uint16_t *single;
    uint32_t *rank_count; // the block's counts by rank (longest words only)
    node_hash node_hash, deep_hash;
};

// The trie node of depth 2..4 whose bytes are `key`.
__device__ __forceinline__ uint32_t find_shallow(const longest_view &v, uint32_t key, int depth)
{
    return find_node(v.nodes, &v.node_hash, key,
                     NODE_OCCUPIED | (uint32_t)(depth - 1) << NODE_DEPTH_SHIFT, NODE_TAG_MASK);
}

// The 4 bytes at byte q of a warp's chunk (chunk: its first int); 32-bit offsets, as
// every position a warp looks up is within its chunk.
__device__ __forceinline__ uint32_t chunk_window(const uint32_t *chunk, uint32_t q)
{
    const uint32_t *at = chunk + q / 4;
    return window_at(__ldg(at), __ldg(at + 1), (int)(q % 4));
}

// 1 + the rank of the longest word at byte q of a chunk, which has room (1..32) text
// bytes from q on; 0 where no word starts there; where a word of 5 bytes or more may
// start there, LONGEST_TAIL and the depth-4 node's info, for deep_walk.
__device__ uint32_t longest_word_at(const longest_view &v, const uint32_t *chunk, uint32_t q,
                                    int room)
{
    const uint32_t window = chunk_window(chunk, q);
    if (room == 1)
        return v.single[window & 0xffu];
    const uint32_t info4 = room >= 4 ? find_shallow(v, window, 4) : 0u;
    const uint32_t info3 = room >= 3 ? find_shallow(v, window & 0xffffffu, 3) : 0u;
    if (!info4 && !info3) { // the longest word has 1 or 2 bytes
        const uint32_t e = v.pair[pair_index(window & 0xffffu)];
        if (e < PAIR_QUEUE)
            return e;
        if (e < PAIR_QUEUE_LOOKUP)
            return e - PAIR_QUEUE;
        const uint32_t info2 = find_shallow(v, window & 0xffffu, 2);
        return info2 ? info2 & NODE_RANK_MASK : v.single[window & 0xffu];
    }
    if (!info4)
        return info3 & NODE_RANK_MASK;
    if ((info4 & NODE_DEEPER) && room >= 5)
        return LONGEST_TAIL | (info4 & TAIL_INFO_MASK);
    return info4 & NODE_RANK_MASK;
}

// 1 + the rank of the longest word at byte q of a chunk (room bytes from q on, 5..32)
// from its tail entry (the best word up to depth 4, the depth-4 node's id and what lies
// under it): each level looks up the node of the next 4 bytes and, where words end
// within them, the nodes of their first 3, 2 and 1 bytes, all at once; the deepest
// found that ends a word is the best so far. The walk stops where the 4-byte node is
// missing.
__device__ uint32_t deep_walk(const longest_view &v, const uint32_t *chunk, uint32_t q, int room,
                              uint32_t entry)
{
    uint32_t best = entry & NODE_RANK_MASK, parent = entry >> NODE_ID_SHIFT & DEEP_ID_MASK;
    bool whole_under = entry & NODE_HAS_CHUNK, partial_under = entry & NODE_HAS_PARTIAL;
    for (int k = 1; 4 * k < room && (whole_under || partial_under); k++) {
        const int left = room - 4 * k; // bytes of the text from this level on
        const uint32_t bytes = chunk_window(chunk, q + 4u * k);
        const uint32_t tag =
            NODE_OCCUPIED | (uint32_t)(k - 1) << DEEP_LEVEL_SHIFT | parent << DEEP_PARENT_SHIFT;
        auto find = [&](int j) {
            return j <= left ? find_node(v.deep, &v.deep_hash, bytes & first_int_mask(j),
                                         tag | (uint32_t)(j - 1) << DEEP_J_SHIFT, DEEP_TAG_MASK)
                             : 0u;
        };
        const uint32_t whole = whole_under ? find(4) : 0u;
        uint32_t part = 0;
        if (partial_under) {
            const uint32_t p3 = find(3), p2 = find(2), p1 = find(1);
            part = p3 ? p3 : p2 ? p2 : p1;
        }
        if (whole & DEEP_ENDS)
            best = 1 + (whole & DEEP_ID_MASK);
        else if (part)
            best = 1 + (part & DEEP_ID_MASK);
        if (!whole)
            break;
        parent = whole & DEEP_ID_MASK;
        whole_under = whole & DEEP_HAS_CHUNK;
        partial_under = whole & DEEP_HAS_PARTIAL;
    }
    return best;
}

// The pair-table indices of the lane's 16 positions (pair_index of bytes j and j + 1,
// j = 0..15; x[4] holds bytes 16..19). A position on its own costs a byte permute and
// the two-instruction swizzle; here, an int at a time, a funnel shift gives the bytes
// one on, one shift and one XOR swizzle all four first bytes at once, and each position
// is one byte permute from words whose other bytes are 0: 9 instructions for 4 positions.
__device__ __forceinline__ void pair_indices(const uint32_t *x, uint32_t *index)
{
#pragma unroll
    for (int k = 0; k < QUEUE_LANE_BYTES / 4; k++) {
        const uint32_t second = __funnelshift_r(x[k], x[k + 1], 8);  // bytes 4k + 1 .. 4k + 4
        const uint32_t first = x[k] ^ ((second << 2) & 0x7c7c7c7cu); // pair_index's XOR
        const uint32_t second_02 = second & 0x00ff00ffu, second_13 = second & 0xff00ff00u;
        index[4 * k] = __byte_perm(first, second_02, 0x5540u);
        index[4 * k + 1] = __byte_perm(first, second_13, 0x4451u);
        index[4 * k + 2] = __byte_perm(first, second_02, 0x7762u);
        index[4 * k + 3] = __byte_perm(first, second_13, 0x6673u);
    }
}

// The filter's step for one position whose pair entry is e: an entry under 128 adds one
// to the lane's own counter e (shared address counter_base + 128 e; counter 0, for the
// positions no word starts at, is never read); 128 and up sets `bit` in queued and adds
// 0 to counter e - 128. The add is unconditional: ptxas puts a predicated shared atomic
// in a branch, and a branch a position keeps the next position's table load waiting.
__device__ __forceinline__ void filter_step(uint32_t e, uint32_t counter_base, uint32_t bit,
                                            uint32_t &queued)
{
    asm volatile("{\n\t.reg .pred queue;\n\t.reg .u32 add, counter;\n\t"
                 "setp.ge.u32 queue, %1, 128;\n\t"
                 "selp.u32 add, 0, 1, queue;\n\t"
                 "and.b32 counter, %1, 127;\n\t"
                 "mad.lo.u32 counter, counter, 128, %2;\n\t"
                 "red.shared.add.u32 [counter], add;\n\t"
                 "@queue or.b32 %0, %0, %3;\n\t}"
                 : "+r"(queued)
                 : "r"(e), "r"(counter_base), "r"(bit)
                 : "memory");
}

enum {
    LONGEST_THREADS = 1024,
    LANE_COUNT_BYTES = (FAST_RANKS + 1) * 32 * 4, // a counter an entry value a lane
    LONGEST_TAIL_ENTRIES = 64,                    // up to 31 waiting, and a round's 32 more
    // A warp's queue (a position of its chunk at most once) and its tail.
    LONGEST_QUEUE_BYTES = QUEUE_CHUNK * 2 + LONGEST_TAIL_ENTRIES * 4,
    // Whatever the list: the lanes' and the ranks' counters, the 1-byte words.
    LONGEST_SHARED_COUNTERS = LANE_COUNT_BYTES + PM_MAX_WORDS * 4 + 256 * 2,
    // At most, besides the deep trie: the pair and node tables, those, the queues.
    LONGEST_SHARED_MAX =
        PAIR_SLOTS + NODE_SLOTS_MAX * 8 + LONGEST_SHARED_COUNTERS + 32 * LONGEST_QUEUE_BYTES,
};

// Napkin math (1 GB, the default words, H100): a position costs ~10 instructions (a
// byte permute and a quarter of the swizzle, a shared byte load, the test, the counter's
// address, an unconditional shared atomic on the lane's own counter, so no two lanes
// collide, a predicated queue bit): 1e10 lane-instructions, 0.3 ms at 33e12/s; a queued
// position ~60 more. Shared memory: one random byte load a position, measured 3.1
// wavefronts a warp (32 lanes over 32 banks): 1e9/32 x 3.1 / (132 SMs x 1.75 GHz) =
// 0.42 ms, the floor of any one-lookup-a-position filter, above the 0.34 ms the text
// takes to read at the copy rate. ncu: issue-bound (the filter about 40% of the
// instructions, the queue's rounds about 36%: ~100 a round of 32 positions, however
// few lanes are busy). 1024 vocabulary words: 40% of positions queued, 8% go on past 4
// bytes, whose tail walks take about a fifth of the instructions. README.md, "What
// bounds v5", has the measurements.
//
// v5's steps, each a block's or a warp's part of longest_kernel below.

// 1. The tables into shared memory at `shared` (the pair and node tables with
// SMEM_TABLES, the deep trie with deep_shared), the counters zeroed: the lanes' own
// ([entry value][lane], into *lane_counts) and the block's by rank. Returns the view;
// `shared` moves past what it took.
template <bool SMEM_TABLES>
__device__ __forceinline__ longest_view load_longest_tables(char *&shared, const longest_tables *t,
                                                            bool deep_shared,
                                                            uint32_t *&lane_counts)
{
    longest_view v;
    v.pair = t->pair;
    if (SMEM_TABLES) {
        copy_to_shared(shared, t->pair, PAIR_SLOTS);
        v.pair = reinterpret_cast<const uint8_t *>(shared);
        shared += PAIR_SLOTS;
    }
    lane_counts = reinterpret_cast<uint32_t *>(shared);
    for (int i = threadIdx.x; i < LANE_COUNT_BYTES / 4; i += blockDim.x)
        lane_counts[i] = 0;
    shared += LANE_COUNT_BYTES;
    v.rank_count = reinterpret_cast<uint32_t *>(shared);
    for (int r = threadIdx.x; r < t->ranks; r += blockDim.x)
        v.rank_count[r] = 0;
    shared += PM_MAX_WORDS * 4;
    copy_to_shared(shared, t->single, 256 * 2);
    v.single = reinterpret_cast<const uint16_t *>(shared);
    shared += 256 * 2;
    v.node_hash = t->node_hash;
    v.deep_hash = t->deep_hash;
    v.nodes = t->nodes;
    if (SMEM_TABLES) {
        copy_to_shared(shared, t->nodes, v.node_hash.slots * 8);
        v.nodes = reinterpret_cast<const uint2 *>(shared);
        shared += v.node_hash.slots * 8;
    }
    v.deep = t->deep;
    if (deep_shared) {
        copy_to_shared(shared, t->deep, v.deep_hash.slots * 8);
        v.deep = reinterpret_cast<const uint2 *>(shared);
        shared += v.deep_hash.slots * 8;
    }
    return v;
}

// Counts best = 1 + a rank on the lane's own counter (ranks under 127) or the block's,
// and best = 0 (no word) on counter 0: one shared atomic, no branch.
__device__ __forceinline__ void count_longest(uint32_t best, uint32_t counter_base,
                                              uint32_t rank_base)
{
    const uint32_t counter =
        best <= FAST_RANKS ? counter_base + 128u * best : rank_base + 4u * best;
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(counter) : "memory");
}

// 2. The filter: the lane's 16 positions (bytes x, x[4] the 4 after them), each
// counted at once or marked in the returned mask as queued. In the text's last chunk
// (`last`) every possible start is queued, the lengths checked there; `first` is the
// lane's first position.
__device__ __forceinline__ uint32_t filter_positions(const longest_view &v, const uint32_t (&x)[5],
                                                     bool last, size_t first, size_t n,
                                                     uint32_t counter_base)
{
    uint32_t index[QUEUE_LANE_BYTES], queued = 0;
    pair_indices(x, index);
    if (!last) { // every position has a byte after it
        // All 16 table loads first, then the counts: the loads overlap.
        uint32_t entry[QUEUE_LANE_BYTES];
#pragma unroll
        for (int j = 0; j < QUEUE_LANE_BYTES; j++)
            entry[j] = v.pair[index[j]];
#pragma unroll
        for (int j = 0; j < QUEUE_LANE_BYTES; j++)
            filter_step(entry[j], counter_base, 1u << j, queued);
    } else {
        const int room = first < n ? (n - first < QUEUE_LANE_BYTES ? (int)(n - first) : 16) : 0;
#pragma unroll
        for (int j = 0; j < QUEUE_LANE_BYTES; j++)
            queued |= (uint32_t)(v.pair[index[j]] != PAIR_NONE && j < room) << j;
    }
    return queued;
}

// 3. The warp's queued positions into its queue, in lane order; returns how many.
__device__ __forceinline__ int enqueue_positions(uint32_t queued, uint16_t *queue, int lane)
{
    const int mine = __popc(queued);
    const int end = warp_inclusive_scan(mine);
    const int total = __shfl_sync(0xffffffffu, end, 31);
    int at = end - mine;
    for (; queued; queued &= queued - 1)
        queue[at++] = (uint16_t)(lane * QUEUE_LANE_BYTES + __ffs(queued) - 1);
    __syncwarp();
    return total;
}

// 4. The queue settled, a position a lane: its longest word counted, or, where the deep
// trie must settle it, the position moved to the tail, which walks whenever it holds 32
// (a lane or two walking while the rest of the warp waits was the first cut's cost:
// README.md). chunk_room: the text's bytes from the chunk's start, up to two chunks.
__device__ __forceinline__ void settle_queue(const longest_view &v, const uint32_t *chunk,
                                             int chunk_room, const uint16_t *queue, int total,
                                             uint32_t *tail, bool deep_trie, int lane,
                                             uint32_t counter_base, uint32_t rank_base)
{
    auto room_at = [&](uint32_t q) { return min(chunk_room - (int)q, (int)PM_MAX_WORD_BYTES); };
    // A tail entry's walk through the deep trie, counted.
    auto walk = [&](uint32_t entry) {
        const uint32_t q = entry >> TAIL_POSITION_SHIFT;
        count_longest(deep_walk(v, chunk, q, room_at(q), entry), counter_base, rank_base);
    };
    if (!deep_trie) { // no word over 4 bytes: a lane a position, no tail to keep
        for (int i = lane; i < total; i += 32) {
            const uint32_t q = queue[i];
            count_longest(longest_word_at(v, chunk, q, room_at(q)), counter_base, rank_base);
        }
        return;
    }
    const uint32_t lanes_below = (1u << lane) - 1u;
    int tails = 0;
    for (int round = 0; round < total; round += 32) {
        const int i = round + lane;
        const uint32_t q = i < total ? queue[i] : 0u;
        const uint32_t found = i < total ? longest_word_at(v, chunk, q, room_at(q)) : 0u;
        const bool deep = found & LONGEST_TAIL;
        count_longest(deep ? 0u : found, counter_base, rank_base); // counter 0 past the end
        const uint32_t deeps = __ballot_sync(0xffffffffu, deep);
        if (deep)
            tail[tails + __popc(deeps & lanes_below)] =
                (found & TAIL_INFO_MASK) | q << TAIL_POSITION_SHIFT;
        tails += __popc(deeps);
        if (tails >= 32) {
            __syncwarp();
            tails -= 32;
            walk(tail[tails + lane]);
            __syncwarp();
        }
    }
    __syncwarp();
    if (lane < tails)
        walk(tail[lane]);
}

// 5. The block's longest-word counts by rank, then each word's: the sum over the ranks
// it is a prefix of, added to the global counts.
__device__ __forceinline__ void flush_longest_counts(const longest_view &v,
                                                     const uint32_t *lane_counts,
                                                     const longest_tables *t,
                                                     unsigned long long *counts)
{
    __syncthreads();
    for (int r = threadIdx.x; r < t->ranks; r += blockDim.x) {
        uint32_t sum = v.rank_count[r];
        if (r < FAST_RANKS)
            for (int i = 0; i < 32; i++) // lane-rotated: a warp's threads read 32 banks
                sum += lane_counts[(r + 1) * 32 + (i + r) % 32];
        v.rank_count[r] = sum;
    }
    __syncthreads();
    for (int w = threadIdx.x; w < t->words; w += blockDim.x) {
        const int r = t->rank_of[w];
        unsigned long long total = 0;
        for (int i = t->descendants_start[r]; i < t->descendants_start[r + 1]; i++)
            total += v.rank_count[t->descendants[i]];
        if (total)
            atomicAdd(&counts[w], total);
    }
}

// The kernel: each warp takes chunks of QUEUE_CHUNK bytes in turn, two chunks' loads in
// flight while one is filtered (2), queued (3) and settled (4); the block's counts are
// flushed at the end (5). SMEM_TABLES: the pair and depth-2..4 tables in shared memory;
// deep_shared: the deep trie too (where it fits beside them).
template <bool SMEM_TABLES>
__global__ void __launch_bounds__(LONGEST_THREADS, 1)
    longest_kernel(const uint32_t *text32, size_t n, const longest_tables *t,
                   unsigned long long *counts, bool deep_shared)
{
    extern __shared__ uint4 shared_raw[];
    char *shared = reinterpret_cast<char *>(shared_raw);
    uint32_t *lane_counts;
    const longest_view v = load_longest_tables<SMEM_TABLES>(shared, t, deep_shared, lane_counts);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint16_t *queue = reinterpret_cast<uint16_t *>(shared + warp * LONGEST_QUEUE_BYTES);
    uint32_t *tail =
        reinterpret_cast<uint32_t *>(shared + warp * LONGEST_QUEUE_BYTES + QUEUE_CHUNK * 2);
    const uint32_t counter_base = (uint32_t)__cvta_generic_to_shared(lane_counts + lane);
    const uint32_t rank_base = (uint32_t)__cvta_generic_to_shared(v.rank_count) - 4u;
    __syncthreads();

    const uint4 *text128 = reinterpret_cast<const uint4 *>(text32);
    const size_t chunks = (n + QUEUE_CHUNK - 1) / QUEUE_CHUNK;
    const size_t warps = (size_t)gridDim.x * (blockDim.x / 32);
    size_t c = (size_t)blockIdx.x * (blockDim.x / 32) + warp;
    const bool deep_trie = t->deep_nodes > 0;
    uint4 bytes = lane_bytes(text128, n, c, lane), next = lane_bytes(text128, n, c + warps, lane);
    uint32_t after = lane == 31 ? int_after_chunk(text32, n, c) : 0u;
    uint32_t next_after = lane == 31 ? int_after_chunk(text32, n, c + warps) : 0u;
    for (; c < chunks; c += warps) {
        const uint4 later = lane_bytes(text128, n, c + 2 * warps, lane);
        const uint32_t later_after = lane == 31 ? int_after_chunk(text32, n, c + 2 * warps) : 0u;
        const uint32_t from_right = __shfl_down_sync(0xffffffffu, bytes.x, 1);
        const uint32_t x[5] = {bytes.x, bytes.y, bytes.z, bytes.w, lane == 31 ? after : from_right};
        const uint32_t queued =
            filter_positions(v, x, (c + 1) * QUEUE_CHUNK >= n,
                             c * QUEUE_CHUNK + (size_t)lane * QUEUE_LANE_BYTES, n, counter_base);
        // The chunk's address in one register pair, which the compiler would otherwise
        // rebuild from c and text32 for every load (64-bit arithmetic, twice a window).
        const uint32_t *chunk;
        asm("mov.b64 %0, %1;" : "=l"(chunk) : "l"(text32 + c * (QUEUE_CHUNK / 4)));
        const int chunk_room =
            n - c * QUEUE_CHUNK < 2 * QUEUE_CHUNK ? (int)(n - c * QUEUE_CHUNK) : 2 * QUEUE_CHUNK;
        const int total = enqueue_positions(queued, queue, lane);
        settle_queue(v, chunk, chunk_room, queue, total, tail, deep_trie, lane, counter_base,
                     rank_base);
        __syncwarp();
        bytes = next;
        next = later;
        after = next_after;
        next_after = later_after;
    }
    flush_longest_counts(v, lane_counts, t, counts);
}

// v6: Aho and Corasick's automaton, one table load a byte. Each thread scans its own
// region of the text byte by byte (32 bytes a step), its state the entry of the byte
// before: the next entry is the state's row at the byte (or at its class), whose out (the
// longest word ending at this byte) is counted on the lane's own counter, as v5 counts.
// A region is scanned from the 32 bytes before it (AUTOMATON_WARMUP, uncounted), so that
// its first bytes find the words that start before it. No filter, no queue, no branch.
// What bounds it is the shared-memory pipe: a wavefront a cycle an SM, and a warp's load
// of 32 lanes in different states takes as many wavefronts as the most lanes that want
// one bank (about 3, by ncu); the count is one more (each lane its own bank).
// Rows by byte (the default words' 66 states fit; ncu, H100, 100 MB): 6 SASS instructions
// a byte (byte permute, row mask, address, the shared load, the counter's address, the
// shared add), about 4 wavefronts a warp's byte, three quarters of the time measured (the
// rest: the steps' chain, each load waiting for the one before, at 2 blocks an SM).
// A copy a lane (the default words: 66 states x 24 entries of 16 bits, 100 KB, a copy in
// each lane's bank) makes the row's load one wavefront: the class's load (the lane's
// copy of the class table, one wavefront), the row's and the count; the entry is the
// next state alone, counted by state. What bounds it is L1's data pipe, which the text's
// global loads share with shared memory: a wavefront a sector, 2 a warp's byte when each
// lane loads its own 16-byte halves. By ncu (H200, 100 MB, a wavefront an SM a cycle at
// most) each step cut the pipe's wavefronts a warp's byte: one add a byte, the loads,
// adds and text about equal shares; two bytes a count (automaton_vector: about a fifth of
// this text's bytes end in a state with an out, both of a pair rarely, which a warp meets
// in half its pairs: three quarters of an add a byte); a sector loaded by two lanes
// together (scan_regions), which halves the text's share (the README has the times).
// Floor of this design: ~4.1 wavefronts a warp's byte, 1e9 / 32 x 4.1 / (132 SMs x 1.98
// GHz) = 0.49 ms. Rows by class (100 vocabulary words: 508 states, 23 bytes) take the
// class's load and about 3 for the row's.
// Bigger lists take the split layout (automaton_split_kernel below); lists of words with
// over 31 distinct bytes and over 96 states run v5 (and say so).
enum { AUTOMATON_THREADS = 1024 };

// One byte's step from `entry`, column the byte's (or its class's) 4 x, or for a copy a
// lane its class's slot: the next entry, its out counted where COUNT (the warm-up counts
// nothing), on counter 0 (never read) where the byte is not `counted` (past the text's
// end). A copy a lane's step only loads: it counts two steps at a time (automaton_vector).
template <automaton_layout LAYOUT, bool COUNT>
__device__ __forceinline__ uint32_t automaton_step(uint32_t entry, uint32_t column,
                                                   uint32_t counter_base, uint32_t row_bytes,
                                                   bool counted)
{
    static_assert(LAYOUT != AUTOMATON_LANE_COPIES || !COUNT, "a copy a lane counts pairs");
    uint32_t next;
    if (LAYOUT == AUTOMATON_LANE_COPIES) {
        asm volatile("ld.shared.u16 %0, [%1];"
                     : "=r"(next)
                     : "r"(automaton_lane_next_address(entry, row_bytes, column)));
        return next;
    }
    asm volatile("ld.shared.u32 %0, [%1];"
                 : "=r"(next)
                 : "r"(automaton_next_address(entry, column)));
    if (COUNT)
        asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(
                         automaton_counter_address(counter_base, next, counted))
                     : "memory");
    return next;
}

// 16 bytes (x) scanned, the first `valid` of them counted (16: all). By class and a
// copy a lane: the 16 bytes' classes are loaded first, all at once (the lane's copy of
// the class table, `classes`: byte x 128 + lane x 4, the lane's own bank), off the chain
// of steps, where each step waits for the one before.
template <automaton_layout LAYOUT, bool COUNT>
__device__ __forceinline__ uint32_t automaton_vector(uint32_t entry, const uint4 x,
                                                     uint32_t classes, uint32_t counter_base,
                                                     uint32_t row_bytes, uint32_t first_out,
                                                     int valid = 16)
{
    const uint32_t ints[4] = {x.x, x.y, x.z, x.w};
    uint32_t column[16];
#pragma unroll
    for (int j = 0; j < 16; j++) {
        const uint32_t byte = __byte_perm(ints[j / 4], 0u, 0x4440u | (uint32_t)(j % 4));
        column[j] = 4u * byte;
        if (LAYOUT != AUTOMATON_BY_BYTE)
            asm volatile("ld.shared.u32 %0, [%1];"
                         : "=r"(column[j])
                         : "r"(automaton_class_address(classes, byte)));
    }
    if constexpr (LAYOUT == AUTOMATON_LANE_COPIES && COUNT) {
        // Two steps a count, and a second add only where both states have an out (see
        // automaton_pair_counter): 0.75 adds a warp's byte, not 1, in L1's data pipe.
#pragma unroll
        for (int j = 0; j < 16; j += 2) {
            const uint32_t s1 =
                automaton_step<LAYOUT, false>(entry, column[j], 0u, row_bytes, true);
            entry = automaton_step<LAYOUT, false>(s1, column[j + 1], 0u, row_bytes, true);
            const int counted = valid - j < 0 ? 0 : valid - j > 2 ? 2 : valid - j;
            asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(automaton_lane_counter_address(
                counter_base, automaton_pair_counter(s1, entry, first_out, counted)))
                         : "memory");
            if (automaton_pair_counts_both(s1, entry, first_out, counted))
                asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(
                                 automaton_lane_counter_address(counter_base, entry))
                             : "memory");
        }
    } else {
#pragma unroll
        for (int j = 0; j < 16; j++)
            entry =
                automaton_step<LAYOUT, COUNT>(entry, column[j], counter_base, row_bytes, j < valid);
    }
    return entry;
}

// The automaton's entries [0, entries) into shared memory (dst: room for them rounded up to
// 16 bytes), each placed at `table` (automaton_placed; split: 0, as they are): 16 bytes a
// load and four loads a thread in flight before their stores, where a loop of a load and
// its store would wait ~600 cycles an iteration on each load.
__device__ static void copy_entries_to_shared(uint32_t *dst, const uint32_t *src, int entries,
                                              uint32_t table)
{
    enum { IN_FLIGHT = 4 };
    uint4 *d = reinterpret_cast<uint4 *>(dst);
    const uint4 *s = reinterpret_cast<const uint4 *>(src);
    const int vectors = (entries + 3) / 4, step = (int)blockDim.x;
    for (int first = threadIdx.x; first < vectors; first += IN_FLIGHT * step) {
        uint4 v[IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; k++)
            if (first + k * step < vectors)
                v[k] = __ldg(&s[first + k * step]);
#pragma unroll
        for (int k = 0; k < IN_FLIGHT; k++)
            if (first + k * step < vectors)
                d[first + k * step] =
                    make_uint4(automaton_placed(v[k].x, table), automaton_placed(v[k].y, table),
                               automaton_placed(v[k].z, table), automaton_placed(v[k].w, table));
    }
}

// A copy a lane of the class table (256 bytes x 32 lanes, 32 KB): lane l's word of byte b
// is slot(l, class of b). Thread k stores lane l + k at step l, so that a warp's stores
// fall in 32 banks.
template <typename Slot>
__device__ static void fill_class_table(uint32_t *class_table, const uint8_t *class_of, Slot slot)
{
    for (int byte = threadIdx.x; byte < 256; byte += blockDim.x) {
        const uint32_t c = class_of[byte];
        for (int l = 0; l < 32; l++) {
            const uint32_t lane = (uint32_t)(l + byte) % 32;
            class_table[byte * 32 + lane] = slot(lane, c);
        }
    }
}

// The thread's regions of the text, each scanned from `root`: the 32 bytes before it
// (uncounted: their state), then its bytes 32 a step, a 32-byte sector (two 16-byte
// loads, the next step's in flight). vector(entry, x, count, valid) scans 16 bytes x,
// counting the first `valid` where `count`, and returns the entry after them.
// A warp's lanes read 32 regions at once, 32 sectors a load instruction, and L1's data
// pipe (which the shared-memory loads and adds share) takes a wavefront a sector,
// whether a lane reads 16 of its 32 bytes or all. So where the warp's 32 regions are all
// whole, with SHARED_SECTORS two neighbouring lanes load one sector together (the even
// lane's, then the odd lane's: 16 sectors an instruction) and swap halves with one
// shuffle a word. (Not for rows by byte: at 32 registers a thread, 2 blocks an SM, ptxas
// issues the next step's loads mid-step, and at 1 GB the H100 got slower, though the
// H200 faster.)
template <bool SHARED_SECTORS, typename Vector>
__device__ __forceinline__ void scan_regions(const uint4 *text, size_t n, size_t region,
                                             uint32_t root, Vector vector)
{
    const size_t regions = (n + region - 1) / region, threads = (size_t)gridDim.x * blockDim.x;
    const uint32_t lane = threadIdx.x % 32;
    const bool odd = lane & 1u;
    auto warmed = [&](size_t start) {
        uint32_t entry = root;
        if (start) {
            entry = vector(entry, __ldg(&text[start / 16 - 2]), false, 16);
            entry = vector(entry, __ldg(&text[start / 16 - 1]), false, 16);
        }
        return entry;
    };
    for (size_t warp_first = (size_t)blockIdx.x * blockDim.x + threadIdx.x - lane;
         warp_first < regions; warp_first += threads) { // the same in the warp's lanes
        const size_t r = warp_first + lane, start = r * region;
        if (SHARED_SECTORS && __all_sync(~0u, r < regions && start + region <= n)) {
            uint32_t entry = warmed(start);
            // This lane's half of the even lane's sector (lo) and of the odd lane's (hi).
            const uint4 *lo = text + (odd ? start - region : start) / 16 + odd,
                        *hi = lo + region / 16;
            uint4 x = __ldg(lo), y = __ldg(hi);
            for (size_t k = 0; k < region / 32; k++) { // past the end: the padding (64 bytes)
                const uint4 next_x = __ldg(lo + 2 * k + 2), next_y = __ldg(hi + 2 * k + 2);
                // Even lane: x its first half, y the odd lane's first; odd: x the even
                // lane's second half, y its own second.
                const uint4 send = odd ? x : y;
                const uint4 got =
                    make_uint4(__shfl_xor_sync(~0u, send.x, 1), __shfl_xor_sync(~0u, send.y, 1),
                               __shfl_xor_sync(~0u, send.z, 1), __shfl_xor_sync(~0u, send.w, 1));
                entry = vector(entry, odd ? got : x, true, 16);
                entry = vector(entry, odd ? y : got, true, 16);
                x = next_x;
                y = next_y;
            }
            continue;
        }
        if (r >= regions)
            continue;
        const size_t end = start + region < n ? start + region : n;
        uint32_t entry = warmed(start);
        size_t p = start;
        uint4 a = __ldg(&text[p / 16]), b = __ldg(&text[p / 16 + 1]);
        for (; p + 32 <= end; p += 32) { // past the end: the buffer's padding (64 bytes)
            const uint4 next_a = __ldg(&text[p / 16 + 2]), next_b = __ldg(&text[p / 16 + 3]);
            entry = vector(entry, a, true, 16);
            entry = vector(entry, b, true, 16);
            a = next_a;
            b = next_b;
        }
        if (p < end) { // the text's last 1..31 bytes
            const int left = (int)(end - p);
            entry = vector(entry, a, true, left < 16 ? left : 16);
            if (left > 16)
                vector(entry, b, true, left - 16);
        }
    }
}

// Shared memory: the rows (row_bytes), the class table unless by byte (256 x 32 entries),
// the lanes' counters (a copy a lane: states x 32, else (AUTOMATON_SHARED_OUTS_MAX + 1) x 32).
// By byte, two blocks of 1024 an SM where an SM holds 2048 threads (sm_80, sm_90, sm_100):
// ptxas then keeps a thread's registers to 32. Other GPUs hold 1024 or 1536 threads an SM,
// where two such blocks cannot be (ptxas would warn and ignore it): one.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 800 && __CUDA_ARCH__ != 900 && __CUDA_ARCH__ != 1000
#define AUTOMATON_BY_BYTE_BLOCKS 1
#else
#define AUTOMATON_BY_BYTE_BLOCKS 2
#endif
template <automaton_layout LAYOUT>
__global__ void __launch_bounds__(AUTOMATON_THREADS,
                                  LAYOUT == AUTOMATON_BY_BYTE ? AUTOMATON_BY_BYTE_BLOCKS : 1)
    automaton_kernel(const uint4 *text, size_t n, size_t region, const automaton_tables *t,
                     int row_bytes, unsigned long long *counts)
{
    constexpr bool LANES = LAYOUT == AUTOMATON_LANE_COPIES;
    extern __shared__ uint4 shared_raw[];
    char *shared = reinterpret_cast<char *>(shared_raw);
    const int lane = threadIdx.x % 32;
    const uint32_t table = (uint32_t)__cvta_generic_to_shared(shared);
    const int states = t->states, entries = states * t->row_entries;
    if (LANES) {
        // A thread an entry, loaded once and stored to the 32 lanes' copies, a warp's
        // threads in 32 banks (thread k's lane l + k at step l). (A load a store, in a loop
        // that waited ~600 cycles an iteration on it, took 28 us a launch.)
        uint16_t *copies = reinterpret_cast<uint16_t *>(shared);
        for (int e = threadIdx.x; e < entries; e += blockDim.x) {
            const uint16_t entry = (uint16_t)__ldg(&t->next[e]);
            for (int l = 0; l < 32; l++)
                copies[(automaton_lane_slot(0u, (uint32_t)(l + e) % 32, (uint32_t)e)) / 2] = entry;
        }
    } else {
        // The rows, each entry's row made the row's shared-memory address (below 2^18: no
        // carry into the out), so that a step's address is the row plus the column.
        copy_entries_to_shared(reinterpret_cast<uint32_t *>(shared), t->next, entries, table);
    }
    shared += row_bytes;
    uint32_t classes = 0;
    if (LAYOUT != AUTOMATON_BY_BYTE) {
        // The class table: by class 4 x the class, a copy a lane the class's slot.
        uint32_t *class_table = reinterpret_cast<uint32_t *>(shared);
        fill_class_table(class_table, t->class_of, [table](uint32_t l, uint32_t c) {
            return LANES ? automaton_lane_slot(table, l, c) : 4u * c;
        });
        classes = (uint32_t)__cvta_generic_to_shared(class_table + lane);
        shared += 256 * 32 * 4;
    }
    uint32_t *lane_counts = reinterpret_cast<uint32_t *>(shared);
    const int counters = (LANES ? states : AUTOMATON_SHARED_OUTS_MAX + 1) * 32;
    for (int i = threadIdx.x; i < counters; i += blockDim.x)
        lane_counts[i] = 0;
    __shared__ uint32_t out_sums[AUTOMATON_SHARED_OUTS_MAX + 1];
    for (int o = threadIdx.x; o <= AUTOMATON_SHARED_OUTS_MAX; o += blockDim.x)
        out_sums[o] = 0;
    __syncthreads();
    const uint32_t counter_base = (uint32_t)__cvta_generic_to_shared(lane_counts + lane);
    // A copy a lane: a row's bytes, its entries' 32 copies (the same in every thread).
    const uint32_t lane_row_bytes = (uint32_t)t->row_entries * 64u,
                   first_out = (uint32_t)t->first_out;

    scan_regions<LAYOUT != AUTOMATON_BY_BYTE>(
        text, n, region, LANES ? 0u : table, // the root (its row)
        [&](uint32_t entry, const uint4 x, bool count, int valid) {
            return count ? automaton_vector<LAYOUT, true>(entry, x, classes, counter_base,
                                                          lane_row_bytes, first_out, valid)
                         : automaton_vector<LAYOUT, false>(entry, x, classes, counter_base,
                                                           lane_row_bytes, first_out, valid);
        });

    // The block's counts by out (a copy a lane: by state, each added to its out's), then
    // each word's: the sum over the words ending with it.
    __syncthreads();
    for (int c = threadIdx.x; c < (LANES ? states : t->distinct + 1); c += blockDim.x) {
        uint32_t sum = 0;
        for (int i = 0; i < 32; i++) // lane-rotated: a warp's threads read 32 banks
            sum += lane_counts[c * 32 + (i + c) % 32];
        if (LANES)
            atomicAdd(&out_sums[t->out_of_state[c]], sum);
        else
            out_sums[c] = sum;
    }
    __syncthreads();
    for (int w = threadIdx.x; w < t->words; w += blockDim.x) {
        const int d = t->distinct_of[w];
        unsigned long long total = 0;
        for (int i = t->ends_start[d]; i < t->ends_start[d + 1]; i++)
            total += out_sums[1 + t->ends[i]];
        if (total)
            atomicAdd(&counts[w], total);
    }
}

// v6 split (lists whose table does not fit shared memory: the 1024 vocabulary words,
// 5457 states): rows by class, the shallowest `shared_states` in shared memory and every
// state's row in global memory; a step reads its row through a generic pointer, from
// shared memory where the state is shallow (most steps: for the 1024 words 90% land at
// depth 4 or less, which 1074 states hold) and from L1 / L2 where not. An entry is the
// next state and its out (up to 1024 words): the out's counter is the block's, not the
// lane's (lanes that count no word add to their own counter 0).
// Napkin math (1 GB, 1024 words, H100): ~12 instructions a byte (0.38 G warp
// instructions, 0.4 ms at the issue rate); 10% of the steps read a 32-byte sector of L2
// (1e8 sectors, 3.2 GB, ~0.6 ms at ~5.5 TB/s) and wait ~250 cycles for it, and a warp's
// step waits for its slowest lane: ~1 ms, against v5's 4.57. Measured: about one and a
// half times that on both GPUs; ncu (100 MB, 1480 rows): issue in under a third of the
// cycles, most stalls on the long scoreboard (L1 hit rate 27%): the L2 latency bounds it.
__device__ __forceinline__ uint32_t split_vector(uint32_t entry, const uint4 x, uint32_t classes,
                                                 const uint32_t *shared_rows,
                                                 const uint32_t *global_rows,
                                                 uint32_t shared_states, uint32_t counters,
                                                 uint32_t lane_counter, bool count, int valid = 16)
{
    const uint32_t ints[4] = {x.x, x.y, x.z, x.w};
    uint32_t klass[16];
#pragma unroll
    for (int j = 0; j < 16; j++) { // the classes first, all at once, off the steps' chain
        const uint32_t byte = __byte_perm(ints[j / 4], 0u, 0x4440u | (uint32_t)(j % 4));
        asm volatile("ld.shared.u32 %0, [%1];"
                     : "=r"(klass[j])
                     : "r"(automaton_class_address(classes, byte)));
    }
#pragma unroll
    for (int j = 0; j < 16; j++) {
        const uint32_t state = entry & AUTOMATON_STATE_MASK;
        const uint32_t *rows = state < shared_states ? shared_rows : global_rows;
        entry = rows[state * AUTOMATON_CLASS_ROW + klass[j]];
        if (count)
            asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(
                             automaton_split_counter(counters, lane_counter, entry, j < valid))
                         : "memory");
    }
    return entry;
}

__global__ void __launch_bounds__(AUTOMATON_THREADS, 1)
    automaton_split_kernel(const uint4 *text, size_t n, size_t region, const automaton_tables *t,
                           int shared_states, int row_bytes, unsigned long long *counts)
{
    extern __shared__ uint4 shared_raw[];
    char *shared = reinterpret_cast<char *>(shared_raw);
    const int lane = threadIdx.x % 32;
    uint32_t *rows = reinterpret_cast<uint32_t *>(shared);
    copy_entries_to_shared(rows, t->next, shared_states * AUTOMATON_CLASS_ROW, 0u);
    shared += row_bytes;
    uint32_t *class_table = reinterpret_cast<uint32_t *>(shared);
    fill_class_table(class_table, t->class_of, [](uint32_t, uint32_t c) { return c; });
    const uint32_t classes = (uint32_t)__cvta_generic_to_shared(class_table + lane);
    shared += 256 * 32 * 4;
    uint32_t *block_counts = reinterpret_cast<uint32_t *>(shared); // [0..32): the lanes' 0
    for (int i = threadIdx.x; i < 32 + PM_MAX_WORDS + 1; i += blockDim.x)
        block_counts[i] = 0;
    __syncthreads();
    // out o's counter at counters + 4 o (o >= 1), past the 32 lanes' counters of nothing
    const uint32_t lane_counter = (uint32_t)__cvta_generic_to_shared(block_counts + lane);
    const uint32_t counters = (uint32_t)__cvta_generic_to_shared(block_counts + 32);
    const uint32_t *global_rows = t->next;

    scan_regions<true>(text, n, region, 0u, // the root
                       [&](uint32_t entry, const uint4 x, bool count, int valid) {
                           return split_vector(entry, x, classes, rows, global_rows,
                                               (uint32_t)shared_states, counters, lane_counter,
                                               count, valid);
                       });

    // Each word's count: the sum over the words ending with it, from the block's counters.
    __syncthreads();
    for (int w = threadIdx.x; w < t->words; w += blockDim.x) {
        const int d = t->distinct_of[w];
        unsigned long long total = 0;
        for (int i = t->ends_start[d]; i < t->ends_start[d + 1]; i++)
            total += block_counts[32 + 1 + t->ends[i]];
        if (total)
            atomicAdd(&counts[w], total);
    }
}

// --- the device words and the launchers -------------------------------------------------

struct pm_device_words {
    pm_words *list; // device copy
    prefix_tables *tables;
    longest_tables *longest;
    int longest_node_bytes, longest_deep_bytes; // the v5 tables' sizes for this list
    automaton_tables *automaton;                // NULL where the list's does not fit
    automaton_layout automaton_layout;
    int automaton_states, automaton_row_bytes; // its rows' bytes (all: a multiple of 16)
    char automaton_why[160];                   // why not, said once by v6
    mutable bool automaton_said;
    int count;
    int distinct_count;
    constant_head head[PM_MAX_WORDS];
    pm_words host;
};

extern "C" pm_device_words *pm_device_words_create(const pm_words *words)
{
    pm_device_words *dw = new pm_device_words;
    dw->count = words->count;
    dw->host = *words;
    CL_CUDA_CHECK(cudaMalloc((void **)&dw->list, sizeof *words));
    CL_CUDA_CHECK(cudaMemcpy(dw->list, words, sizeof *words, cudaMemcpyHostToDevice));
    prefix_tables *host_tables = new prefix_tables;
    pm_build_prefix_tables(words, host_tables);
    dw->distinct_count = host_tables->distinct;
    CL_CUDA_CHECK(cudaMalloc((void **)&dw->tables, sizeof *host_tables));
    CL_CUDA_CHECK(cudaMemcpy(dw->tables, host_tables, sizeof *host_tables, cudaMemcpyHostToDevice));
    delete host_tables;
    longest_tables *host_longest = new longest_tables;
    char why[160];
    if (pm_build_longest_tables(words, host_longest, why, sizeof why) != 0)
        cl_die(CL_EXIT_CUDA, "v5's tables of this word list: %s", why);
    dw->longest_node_bytes = host_longest->node_hash.slots * 8;
    dw->longest_deep_bytes = host_longest->deep_hash.slots * 8;
    CL_CUDA_CHECK(cudaMalloc((void **)&dw->longest, sizeof *host_longest));
    CL_CUDA_CHECK(
        cudaMemcpy(dw->longest, host_longest, sizeof *host_longest, cudaMemcpyHostToDevice));
    delete host_longest;
    automaton_tables *host_automaton = new automaton_tables;
    dw->automaton = nullptr;
    dw->automaton_said = false;
    if (pm_build_automaton(words, AUTOMATON_ANY, host_automaton, dw->automaton_why,
                           sizeof dw->automaton_why) == 0) {
        dw->automaton_layout = host_automaton->layout;
        dw->automaton_states = host_automaton->states;
        // a copy a lane: 16 bits an entry, 32 copies
        dw->automaton_row_bytes =
            padded_to_16(host_automaton->states * host_automaton->row_entries *
                         (host_automaton->layout == AUTOMATON_LANE_COPIES ? 64 : 4));
        CL_CUDA_CHECK(cudaMalloc((void **)&dw->automaton, sizeof *host_automaton));
        CL_CUDA_CHECK(cudaMemcpy(dw->automaton, host_automaton, sizeof *host_automaton,
                                 cudaMemcpyHostToDevice));
    }
    delete host_automaton;
    for (int w = 0; w < words->count; w++) {
        const uint32_t mask = first_int_mask(words->len[w]);
        dw->head[w] = {words->packed[w][0] & mask, mask, words->len[w]};
    }
    return dw;
}

extern "C" void pm_device_words_destroy(pm_device_words *dw)
{
    if (constant_owner == dw)
        constant_owner = nullptr;
    CL_CUDA_CHECK(cudaFree(dw->list));
    CL_CUDA_CHECK(cudaFree(dw->tables));
    CL_CUDA_CHECK(cudaFree(dw->longest));
    if (dw->automaton)
        CL_CUDA_CHECK(cudaFree(dw->automaton));
    delete dw;
}

extern "C" const pm_words *pm_device_words_list(const pm_device_words *dw) { return dw->list; }
extern "C" int pm_device_words_count(const pm_device_words *dw) { return dw->count; }

static void launch_v1(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    const int threads = dw->count < 32 ? 32 : (dw->count + 31) / 32 * 32;
    course_kernel<<<1, threads, 0, s>>>(reinterpret_cast<const uint32_t *>(text), n,
                                        pm_text_buffer_bytes(n) / 4, dw->list, counts);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    if (constant_owner != dw) { // the words this list has, once (not per call)
        CL_CUDA_CHECK(cudaMemcpyToSymbol(c_head, dw->head, dw->count * sizeof(constant_head)));
        CL_CUDA_CHECK(
            cudaMemcpyToSymbol(c_packed, dw->host.packed, dw->count * sizeof dw->host.packed[0]));
        constant_owner = dw;
    }
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, dw->count * sizeof *counts, s));
    const size_t blocks_needed = cl_ceil_div((n + 3) / 4, CONSTANT_THREADS);
    const size_t grid = (size_t)cl_device_current()->sm_count * CONSTANT_BLOCKS_PER_SM;
    constant_words_kernel<<<(unsigned)(blocks_needed < grid ? blocks_needed : grid),
                            CONSTANT_THREADS, 0, s>>>(reinterpret_cast<const uint32_t *>(text), n,
                                                      dw->count, counts);
    CL_LAUNCH_CHECK();
}

// v3 and v4 keep the 128 KB pair table in shared memory where the GPU allows it
// (sm_80 and later: 163 KB or more a block) and read it from global memory otherwise.
// v4's queues take 2 KB a warp: as many warps as fit beside the tables, up to 32.
typedef void (*table_kernel)(const uint32_t *, size_t, const prefix_tables *, unsigned long long *);
struct table_launch {
    table_kernel kernel;
    int threads;
    size_t shared_bytes;
};

static table_launch table_launch_for(table_kernel in_shared, table_kernel in_global, bool queues)
{
    const size_t optin = cl_device_current()->shared_optin_bytes;
    table_launch l = {in_shared, 1024, SHARED_PAIR_BYTES + SHARED_SMALL_BYTES};
    const size_t per_warp = queues ? QUEUE_WARP_BYTES : 0;
    if (optin < l.shared_bytes + 4 * per_warp) {
        l.kernel = in_global;
        l.shared_bytes = SHARED_SMALL_BYTES;
    }
    if (queues) {
        size_t warps = (optin - l.shared_bytes) / per_warp;
        warps = warps > 32 ? 32 : warps;
        l.threads = (int)warps * 32;
        l.shared_bytes += warps * per_warp;
    }
    return l;
}

static void launch_table_kernel(const table_launch &l, size_t work_items, const uint8_t *text,
                                size_t n, const pm_device_words *dw, unsigned long long *counts,
                                cudaStream_t s)
{
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, dw->count * sizeof *counts, s));
    cl_kernel_fit_for((const void *)l.kernel, l.threads,
                      l.shared_bytes); // raises the shared-memory allowance
    const size_t grid = (size_t)cl_device_current()->sm_count;
    const size_t needed = cl_ceil_div(work_items, (size_t)l.threads);
    l.kernel<<<(unsigned)(needed < grid ? needed : grid), l.threads, l.shared_bytes, s>>>(
        reinterpret_cast<const uint32_t *>(text), n, dw->tables, counts);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    const table_launch l = table_launch_for(prefix_kernel<true>, prefix_kernel<false>, false);
    launch_table_kernel(l, (n + 3) / 4, text, n, dw, counts, s);
}

static void launch_v4(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    const table_launch l = table_launch_for(queue_kernel<true>, queue_kernel<false>, true);
    launch_table_kernel(l, cl_ceil_div(n, QUEUE_CHUNK) * 32, text, n, dw, counts, s);
}

// v5 keeps its pair and node tables in shared memory where a block may have
// LONGEST_SHARED_MAX (189 KB: sm_90), and the deep trie too where it fits beside them
// (the vocabulary's 1024 words: 32 KB); otherwise it reads them from global memory
// (the counters and queues stay).
typedef void (*longest_kernel_fn)(const uint32_t *, size_t, const longest_tables *,
                                  unsigned long long *, bool);
struct longest_launch {
    longest_kernel_fn kernel;
    bool shared_tables;
    int warps;
    size_t shared_max; // the most a block may have
};

static longest_launch longest_launch_for()
{
    const size_t optin = cl_device_current()->shared_optin_bytes;
    longest_launch l = {longest_kernel<true>, true, 32, optin};
    if (optin < LONGEST_SHARED_MAX) {
        l = {longest_kernel<false>, false,
             (int)((optin - LONGEST_SHARED_COUNTERS) / LONGEST_QUEUE_BYTES), optin};
        l.warps = l.warps > 32 ? 32 : l.warps;
    }
    return l;
}

static void launch_v5(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    const longest_launch l = longest_launch_for();
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, dw->count * sizeof *counts, s));
    size_t shared = LONGEST_SHARED_COUNTERS + (size_t)l.warps * LONGEST_QUEUE_BYTES;
    if (l.shared_tables)
        shared += PAIR_SLOTS + dw->longest_node_bytes;
    const bool deep_shared = l.shared_tables && shared + dw->longest_deep_bytes <= l.shared_max;
    if (deep_shared)
        shared += dw->longest_deep_bytes;
    cl_kernel_fit_for((const void *)l.kernel, l.warps * 32,
                      shared); // raises the shared-memory allowance
    const size_t grid = (size_t)cl_device_current()->sm_count;
    const size_t needed = cl_ceil_div(cl_ceil_div(n, QUEUE_CHUNK), (size_t)l.warps);
    l.kernel<<<(unsigned)(needed < grid ? needed : grid), l.warps * 32, shared, s>>>(
        reinterpret_cast<const uint32_t *>(text), n, dw->longest, counts, deep_shared);
    CL_LAUNCH_CHECK();
}

// One region a thread of those the SMs hold at once (fit), whole 32-byte sectors; returns
// the blocks, at most those resident. Below 4.3 MB (132 SMs x 1024 threads x 32 bytes) a
// region is one sector and its 32 bytes of warm-up double a thread's work, but every byte
// is a step of a chain of dependent loads (~200 cycles each on a full SM), so more
// threads a shorter chain win: 1 MB runs 31 blocks of 32-byte regions, where regions of
// at least 256 bytes ran 4.
static unsigned automaton_grid(size_t n, const cl_kernel_fit &fit, size_t *region)
{
    const size_t threads = (size_t)fit.resident * AUTOMATON_THREADS;
    *region = ((n + threads - 1) / threads + 31) / 32 * 32;
    const size_t blocks = ((n + *region - 1) / *region + AUTOMATON_THREADS - 1) / AUTOMATON_THREADS;
    return (unsigned)(blocks < (size_t)fit.resident ? blocks : (size_t)fit.resident);
}

static void launch_v6(const uint8_t *text, size_t n, const pm_device_words *dw,
                      unsigned long long *counts, cudaStream_t s)
{
    if (!dw->automaton) {
        if (!dw->automaton_said)
            cl_note("v6-automaton: %s; v5's kernel runs this list", dw->automaton_why);
        dw->automaton_said = true;
        launch_v5(text, n, dw, counts, s);
        return;
    }
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, dw->count * sizeof *counts, s));
    const uint4 *text16 = reinterpret_cast<const uint4 *>(text);
    if (dw->automaton_layout == AUTOMATON_SPLIT) {
        // As many of the shallowest states' rows in shared memory as fit beside the class
        // table and the counters, leaving L1 32 KB more for the deeper rows (on an H200,
        // 1 GB of the 1024 vocabulary words: 1232 rows, so that L1 has 60 KB, not 28, beat
        // the 1480 that fit, and 984 or 735).
        const size_t others = 256 * 32 * 4 + (32 + PM_MAX_WORDS + 1) * 4,
                     optin = cl_device_current()->shared_optin_bytes,
                     room = optin > 64 * 1024 ? optin - 32 * 1024 : optin;
        const size_t row = AUTOMATON_CLASS_ROW * 4;
        size_t fit_states = room > others + 16 ? (room - others - 16) / row : 0;
        fit_states =
            fit_states < (size_t)dw->automaton_states ? fit_states : (size_t)dw->automaton_states;
        const int row_bytes = padded_to_16((int)(fit_states * row));
        const size_t shared = row_bytes + others;
        const cl_kernel_fit fit =
            cl_kernel_fit_for((const void *)automaton_split_kernel, AUTOMATON_THREADS, shared);
        size_t region;
        const unsigned blocks = automaton_grid(n, fit, &region);
        automaton_split_kernel<<<blocks, AUTOMATON_THREADS, shared, s>>>(
            text16, n, region, dw->automaton, (int)fit_states, row_bytes, counts);
        CL_LAUNCH_CHECK();
        return;
    }
    const automaton_layout layout = dw->automaton_layout;
    const auto kernel = layout == AUTOMATON_LANE_COPIES ? automaton_kernel<AUTOMATON_LANE_COPIES>
                        : layout == AUTOMATON_BY_CLASS  ? automaton_kernel<AUTOMATON_BY_CLASS>
                                                        : automaton_kernel<AUTOMATON_BY_BYTE>;
    const size_t shared =
        (size_t)dw->automaton_row_bytes + (layout != AUTOMATON_BY_BYTE ? 256 * 32 * 4 : 0) +
        (size_t)(layout == AUTOMATON_LANE_COPIES ? dw->automaton_states
                                                 : AUTOMATON_SHARED_OUTS_MAX + 1) *
            32 * 4;
    const cl_kernel_fit fit = cl_kernel_fit_for((const void *)kernel, AUTOMATON_THREADS, shared);
    size_t region;
    const unsigned blocks = automaton_grid(n, fit, &region);
    kernel<<<blocks, AUTOMATON_THREADS, shared, s>>>(text16, n, region, dw->automaton,
                                                     dw->automaton_row_bytes, counts);
    CL_LAUNCH_CHECK();
}

extern "C" const pattern_match_version pattern_match_versions[] = {
    {{"v1-course", "the Oxford practical's: one block, a thread a word, text chunks in shared "
                   "memory with the byte-offset 1/2/3 ints precomputed"},
     launch_v1},
    {{"v2-constant", "a thread a text int, every word from constant memory, 4 windows by "
                     "funnel shift, counts in shared memory"},
     launch_v2},
    {{"v3-prefix", "a 2^16-entry table of the first two bytes in shared memory filters each "
                   "position; candidates compared exactly; warp-aggregated counts"},
     launch_v3},
    {{"v4-queue", "v3's filter on 16 bytes a lane, candidates queued per warp and compared "
                  "by all 32 lanes at once"},
     launch_v4},
    {{"v5-longest", "the longest word at each position from a byte table of the first two "
                    "bytes; only where a 3-byte or longer word may start, a queued trie walk"},
     launch_v5},
    {{"v6-automaton", "Aho-Corasick's automaton as a full table in shared memory: a thread "
                      "scans its region byte by byte, a load a byte and a count a byte or "
                      "two (a row a state by byte class, a copy of the table a lane so a "
                      "warp's loads never share a bank, two lanes loading a text sector "
                      "together; by byte or one shared copy where that does not fit; for "
                      "big lists the shallowest states' rows in shared memory, the rest "
                      "from L1/L2)"},
     launch_v6},
    {{"yours", pattern_match_yours_idea}, pattern_match_yours},
};
extern "C" const int pattern_match_version_count =
    sizeof pattern_match_versions / sizeof pattern_match_versions[0];
extern "C" const char pattern_match_fastest_version[] = "v6-automaton";
