// yours: your pattern matcher: counts[w] = how often word w occurs in the text, at every
// byte position, overlapping occurrences included. `bin/pattern_match -k yours` runs and
// verifies it, `make check_pattern_match K=yours` scores it against the faster of the
// default version and the Oxford practical's one-block design (v1-course). Edit only this
// file.
//
// What is here: a thread a text position, a plain loop over the words comparing byte by
// byte, one global atomicAdd a match. Correct, and already much faster than one block,
// but every position reads every word and every match contends for one counter.
// Things to try (the ladder in README.md has the times at 1 GB):
//  - pack 4 bytes in an int as the practical does and compare a word's first 4 bytes at
//    once (a funnel shift gives the unaligned ones: __funnelshift_r(lo, hi, 8 * k));
//  - count in shared memory and add each block's counts once at the end (v2);
//  - stop comparing every word at every position: a table indexed by the first two
//    bytes says which words can start there (v3, v4).
#include <stdint.h>

#include "check.h"
#include "pattern_match.h"

extern "C" const char pattern_match_yours_idea[] =
    "your kernel (pattern_match/yours.cu): a thread a position, a loop over the words";

enum { YOURS_THREADS = 256 };

__global__ void pattern_match_yours_kernel(const uint8_t *text, size_t n, const pm_words *words,
                                           int nwords, unsigned long long *counts)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    for (int w = 0; w < nwords; w++) {
        const int len = words->len[w];
        if (len > n - p)
            continue; // the word would run past the end of the text
        bool match = true;
        for (int i = 0; i < len && match; i++) // byte i is in the low bits of int i / 4
            match = text[p + i] == (uint8_t)(words->packed[w][i / 4] >> (8 * (i % 4)));
        if (match)
            atomicAdd(&counts[w], 1ull);
    }
}

extern "C" void pattern_match_yours(const uint8_t *text, size_t n, const pm_device_words *dw,
                                    unsigned long long *counts, cudaStream_t stream)
{
    const int nwords = pm_device_words_count(dw);
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, nwords * sizeof *counts, stream));
    const unsigned blocks = (unsigned)((n + YOURS_THREADS - 1) / YOURS_THREADS);
    pattern_match_yours_kernel<<<blocks, YOURS_THREADS, 0, stream>>>(
        text, n, pm_device_words_list(dw), nwords, counts);
    CL_LAUNCH_CHECK();
}
