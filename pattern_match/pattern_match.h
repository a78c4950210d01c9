// pattern_match: how often each word of a list occurs in a text, every byte position,
// overlapping occurrences included. The C interface between main.c, inputs.c, gold.c
// and pattern_match.cu (tables.h: the tables the kernels read, built by tables.c).
#ifndef PATTERN_MATCH_H
#define PATTERN_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    PM_MAX_WORD_BYTES = 32,
    PM_MAX_WORDS = 1024,
    PM_WORD_INTS = PM_MAX_WORD_BYTES / 4,
    // The device text buffer holds the n text bytes, then zero bytes up to a multiple of
    // 16 and PM_TEXT_PAD more: kernels may read a whole int or 16-byte vector past the
    // end and a word's 32 bytes from any position without a bounds check on the load
    // (never on the count: a match needs its last byte below n).
    PM_TEXT_PAD = 64,
};

// A word list. Word w is len[w] bytes, packed 4 a 32-bit int as the Oxford practical
// packs them (the first byte in the low 8 bits: "gold" = 'g' + 'o'*256 + 'l'*256^2 +
// 'd'*256^3), zero past its length. The same word may appear twice (each gets a count).
typedef struct {
    int count;
    uint8_t len[PM_MAX_WORDS];
    uint32_t packed[PM_MAX_WORDS][PM_WORD_INTS];
} pm_words;

// Byte i of a packed word.
static inline uint8_t pm_packed_byte(const uint32_t *packed, int i)
{
    return (uint8_t)(packed[i / 4] >> (8 * (i % 4)));
}
// Byte i of word w.
static inline uint8_t pm_word_byte(const pm_words *words, int w, int i)
{
    return pm_packed_byte(words->packed[w], i);
}

// Bytes the device text buffer of an n-byte text takes (n, then the zero padding).
static inline size_t pm_text_buffer_bytes(size_t n) { return (n + 15) / 16 * 16 + PM_TEXT_PAD; }

// --- inputs.c: word lists and texts ---------------------------------------------------

// Appends a word of len bytes; returns 0, or -1 with the reason in err (empty, over
// 32 bytes, the list full).
int pm_words_add(pm_words *words, const uint8_t *bytes, size_t len, char *err, size_t errlen);
// "a,b,c" (--words): returns 0, or -1 with the reason in err.
int pm_words_parse_list(const char *list, pm_words *words, char *err, size_t errlen);
// One word a line, any bytes but newline; a '\r' before the newline is dropped and a
// last line without a newline counts (--words-file). Returns 0, or -1 with the reason.
int pm_words_read_file(const char *path, pm_words *words, char *err, size_t errlen);
// The default list: the practical's four words ("cuti", "gold", "text", "word") and
// 28 of the most common English words, 1 to 4 bytes each.
void pm_words_default(pm_words *words);
// k words of the synthetic text's vocabulary, spread evenly over its frequency ranks
// (the most common first), 1 to 32 bytes (--nwords).
void pm_words_vocabulary(int k, pm_words *words);
// The words as text for a note: "cuti gold text ..." cut at `max` words, bytes outside
// printable ASCII as \xHH.
void pm_words_describe(const pm_words *words, int max, char *out, size_t len);

// The synthetic English-like text: words of a fixed vocabulary of PM_VOCABULARY words
// drawn with Zipf's law (rank r with probability proportional to 1 / (r + 1)),
// separated by spaces, commas, full stops (the next word capitalised) and newlines.
// Deterministic for a seed, whatever the thread count (64 KiB chunks, each its own
// stream of the suite's generator).
enum { PM_VOCABULARY = 4096 };
void pm_text_synthetic(uint8_t *text, size_t n, uint64_t seed);
// Vocabulary word `rank` (0 = the most common): its bytes, returns its length.
int pm_vocabulary_word(int rank, char out[PM_MAX_WORD_BYTES + 1]);

// Reads a whole file (--text) into a malloc'd buffer of pm_text_buffer_bytes(*n) bytes,
// zero past the text as the device copy is; refuses an empty file or one over
// max_bytes. Returns 0, or -1 with the reason in err.
int pm_text_read_file(const char *path, size_t max_bytes, uint8_t **text, size_t *n, char *err,
                      size_t errlen);

// --- gold.c ---------------------------------------------------------------------------

// counts[w] = the occurrences of word w in text[0..n), by walking a byte trie of the
// words from every position (OpenMP over the text).
void pattern_match_gold(const uint8_t *text, size_t n, const pm_words *words, uint64_t *counts);

// --- pattern_match.cu -----------------------------------------------------------------

// The words on the device in every form the versions read (built once a list, before
// timing, as a regular expression is compiled before it runs): the packed words, and
// the prefix tables v3 and v4 filter with.
typedef struct pm_device_words pm_device_words;
pm_device_words *pm_device_words_create(const pm_words *words);
void pm_device_words_destroy(pm_device_words *dw);
// For yours.cu: the packed words on the device (a pm_words in device memory) and how
// many there are.
const pm_words *pm_device_words_list(const pm_device_words *dw);
int pm_device_words_count(const pm_device_words *dw);

// Enqueues: counts[0..words) = each word's occurrences in text[0..n) (a buffer of
// pm_text_buffer_bytes(n) bytes).
typedef void (*pattern_match_launcher)(const uint8_t *text, size_t n, const pm_device_words *dw,
                                       unsigned long long *counts, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    pattern_match_launcher launch;
} pattern_match_version;

extern const pattern_match_version pattern_match_versions[];
extern const int pattern_match_version_count;
extern const char pattern_match_fastest_version[];

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char pattern_match_yours_idea[];
void pattern_match_yours(const uint8_t *text, size_t n, const pm_device_words *dw,
                         unsigned long long *counts, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
