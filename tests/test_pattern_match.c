// Unit tests of pattern_match's CPU gold and inputs: the trie gold against a plain
// memcmp at every position, the word-list and text readers' refusals, and the
// synthetic text's determinism.
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pattern_match.h"
#include "tables.h"
#include "rng.h"
#include "unit.h"

// The obvious count: memcmp at every position where the word fits.
static uint64_t count_by_memcmp(const uint8_t *text, size_t n, const pm_words *words, int w)
{
    uint8_t word[PM_MAX_WORD_BYTES] = {0};
    for (int i = 0; i < words->len[w]; i++)
        word[i] = pm_word_byte(words, w, i);
    uint64_t count = 0;
    for (size_t p = 0; p + words->len[w] <= n; p++)
        count += memcmp(text + p, word, words->len[w]) == 0;
    return count;
}

static int gold_agrees(const uint8_t *text, size_t n, const pm_words *words)
{
    uint64_t counts[PM_MAX_WORDS];
    pattern_match_gold(text, n, words, counts);
    for (int w = 0; w < words->count; w++)
        if (counts[w] != count_by_memcmp(text, n, words, w)) {
            printf("  word %d: gold %llu, memcmp %llu\n", w, (unsigned long long)counts[w],
                   (unsigned long long)count_by_memcmp(text, n, words, w));
            return 0;
        }
    return 1;
}

static pm_words list(const char *csv)
{
    pm_words words;
    char err[160];
    if (pm_words_parse_list(csv, &words, err, sizeof err) != 0)
        printf("  %s: %s\n", csv, err);
    return words;
}

static uint64_t count_of(const char *text, const char *word)
{
    pm_words words = list(word);
    uint64_t count;
    pattern_match_gold((const uint8_t *)text, strlen(text), &words, &count);
    return count;
}

static void test_overlaps_and_edges(void)
{
    EXPECT(count_of("aaaa", "aa") == 3);
    EXPECT(count_of("aaaa", "aaaa") == 1);
    EXPECT(count_of("aaaa", "aaaaa") == 0); // longer than the text
    EXPECT(count_of("gold at the start and the end: gold", "gold") == 2);
    EXPECT(count_of("x", "x") == 1);
    EXPECT(count_of("abcde", "e") == 1); // the last byte; 5 bytes, not a multiple of 4
    EXPECT(count_of("abababa", "aba") == 3);
}

static void test_the_practical_words(void)
{
    pm_words words = list("cuti,gold,text,word");
    const char *text = "the gold text: a word, a word, cutil's gold";
    uint64_t counts[4];
    pattern_match_gold((const uint8_t *)text, strlen(text), &words, counts);
    EXPECT(counts[0] == 1 && counts[1] == 2 && counts[2] == 1 && counts[3] == 2);
}

static void test_duplicates_and_high_bytes(void)
{
    pm_words words = list("ab,ab,b");
    uint8_t high[] = {0xff, 0x80, 0xff, 0x80, 0xff, 'a', 'b'};
    pm_words_add(&words, (const uint8_t[]){0xff, 0x80}, 2, NULL, 0);
    pm_words_add(&words, (const uint8_t[]){0x80, 0xff, 0x80, 0xff, 'a'}, 5, NULL, 0);
    uint64_t counts[5];
    pattern_match_gold(high, sizeof high, &words, counts);
    EXPECT(counts[0] == 1 && counts[1] == 1 && counts[2] == 1 && counts[3] == 2 && counts[4] == 1);
}

// Random texts over a small alphabet (many matches, many overlaps) and words cut from
// them (lengths 1..32, so some long ones occur): the trie against memcmp.
static void test_gold_against_memcmp(void)
{
    for (uint64_t trial = 0; trial < 20; trial++) {
        uint64_t key = cl_rng_key(7, trial);
        size_t n = 1 + cl_rng_below(key, 0, 3000);
        uint8_t *text = malloc(n);
        for (size_t i = 0; i < n; i++)
            text[i] = (uint8_t)("ab\xc3\xa9 "[cl_rng_below(key, 1 + i, 5)]);
        pm_words words = {0};
        int nwords = 1 + (int)cl_rng_below(key, 5000, 64);
        for (int w = 0; w < nwords; w++) {
            size_t len = 1 + cl_rng_below(key, 6000 + 2 * (uint64_t)w, 32);
            size_t at = cl_rng_below(key, 6001 + 2 * (uint64_t)w, (uint32_t)n);
            if (len > n - at)
                len = n - at;
            pm_words_add(&words, text + at, len, NULL, 0);
        }
        EXPECT(gold_agrees(text, n, &words));
        free(text);
    }
}

static void test_word_list_refusals(void)
{
    pm_words words;
    char err[160] = "";
    EXPECT(pm_words_parse_list("", &words, err, sizeof err) != 0 && strstr(err, "empty"));
    EXPECT(pm_words_parse_list("a,,b", &words, err, sizeof err) != 0 && strstr(err, "word 2"));
    EXPECT(pm_words_parse_list("a,", &words, err, sizeof err) != 0);
    EXPECT(pm_words_parse_list("abcdefghijklmnopqrstuvwxyz0123456", &words, err, sizeof err) != 0 &&
           strstr(err, "33 bytes"));
    EXPECT(pm_words_parse_list("abcdefghijklmnopqrstuvwxyz012345", &words, err, sizeof err) == 0 &&
           words.count == 1 && words.len[0] == 32);
    char many[1025 * 2];
    for (int i = 0; i < 1025; i++) {
        many[2 * i] = 'a';
        many[2 * i + 1] = ',';
    }
    many[2 * 1025 - 1] = '\0';
    EXPECT(pm_words_parse_list(many, &words, err, sizeof err) != 0 && strstr(err, "1024"));
    many[2 * 1024 - 1] = '\0';
    EXPECT(pm_words_parse_list(many, &words, err, sizeof err) == 0 && words.count == 1024);
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

static void test_files(void)
{
    char dir[] = "/tmp/pattern_match_testXXXXXX";
    if (!mkdtemp(dir)) {
        EXPECT(!"mkdtemp");
        return;
    }
    char path[64], err[256];
    snprintf(path, sizeof path, "%s/words", dir);
    pm_words words;
    write_file(path, "gold\r\ntext\nw\xc3\xb6rd", 16);
    EXPECT(pm_words_read_file(path, &words, err, sizeof err) == 0 && words.count == 3 &&
           words.len[0] == 4 && words.len[1] == 4 && words.len[2] == 5);
    write_file(path, "gold\n\ntext\n", 11);
    EXPECT(pm_words_read_file(path, &words, err, sizeof err) != 0 && strstr(err, "line 2") &&
           strstr(err, "empty"));
    write_file(path, "", 0);
    EXPECT(pm_words_read_file(path, &words, err, sizeof err) != 0 && strstr(err, "no words"));
    snprintf(path, sizeof path, "%s/none", dir);
    EXPECT(pm_words_read_file(path, &words, err, sizeof err) != 0 && strstr(err, "cannot read"));
    uint8_t *text;
    size_t n;
    EXPECT(pm_text_read_file(path, 100, &text, &n, err, sizeof err) != 0 &&
           strstr(err, "cannot read"));
    snprintf(path, sizeof path, "%s/text", dir);
    write_file(path, "", 0);
    EXPECT(pm_text_read_file(path, 100, &text, &n, err, sizeof err) != 0 && strstr(err, "empty"));
    write_file(path, "abc\0def", 7);
    EXPECT(pm_text_read_file(path, 100, &text, &n, err, sizeof err) == 0 && n == 7 &&
           text[3] == 0 && text[6] == 'f');
    if (n == 7)
        free(text);
    EXPECT(pm_text_read_file(path, 6, &text, &n, err, sizeof err) != 0 && strstr(err, "over"));
    remove(path);
    snprintf(path, sizeof path, "%s/words", dir);
    remove(path);
    rmdir(dir);
}

// A child writes `len` bytes (byte i = i * 7) into fd and exits.
static pid_t write_in_child(int fd, size_t len)
{
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        uint8_t chunk[4096];
        for (size_t at = 0; at < len;) {
            size_t k = len - at < sizeof chunk ? len - at : sizeof chunk;
            for (size_t i = 0; i < k; i++)
                chunk[i] = (uint8_t)((at + i) * 7);
            if (write(fd, chunk, k) != (ssize_t)k)
                _exit(1);
            at += k;
        }
        _exit(0);
    }
    return child;
}

static bool holds_pattern(const uint8_t *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (text[i] != (uint8_t)(i * 7))
            return false;
    for (size_t i = n; i < pm_text_buffer_bytes(n); i++)
        if (text[i] != 0)
            return false;
    return true;
}

// A text whose size stat does not give: a named pipe (3 MB, past the first buffer),
// standard input ("-") from a pipe, a pipe over the limit, and a /proc file.
static void test_text_from_pipes(void)
{
    char dir[] = "/tmp/pattern_match_pipeXXXXXX", path[64], err[256];
    uint8_t *text;
    size_t n;
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/fifo", dir);
    EXPECT(mkfifo(path, 0600) == 0);
    const size_t len = 3 * 1000 * 1000 + 17;
    pid_t child = fork();
    if (child == 0) {
        int fd = open(path, O_WRONLY);
        waitpid(write_in_child(fd, len), NULL, 0);
        _exit(0);
    }
    EXPECT(pm_text_read_file(path, 4000000, &text, &n, err, sizeof err) == 0 && n == len &&
           holds_pattern(text, n));
    waitpid(child, NULL, 0);
    if (n == len)
        free(text);
    remove(path);
    rmdir(dir);

    int fds[2];
    EXPECT(pipe(fds) == 0);
    const int saved_stdin = dup(0);
    dup2(fds[0], 0);
    close(fds[0]);
    child = write_in_child(fds[1], 5000);
    close(fds[1]);
    EXPECT(pm_text_read_file("-", 4000000, &text, &n, err, sizeof err) == 0 && n == 5000 &&
           holds_pattern(text, n));
    waitpid(child, NULL, 0);
    if (n == 5000)
        free(text);
    clearerr(stdin);

    EXPECT(pipe(fds) == 0);
    dup2(fds[0], 0);
    close(fds[0]);
    child = write_in_child(fds[1], 3000);
    close(fds[1]);
    EXPECT(pm_text_read_file("-", 2999, &text, &n, err, sizeof err) != 0 && strstr(err, "over") &&
           strstr(err, "standard input"));
    waitpid(child, NULL, 0);
    dup2(saved_stdin, 0);
    close(saved_stdin);
    clearerr(stdin);

    EXPECT(pm_text_read_file("/proc/self/status", 1 << 20, &text, &n, err, sizeof err) == 0 &&
           n > 0 && memcmp(text, "Name:", 5) == 0);
    if (n > 0)
        free(text);
}

static void test_default_and_vocabulary_words(void)
{
    pm_words words;
    pm_words_default(&words);
    EXPECT(words.count == 32);
    int shortest = 32, longest = 0;
    for (int w = 0; w < words.count; w++) {
        shortest = words.len[w] < shortest ? words.len[w] : shortest;
        longest = words.len[w] > longest ? words.len[w] : longest;
    }
    EXPECT(shortest == 1 && longest == 4);
    EXPECT(words.packed[1][0] == ('g' | 'o' << 8 | 'l' << 16 | (uint32_t)'d' << 24));
    pm_words_vocabulary(1024, &words);
    int seen[PM_MAX_WORD_BYTES + 1] = {0};
    for (int w = 0; w < words.count; w++)
        seen[words.len[w]] = 1;
    int lengths = 0;
    for (int len = 1; len <= PM_MAX_WORD_BYTES; len++)
        lengths += seen[len];
    EXPECT(words.count == 1024 && seen[1] && seen[32] && lengths >= 28);
}

static void test_synthetic_text(void)
{
    const size_t n = 300000;
    uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);
    pm_text_synthetic(a, n, 1);
    pm_text_synthetic(b, 100001, 1); // a prefix: chunks do not depend on the length
    pm_text_synthetic(c, n, 2);
    EXPECT(memcmp(a, b, 100001) == 0);
    EXPECT(memcmp(a, c, n) != 0);
    size_t spaces = 0, odd = 0;
    for (size_t i = 0; i < n; i++) {
        spaces += a[i] == ' ';
        odd += !(a[i] == '\n' || (a[i] >= 32 && a[i] < 127));
    }
    EXPECT(odd == 0 && spaces > n / 10 && spaces < n / 3);
    pm_words words;
    pm_words_default(&words);
    uint64_t counts[32];
    pattern_match_gold(a, n, &words, counts);
    EXPECT(counts[4] > counts[5] && counts[5] > 100); // "the" before "of", both common
    EXPECT(gold_agrees(a, 20000, &words));
    free(a);
    free(b);
    free(c);
}

// --- v5's tables (tables.c) -------------------------------------------------------------

// Word lists the tables must hold: the default words, 1024 of the vocabulary's (words
// of 1..32 bytes sharing long prefixes), nested a/b words of 1..32 bytes (a word ending
// at every depth, deep tries under one 4-byte node), 1024 random a/b words of 32 bytes
// (7 deep levels each, thousands of deep nodes: many cuckoo evictions).
static void word_list(int which, pm_words *words)
{
    char err[128];
    uint8_t w[PM_MAX_WORD_BYTES];
    words->count = 0;
    if (which == 0)
        pm_words_default(words);
    else if (which == 1)
        pm_words_vocabulary(PM_MAX_WORDS, words);
    else if (which == 2) {
        for (int len = 1; len <= 32; len++) {
            memset(w, 'a', (size_t)len);
            EXPECT(pm_words_add(words, w, (size_t)len, err, sizeof err) == 0);
            if (len > 1) {
                w[len - 1] = 'b';
                EXPECT(pm_words_add(words, w, (size_t)len, err, sizeof err) == 0);
                w[len - 1] = 'a';
                w[len / 2] = 'b';
                EXPECT(pm_words_add(words, w, (size_t)len, err, sizeof err) == 0);
            }
        }
    } else {
        uint64_t key = cl_rng_key(7, 0);
        for (int k = 0; k < PM_MAX_WORDS; k++) {
            for (int i = 0; i < 32; i++)
                w[i] = cl_rng_u64(key, (uint64_t)k * 32 + (uint64_t)i) & 1 ? 'a' : 'b';
            EXPECT(pm_words_add(words, w, 32, err, sizeof err) == 0);
        }
    }
}

// Does word a (la bytes, packed) start with word b (lb bytes)? Byte by byte.
static bool word_starts_with(const uint32_t *a, int la, const uint32_t *b, int lb)
{
    if (lb > la)
        return false;
    for (int i = 0; i < lb; i++)
        if ((uint8_t)(a[i / 4] >> (8 * (i % 4))) != (uint8_t)(b[i / 4] >> (8 * (i % 4))))
            return false;
    return true;
}

// Every occupied slot of a cuckoo table is one of its node's two slots; returns how
// many are occupied.
static int occupied_slots(const uint2 *slots, const node_hash *h, uint32_t tag_mask)
{
    int occupied = 0;
    for (int s = 0; s < h->slots; s++) {
        if (!slots[s].y)
            continue;
        occupied++;
        const uint32_t tag = slots[s].y & tag_mask;
        EXPECT(node_slot(slots[s].x, tag, 0, h) == (uint32_t)s ||
               node_slot(slots[s].x, tag, 1, h) == (uint32_t)s);
    }
    return occupied;
}

// For each list: every trie node of depth 2..4 is found by the kernels' lookup with the
// longest word within it; every word of 5 bytes or more is found level by level in
// the deep trie, its last node marked as its end; the pair table queues every word of
// 3 bytes or more; no node is lost or placed twice.
static void test_longest_tables(void)
{
    static pm_words words;
    static longest_tables t;
    char err[160];
    for (int which = 0; which < 4; which++) {
        word_list(which, &words);
        if (pm_build_longest_tables(&words, &t, err, sizeof err) != 0) {
            printf("  word list %d: %s\n", which, err);
            EXPECT(!"v5's tables built");
            continue;
        }
        int len[PM_MAX_WORDS];
        for (int w = 0; w < words.count; w++)
            len[t.rank_of[w]] = words.len[w];
        int shallow_nodes = 0;
        for (int r = 0; r < t.ranks; r++) {
            if (len[r] >= 3)
                EXPECT(t.pair[pair_index(t.packed[r][0] & 0xffffu)] >= PAIR_QUEUE);
            for (int d = 2; d <= len[r] && d <= 4; d++) {
                const uint32_t key = t.packed[r][0] & first_int_mask(d);
                const uint32_t info =
                    find_node(t.nodes, &t.node_hash, key,
                              NODE_OCCUPIED | (uint32_t)(d - 1) << NODE_DEPTH_SHIFT, NODE_TAG_MASK);
                EXPECT(info != 0);
                int best = -1; // the longest word of d bytes or fewer that word r starts with
                for (int s = 0; s < t.ranks; s++)
                    if (len[s] <= d && (best < 0 || len[s] > len[best]) &&
                        word_starts_with(t.packed[r], d, t.packed[s], len[s]))
                        best = s;
                EXPECT((info & NODE_RANK_MASK) == (uint32_t)(best + 1));
                bool first_with_these_bytes = true; // count each node once
                for (int s = 0; s < r && first_with_these_bytes; s++)
                    if (len[s] >= d && (t.packed[s][0] & first_int_mask(d)) == key)
                        first_with_these_bytes = false;
                shallow_nodes += first_with_these_bytes;
            }
            if (len[r] < 5)
                continue;
            const uint32_t info4 = find_node(t.nodes, &t.node_hash, t.packed[r][0],
                                             NODE_OCCUPIED | 3u << NODE_DEPTH_SHIFT, NODE_TAG_MASK);
            EXPECT(info4 & NODE_DEEPER);
            uint32_t parent = info4 >> NODE_ID_SHIFT & DEEP_ID_MASK, node = 0;
            for (int k = 1; 4 * k < len[r]; k++) {
                const int j = len[r] - 4 * k < 4 ? len[r] - 4 * k : 4;
                node =
                    find_node(t.deep, &t.deep_hash, t.packed[r][k] & first_int_mask(j),
                              NODE_OCCUPIED | (uint32_t)(k - 1) << DEEP_LEVEL_SHIFT |
                                  (uint32_t)(j - 1) << DEEP_J_SHIFT | parent << DEEP_PARENT_SHIFT,
                              DEEP_TAG_MASK);
                EXPECT(node != 0);
                parent = node & DEEP_ID_MASK;
            }
            EXPECT((node & DEEP_ENDS) && (node & DEEP_ID_MASK) == (uint32_t)r);
        }
        EXPECT(occupied_slots(t.nodes, &t.node_hash, NODE_TAG_MASK) == shallow_nodes);
        EXPECT(occupied_slots(t.deep, &t.deep_hash, DEEP_TAG_MASK) == t.deep_nodes);
        if (unit_current_failed)
            printf("  word list %d: %d ranks, %d deep nodes\n", which, t.ranks, t.deep_nodes);
    }
}

// v6's automaton, scanned on the host region by region as the kernel does (warm-up
// included), agrees with the gold: lists of overlapping words (every word that ends
// at a byte, nested in the longest), duplicates, high and zero bytes, random texts
// over small alphabets (many matches), sizes around the regions' edges; and lists past
// the automaton's limits are refused with the reason.
static void test_automaton(void)
{
    static automaton_tables t;
    char err[160];
    int layouts[AUTOMATON_LAYOUTS] = {0}; // the trials' layouts: each tested
    for (uint64_t trial = 0; trial < 60; trial++) {
        const uint64_t key = cl_rng_key(11, trial);
        static const size_t sizes[] = {1, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 3000, 100003};
        const size_t n = sizes[trial % 12];
        const char *alphabet = trial % 3 == 0 ? "ab" : trial % 3 == 1 ? "ab\xc3\xa9 \0" : "abcd ";
        const size_t letters = trial % 3 == 1 ? 6 : strlen(alphabet);
        uint8_t *text = malloc(n);
        for (size_t i = 0; i < n; i++)
            text[i] = (uint8_t)alphabet[cl_rng_below(key, 1 + i, (uint32_t)letters)];
        pm_words words = {0};
        if (trial % 4 == 3)
            pm_words_default(&words);
        else {
            // Every fourth list long enough for rows by class (over 96 states), the rest
            // mostly rows by byte.
            const bool many = trial % 4 == 1;
            // Every eighth list 200 .. 300 words of 3 .. 11 bytes: over 127 distinct words
            // (and 1241 states), the split layout.
            const bool split = trial % 8 == 2;
            const int nwords = split  ? 200 + (int)cl_rng_below(key, 5000, 100)
                               : many ? 20 + (int)cl_rng_below(key, 5000, 40)
                                      : 1 + (int)cl_rng_below(key, 5000, 40);
            for (int w = 0; w < nwords; w++) {
                uint8_t word[PM_MAX_WORD_BYTES];
                const size_t len = (many    ? 8
                                    : split ? 3
                                            : 1) +
                                   cl_rng_below(key, 6000 + 2 * (uint64_t)w, w % 2 ? 4 : 9);
                for (size_t i = 0; i < len; i++)
                    word[i] = (uint8_t)
                        alphabet[cl_rng_below(key, 7000 + 64 * (uint64_t)w + i, (uint32_t)letters)];
                EXPECT(pm_words_add(&words, word, len, err, sizeof err) == 0);
            }
        }
        // Half the lists without a copy a lane, so that rows by byte are tested too.
        const int allowed =
            trial % 2 ? AUTOMATON_ANY : AUTOMATON_ANY & ~(1 << AUTOMATON_LANE_COPIES);
        if (pm_build_automaton(&words, allowed, &t, err, sizeof err) != 0) {
            printf("  trial %d: %s\n", (int)trial, err);
            EXPECT(!"the automaton built");
            free(text);
            continue;
        }
        layouts[t.layout]++;
        uint64_t *gold = malloc(words.count * sizeof *gold),
                 *got = malloc(words.count * sizeof *got);
        pattern_match_gold(text, n, &words, gold);
        static const size_t regions[] = {16, 32, 48, 1024};
        for (int r = 0; r < 4; r++) {
            pm_automaton_count(&t, text, n, regions[r], got);
            bool same = memcmp(gold, got, words.count * sizeof *gold) == 0;
            EXPECT(same);
            if (!same)
                printf("  trial %d, n %zu, regions of %zu: counts differ\n", (int)trial, n,
                       regions[r]);
        }
        free(gold);
        free(got);
        free(text);
    }
    printf("  layouts of the 60 lists: %d by byte, %d by class, %d split, %d a copy a lane\n",
           layouts[AUTOMATON_BY_BYTE], layouts[AUTOMATON_BY_CLASS], layouts[AUTOMATON_SPLIT],
           layouts[AUTOMATON_LANE_COPIES]);
    EXPECT(layouts[AUTOMATON_BY_BYTE] >= 10 && layouts[AUTOMATON_BY_CLASS] >= 8 &&
           layouts[AUTOMATON_SPLIT] >= 5 && layouts[AUTOMATON_LANE_COPIES] >= 10);
    // 100 vocabulary words on the synthetic text: rows by class (507 states, 23 bytes).
    static pm_words words;
    pm_words_vocabulary(100, &words);
    EXPECT(pm_build_automaton(&words, AUTOMATON_ANY, &t, err, sizeof err) == 0 &&
           t.layout == AUTOMATON_BY_CLASS);
    const size_t n = 200003;
    uint8_t *text = calloc(pm_text_buffer_bytes(n), 1);
    pm_text_synthetic(text, n, 5);
    uint64_t gold[100], got[100];
    pattern_match_gold(text, n, &words, gold);
    pm_automaton_count(&t, text, n, 256, got);
    EXPECT(memcmp(gold, got, sizeof gold) == 0);
    free(text);
    // 1024 vocabulary words: the split layout (5457 states), on the synthetic text.
    static pm_words many_words;
    pm_words_vocabulary(PM_MAX_WORDS, &many_words);
    EXPECT(pm_build_automaton(&many_words, AUTOMATON_ANY, &t, err, sizeof err) == 0 &&
           t.layout == AUTOMATON_SPLIT);
    {
        const size_t n = 300007;
        uint8_t *text = calloc(pm_text_buffer_bytes(n), 1);
        pm_text_synthetic(text, n, 6);
        uint64_t *gold = malloc(PM_MAX_WORDS * sizeof *gold),
                 *got = malloc(PM_MAX_WORDS * sizeof *got);
        pattern_match_gold(text, n, &many_words, gold);
        pm_automaton_count(&t, text, n, 1024, got);
        EXPECT(memcmp(gold, got, PM_MAX_WORDS * sizeof *gold) == 0);
        free(gold);
        free(got);
        free(text);
    }
    // Past the limits: too many states with too many distinct bytes.
    words.count = 0;
    for (int w = 0; w < 20; w++) { // 641 states
        uint8_t word[PM_MAX_WORD_BYTES];
        for (int i = 0; i < PM_MAX_WORD_BYTES; i++)
            word[i] = (uint8_t)cl_rng_u64(cl_rng_key(13, (uint64_t)w), (uint64_t)i);
        EXPECT(pm_words_add(&words, word, sizeof word, err, sizeof err) == 0);
    }
    EXPECT(pm_build_automaton(&words, AUTOMATON_ANY, &t, err, sizeof err) != 0 &&
           strstr(err, "distinct bytes"));
}

// v6's kernels' shared-memory layout, on the host: the kernels' own address helpers
// (tables.h) on a simulated block (the rows placed at a window address past a reserved
// KB, the class table's lane copies, the counters), a lane a region, against the gold.
static uint8_t sim_shared[256 * 1024];
static uint32_t sim_load(uint32_t address)
{
    uint32_t v;
    memcpy(&v, sim_shared + address, 4);
    return v;
}
static void sim_store(uint32_t address, uint32_t v) { memcpy(sim_shared + address, &v, 4); }
static uint32_t sim_load16(uint32_t address)
{
    uint16_t v;
    memcpy(&v, sim_shared + address, 2);
    return v;
}
static void sim_store16(uint32_t address, uint32_t v)
{
    const uint16_t h = (uint16_t)v;
    memcpy(sim_shared + address, &h, 2);
}
static void sim_add(uint32_t address) { sim_store(address, sim_load(address) + 1); }

static void automaton_on_simulated_block(const automaton_tables *t, const uint8_t *text, size_t n,
                                         size_t region, uint64_t *counts)
{
    memset(sim_shared, 0, sizeof sim_shared);
    const uint32_t table = 0x400;
    const bool split = t->layout == AUTOMATON_SPLIT, lanes = t->layout == AUTOMATON_LANE_COPIES;
    const int shared_states = split ? (t->states < 600 ? t->states : 600) : t->states;
    const int entries = shared_states * t->row_entries;
    const uint32_t row_bytes = (uint32_t)padded_to_16(entries * (lanes ? 64 : 4));
    for (int i = 0; i < entries; i++)
        if (lanes)
            for (uint32_t lane = 0; lane < 32; lane++)
                sim_store16(automaton_lane_slot(table, lane, (uint32_t)i), t->next[i]);
        else
            sim_store(table + 4u * (uint32_t)i,
                      split ? t->next[i] : automaton_placed(t->next[i], table));
    const uint32_t class_table = table + row_bytes;
    if (t->classes) // split: the class; by class: 4 x the class; a copy a lane: its slot
        for (uint32_t i = 0; i < 256 * 32; i++) {
            const uint32_t c = t->class_of[i / 32];
            sim_store(class_table + 4u * i, lanes   ? automaton_lane_slot(table, i % 32, c)
                                            : split ? c
                                                    : 4u * c);
        }
    const uint32_t counters = class_table + (t->classes ? 256 * 32 * 4 : 0);
    for (size_t r = 0, start = 0; start < n; r++, start += region) {
        const uint32_t lane = (uint32_t)(r % 32), lane_classes = class_table + 4u * lane;
        const size_t end = start + region < n ? start + region : n;
        uint32_t entry = split || lanes ? 0u : table;
        if (lanes) { // two bytes a count (automaton_pair_counter)
            const uint32_t row_bytes = (uint32_t)t->row_entries * 64u, base = counters + 4u * lane;
            const size_t first = start >= AUTOMATON_WARMUP ? start - AUTOMATON_WARMUP : 0;
            uint32_t s1 = 0;
            for (size_t p = first; p < start + (end - start + 1) / 2 * 2; p++) {
                const uint32_t slot = sim_load(automaton_class_address(lane_classes, text[p]));
                entry = sim_load16(automaton_lane_next_address(entry, row_bytes, slot));
                if (p < start || (p - start) % 2 == 0) {
                    s1 = entry;
                    continue;
                }
                const int counted = end - (p - 1) >= 2 ? 2 : 1; // p: the buffer's padding
                sim_add(automaton_lane_counter_address(
                    base, automaton_pair_counter(s1, entry, (uint32_t)t->first_out, counted)));
                if (automaton_pair_counts_both(s1, entry, (uint32_t)t->first_out, counted))
                    sim_add(automaton_lane_counter_address(base, entry));
            }
            continue;
        }
        for (size_t p = start >= AUTOMATON_WARMUP ? start - AUTOMATON_WARMUP : 0; p < end; p++) {
            const uint32_t byte = text[p];
            const bool counted = p >= start;
            if (split) {
                const uint32_t klass = sim_load(automaton_class_address(lane_classes, byte));
                const uint32_t state = entry & AUTOMATON_STATE_MASK;
                entry = state < (uint32_t)shared_states
                            ? sim_load(table + 4u * (state * AUTOMATON_CLASS_ROW + klass))
                            : t->next[state * AUTOMATON_CLASS_ROW + klass];
                if (counted)
                    sim_add(automaton_split_counter(counters + 128u, counters + 4u * lane, entry,
                                                    true));
            } else {
                const uint32_t column =
                    t->classes ? sim_load(automaton_class_address(lane_classes, byte)) : 4u * byte;
                entry = sim_load(automaton_next_address(entry, column));
                if (counted)
                    sim_add(automaton_counter_address(counters + 4u * lane, entry, true));
            }
        }
    }
    for (int w = 0; w < t->words; w++) {
        const int d = t->distinct_of[w];
        counts[w] = 0;
        for (int i = t->ends_start[d]; i < t->ends_start[d + 1]; i++) {
            const uint32_t o = 1u + t->ends[i];
            if (split)
                counts[w] += sim_load(counters + 128u + 4u * o);
            else if (lanes) // the counts of the states whose out is o
                for (int state = 0; state < t->states; state++)
                    for (uint32_t lane = 0; t->out_of_state[state] == o && lane < 32; lane++)
                        counts[w] += sim_load(counters + 128u * (uint32_t)state + 4u * lane);
            else
                for (uint32_t lane = 0; lane < 32; lane++)
                    counts[w] += sim_load(counters + 128u * o + 4u * lane);
        }
    }
}

static void test_automaton_layout(void)
{
    static automaton_tables t;
    static pm_words words;
    char err[160];
    const size_t n = 100003;
    uint8_t *text = calloc(pm_text_buffer_bytes(n), 1);
    pm_text_synthetic(text, n, 9);
    uint64_t *gold = malloc(PM_MAX_WORDS * sizeof *gold), *got = malloc(PM_MAX_WORDS * sizeof *got);
    // The default words twice: a copy a lane, and rows by byte where that is not allowed.
    static const int lists[] = {0, 0, 100, PM_MAX_WORDS};
    static const automaton_layout layouts[] = {AUTOMATON_LANE_COPIES, AUTOMATON_BY_BYTE,
                                               AUTOMATON_BY_CLASS, AUTOMATON_SPLIT};
    for (int k = 0; k < 4; k++) {
        if (lists[k])
            pm_words_vocabulary(lists[k], &words);
        else
            pm_words_default(&words);
        const int allowed = k == 1 ? 1 << AUTOMATON_BY_BYTE : AUTOMATON_ANY;
        EXPECT(pm_build_automaton(&words, allowed, &t, err, sizeof err) == 0 &&
               t.layout == layouts[k]);
        pattern_match_gold(text, n, &words, gold);
        automaton_on_simulated_block(&t, text, n, 256, got);
        const bool same = memcmp(gold, got, words.count * sizeof *gold) == 0;
        EXPECT(same);
        if (!same)
            printf("  %d words (layout %d): the simulated block's counts differ\n", words.count,
                   (int)t.layout);
    }
    free(gold);
    free(got);
    free(text);
}

int main(void)
{
    RUN_TEST(test_overlaps_and_edges);
    RUN_TEST(test_the_practical_words);
    RUN_TEST(test_duplicates_and_high_bytes);
    RUN_TEST(test_gold_against_memcmp);
    RUN_TEST(test_word_list_refusals);
    RUN_TEST(test_files);
    RUN_TEST(test_text_from_pipes);
    RUN_TEST(test_default_and_vocabulary_words);
    RUN_TEST(test_synthetic_text);
    RUN_TEST(test_longest_tables);
    RUN_TEST(test_automaton);
    RUN_TEST(test_automaton_layout);
    return UNIT_RESULT();
}
