// pattern_match's inputs: word lists (the default, --words, --words-file, --nwords) and
// texts (the synthetic English-like text, --text).
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "pattern_match.h"
#include "rng.h"

// --- word lists -------------------------------------------------------------------------

int pm_words_add(pm_words *words, const uint8_t *bytes, size_t len, char *err, size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "word %d is empty", words->count + 1);
        return -1;
    }
    if (len > PM_MAX_WORD_BYTES) {
        snprintf(err, errlen, "word %d is %zu bytes long, over the %d a word can have",
                 words->count + 1, len, PM_MAX_WORD_BYTES);
        return -1;
    }
    if (words->count == PM_MAX_WORDS) {
        snprintf(err, errlen, "more than %d words", PM_MAX_WORDS);
        return -1;
    }
    int w = words->count++;
    words->len[w] = (uint8_t)len;
    memset(words->packed[w], 0, sizeof words->packed[w]);
    for (size_t i = 0; i < len; i++)
        words->packed[w][i / 4] |= (uint32_t)bytes[i] << (8 * (i % 4));
    return 0;
}

int pm_words_parse_list(const char *list, pm_words *words, char *err, size_t errlen)
{
    words->count = 0;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (pm_words_add(words, (const uint8_t *)p, len, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

// Reads a whole file ("-": standard input) into a malloc'd buffer of
// pm_text_buffer_bytes(*n) bytes, zero past the file's (so a text needs no second,
// padded copy): returns 0, or -1 with the reason in err (missing, unreadable, over
// max_bytes); *n = 0 for an empty file. Reads until the end of the file, so pipes and
// /proc files (whose size stat gives as 0) read whole; a regular file's size is one
// allocation.
static int read_whole_file(const char *path, size_t max_bytes, uint8_t **data, size_t *n, char *err,
                           size_t errlen)
{
    const bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    const char *name = from_stdin ? "standard input" : path;
    struct stat st;
    size_t capacity = 1 << 20;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        capacity = (size_t)st.st_size + 1; // + 1: the read that finds the end
    if (capacity > max_bytes + 1)
        capacity = max_bytes + 1;
    uint8_t *buf = cl_host_alloc(pm_text_buffer_bytes(capacity), name);
    size_t got = 0;
    for (;;) {
        got += fread(buf + got, 1, capacity - got, f);
        if (got < capacity || got > max_bytes)
            break;
        capacity = capacity > max_bytes / 2 ? max_bytes + 1 : 2 * capacity;
        uint8_t *grown = realloc(buf, pm_text_buffer_bytes(capacity));
        if (!grown)
            cl_die(CL_EXIT_CUDA, "needs %zu bytes of host memory for %s", capacity, name);
        buf = grown;
    }
    const bool failed = ferror(f) != 0;
    const int read_errno = errno;
    if (!from_stdin)
        fclose(f);
    if (failed || got > max_bytes) {
        if (failed)
            snprintf(err, errlen, "cannot read %s: %s", name, strerror(read_errno));
        else
            snprintf(err, errlen, "%s is over the %zu bytes it may have", name, max_bytes);
        free(buf);
        return -1;
    }
    memset(buf + got, 0, pm_text_buffer_bytes(capacity) - got);
    *data = buf;
    *n = got;
    return 0;
}

int pm_words_read_file(const char *path, pm_words *words, char *err, size_t errlen)
{
    uint8_t *data;
    size_t n;
    // 1024 lines of 32 bytes with CR LF endings fit in 35 KB; 1 MiB is a generous cap.
    if (read_whole_file(path, (size_t)1 << 20, &data, &n, err, errlen) != 0)
        return -1;
    words->count = 0;
    int status = 0;
    size_t line_number = 1;
    for (size_t at = 0; at < n && status == 0; line_number++) {
        const uint8_t *end = memchr(data + at, '\n', n - at);
        size_t next = end ? (size_t)(end - data) + 1 : n;
        size_t len = (end ? (size_t)(end - data) : n) - at;
        if (len > 0 && data[at + len - 1] == '\r')
            len--;
        char why[160];
        if (pm_words_add(words, data + at, len, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s line %zu: %s", path, line_number, why);
            status = -1;
        }
        at = next;
    }
    if (status == 0 && words->count == 0) {
        snprintf(err, errlen, "%s holds no words", path);
        status = -1;
    }
    free(data);
    return status;
}

void pm_words_default(pm_words *words)
{
    static const char *const list[] = {
        "cuti", "gold", "text", "word", "the",  "of",   "and",  "a",   "to",  "in",   "is",
        "you",  "that", "it",   "he",   "was",  "for",  "on",   "are", "as",  "with", "his",
        "they", "I",    "at",   "be",   "this", "have", "from", "or",  "one", "had",
    };
    char err[160];
    words->count = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (pm_words_add(words, (const uint8_t *)list[i], strlen(list[i]), err, sizeof err) != 0)
            cl_die(CL_EXIT_CUDA, "default word list: %s", err);
}

void pm_words_vocabulary(int k, pm_words *words)
{
    char word[PM_MAX_WORD_BYTES + 1], err[160];
    words->count = 0;
    for (int i = 0; i < k; i++) {
        int len = pm_vocabulary_word((int)((long)i * PM_VOCABULARY / k), word);
        if (pm_words_add(words, (const uint8_t *)word, (size_t)len, err, sizeof err) != 0)
            cl_die(CL_EXIT_CUDA, "vocabulary word list: %s", err);
    }
}

void pm_words_describe(const pm_words *words, int max, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int w = 0; w < words->count && w < max && at + 8 < len; w++) {
        if (w > 0)
            out[at++] = ' ';
        for (int i = 0; i < words->len[w] && at + 6 < len; i++) {
            uint8_t b = pm_word_byte(words, w, i);
            at += (size_t)snprintf(out + at, len - at, b > 32 && b < 127 ? "%c" : "\\x%02x", b);
        }
    }
    if (words->count > max && at + 5 < len)
        snprintf(out + at, len - at, " ...");
}

// --- the synthetic text -------------------------------------------------------------------

// The 100 most common words of written English (Fry's list), the vocabulary's first ranks.
static const char *const common_english[] = {
    "the",   "of",   "and",   "a",     "to",    "in",     "is",   "you",  "that",  "it",
    "he",    "was",  "for",   "on",    "are",   "as",     "with", "his",  "they",  "I",
    "at",    "be",   "this",  "have",  "from",  "or",     "one",  "had",  "by",    "word",
    "but",   "not",  "what",  "all",   "were",  "we",     "when", "your", "can",   "said",
    "there", "use",  "an",    "each",  "which", "she",    "do",   "how",  "their", "if",
    "will",  "up",   "other", "about", "out",   "many",   "then", "them", "these", "so",
    "some",  "her",  "would", "make",  "like",  "him",    "into", "time", "has",   "look",
    "two",   "more", "write", "go",    "see",   "number", "no",   "way",  "could", "people",
    "my",    "than", "first", "water", "been",  "call",   "who",  "oil",  "its",   "now",
    "find",  "long", "down",  "day",   "did",   "get",    "come", "made", "may",   "part",
};
enum { COMMON_ENGLISH = sizeof common_english / sizeof common_english[0] };

// Syllables the other ranks are built from (a fixed draw, not -S: the vocabulary is
// the same in every run).
static const char *const syllables[] = {
    "ba",  "ter",  "in",  "con", "al",  "de",  "ly", "tion", "ment", "ing", "er", "re",  "pro",
    "com", "ex",   "per", "un",  "dis", "ad",  "ar", "en",   "es",   "or",  "ic", "ous", "ful",
    "ble", "ness", "ate", "ive", "ist", "ure", "ma", "no",   "si",   "lo",  "ra", "ti",  "ven",
    "st",  "ch",   "th",  "qu",  "ph",  "wr",  "o",  "e",    "an",   "ow",  "ea",
};
enum { SYLLABLES = sizeof syllables / sizeof syllables[0] };
static const uint64_t vocabulary_seed = 0x5041545445524eULL; // "PATTERN"

int pm_vocabulary_word(int rank, char out[PM_MAX_WORD_BYTES + 1])
{
    // The practical's words "gold" and "text" are common enough to be counted.
    if (rank == 150 || rank == 220) {
        strcpy(out, rank == 150 ? "gold" : "text");
        return 4;
    }
    if (rank < COMMON_ENGLISH) {
        strcpy(out, common_english[rank]);
        return (int)strlen(out);
    }
    // Every 64th rank (from 8) a long compound of 17..32 bytes, so lists of vocabulary
    // words hold every length up to 32; the others 1 to 5 syllables.
    uint64_t key = cl_rng_key(vocabulary_seed, (uint64_t)rank);
    int target = rank % 64 == 8 ? 17 + (rank / 64) % 16 : 0;
    int parts = target ? 16 : 1 + (int)cl_rng_below(key, 0, 5);
    int len = 0;
    for (int s = 0; s < parts && (target == 0 || len < target); s++) {
        const char *syl = syllables[cl_rng_below(key, 1 + (uint64_t)s, SYLLABLES)];
        for (const char *c = syl; *c && len < PM_MAX_WORD_BYTES; c++)
            out[len++] = *c;
    }
    if (target && len > target)
        len = target;
    out[len] = '\0';
    return len;
}

typedef struct {
    char word[PM_MAX_WORD_BYTES + 1];
    int len;
} vocabulary_entry;

// The vocabulary and Zipf's cumulative distribution over its ranks, built once.
static vocabulary_entry vocabulary[PM_VOCABULARY];
static double zipf_cdf[PM_VOCABULARY];

static void build_vocabulary(void)
{
    if (vocabulary[0].len)
        return;
    double total = 0;
    for (int r = 0; r < PM_VOCABULARY; r++) {
        vocabulary[r].len = pm_vocabulary_word(r, vocabulary[r].word);
        total += 1.0 / (r + 1);
        zipf_cdf[r] = total;
    }
    for (int r = 0; r < PM_VOCABULARY; r++)
        zipf_cdf[r] /= total;
}

// The rank whose cumulative probability first reaches u.
static int zipf_rank(double u)
{
    int lo = 0, hi = PM_VOCABULARY - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (zipf_cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

enum { TEXT_CHUNK = 1 << 16 };

// One 64 KiB chunk: words and separators until it is full (the last word cut short);
// a chunk starts a sentence.
static void synthetic_chunk(uint8_t *out, size_t len, uint64_t key)
{
    size_t at = 0;
    uint64_t draw = 0;
    int capital = 1;
    while (at < len) {
        const vocabulary_entry *v = &vocabulary[zipf_rank(cl_rng_uniform_f64(key, draw++))];
        for (int i = 0; i < v->len && at < len; i++) {
            char c = v->word[i];
            out[at++] = (uint8_t)(i == 0 && capital && c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        }
        uint32_t r = cl_rng_below(key, draw++, 100);
        const char *sep = r < 84 ? " " : r < 90 ? ", " : r < 95 ? ". " : "\n";
        capital = r >= 90 && r < 95;
        for (const char *c = sep; *c && at < len; c++)
            out[at++] = (uint8_t)*c;
    }
}

void pm_text_synthetic(uint8_t *text, size_t n, uint64_t seed)
{
    build_vocabulary();
    long chunks = (long)((n + TEXT_CHUNK - 1) / TEXT_CHUNK);
#pragma omp parallel for schedule(dynamic, 16)
    for (long c = 0; c < chunks; c++) {
        size_t first = (size_t)c * TEXT_CHUNK;
        size_t len = n - first < TEXT_CHUNK ? n - first : TEXT_CHUNK;
        synthetic_chunk(text + first, len, cl_rng_key(seed, (uint64_t)c));
    }
}

// --- a text file ----------------------------------------------------------------------------

int pm_text_read_file(const char *path, size_t max_bytes, uint8_t **text, size_t *n, char *err,
                      size_t errlen)
{
    if (read_whole_file(path, max_bytes, text, n, err, errlen) != 0)
        return -1;
    if (*n == 0) {
        snprintf(err, errlen, "%s is empty: there is no text to search",
                 strcmp(path, "-") == 0 ? "standard input" : path);
        free(*text);
        return -1;
    }
    return 0;
}
