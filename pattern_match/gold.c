// pattern_match's CPU gold: a byte trie of the words, walked from every text position.
// Independent of the GPU's method (packed ints compared 4 bytes at a time): a walk
// follows one byte a step and stops where no word continues, so each position costs
// about the length of the longest word prefix found there.
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pattern_match.h"

typedef struct {
    int32_t (*child)[256]; // child[node][byte]: the node one byte further, 0 for none
    int32_t *word_end;     // the distinct word that ends at a node, -1 for none
    int nodes, distinct;
} trie;

static trie build_trie(const pm_words *words, int32_t *distinct_of)
{
    int max_nodes = 1;
    for (int w = 0; w < words->count; w++)
        max_nodes += words->len[w];
    trie t = {.nodes = 1};
    t.child = calloc((size_t)max_nodes, sizeof *t.child);
    t.word_end = malloc((size_t)max_nodes * sizeof *t.word_end);
    if (!t.child || !t.word_end)
        cl_die(CL_EXIT_CUDA, "out of host memory for the word trie (%d nodes)", max_nodes);
    for (int i = 0; i < max_nodes; i++)
        t.word_end[i] = -1;
    for (int w = 0; w < words->count; w++) {
        int node = 0;
        for (int i = 0; i < words->len[w]; i++) {
            uint8_t b = pm_word_byte(words, w, i);
            if (!t.child[node][b])
                t.child[node][b] = t.nodes++;
            node = t.child[node][b];
        }
        if (t.word_end[node] < 0)
            t.word_end[node] = t.distinct++; // a repeated word shares its first copy's count
        distinct_of[w] = t.word_end[node];
    }
    return t;
}

void pattern_match_gold(const uint8_t *text, size_t n, const pm_words *words, uint64_t *counts)
{
    int32_t distinct_of[PM_MAX_WORDS];
    trie t = build_trie(words, distinct_of);
    uint64_t found[PM_MAX_WORDS] = {0};
#pragma omp parallel
    {
        uint64_t mine[PM_MAX_WORDS] = {0};
#pragma omp for schedule(static)
        for (size_t p = 0; p < n; p++) {
            int node = 0;
            for (size_t i = p; i < n; i++) {
                node = t.child[node][text[i]];
                if (!node)
                    break;
                if (t.word_end[node] >= 0)
                    mine[t.word_end[node]]++;
            }
        }
#pragma omp critical
        for (int d = 0; d < t.distinct; d++)
            found[d] += mine[d];
    }
    for (int w = 0; w < words->count; w++)
        counts[w] = found[distinct_of[w]];
    free(t.child);
    free(t.word_end);
}
