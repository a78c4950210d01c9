// pattern_match's tables, built on the host once a word list (tables.c) and read by the
// kernels (pattern_match.cu): v3 and v4's prefix tables, v5's pair table and cuckoo
// hash tables of trie nodes. C, and CUDA C++ where included by the kernels: the index
// functions and the node lookup are the same code on both sides.
#ifndef PATTERN_MATCH_TABLES_H
#define PATTERN_MATCH_TABLES_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda_runtime_api.h> // uint2

#include "pattern_match.h"

// The small functions both sides use, inlined on both.
#ifdef __CUDACC__
#define PM_INLINE static __host__ __device__ __forceinline__
#else
#define PM_INLINE static inline
#endif
// Flags past INT_MAX: C++ names the enum's type; C (gcc, clang) makes it unsigned int.
#ifdef __cplusplus
#define PM_FLAGS enum : uint32_t
#else
#define PM_FLAGS enum
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Bytes rounded up to whole 16-byte vectors (copy_to_shared copies those).
PM_INLINE int padded_to_16(int bytes) { return (bytes + 15) / 16 * 16; }

// The mask of a word's last packed int: its bytes (1..4) in that int.
PM_INLINE uint32_t last_int_mask(int len)
{
    int bytes = len - 4 * ((len - 1) / 4);
    return bytes == 4 ? 0xffffffffu : (1u << (8 * bytes)) - 1u;
}

// The mask of a word's first packed int: all 4 bytes, or the word's 1..3.
PM_INLINE uint32_t first_int_mask(int len) { return len >= 4 ? 0xffffffffu : last_int_mask(len); }

// --- the prefix tables of v3 and v4 (built on the host, once a word list) -----------------

// A word: its first packed int (masked to the word), its length and its distinct-word
// number (a word listed twice is counted once and reported twice).
typedef struct prefix_entry {
    uint32_t first;
    uint16_t distinct;
    uint8_t len;
    uint8_t unused;
} prefix_entry;

// The words of 4 bytes or more that share their first 4 bytes: entries [start, start +
// count) under that 4-byte key, in an open-addressing hash table (count 0: empty slot).
typedef struct long_slot {
    uint32_t key;
    uint16_t start, count;
} long_slot;

PM_FLAGS{
    SINGLE_FLAG = 0x8000u, // the first byte alone is a word
    LONG_FLAG = 0x4000u,   // a word of 4 bytes or more starts with these two
    GROUP_MASK = 0x3fffu,  // 1 + the group of 2- and 3-byte words starting with them
    PAIR_SLOTS = 1u << 16,
    LONG_SLOTS = 2048, // twice the most words: probes stay short
};
enum { GROUP_START_SLOTS = PM_MAX_WORDS + 8 }; // one past the last group, padded to 16 bytes

typedef struct prefix_tables {
    uint16_t pair[PAIR_SLOTS];                   // by pair_slot(first two bytes)
    uint16_t single[256];                        // the 1-byte word's distinct number
    uint16_t group_start[GROUP_START_SLOTS];     // group g: entries [start[g], start[g + 1])
    prefix_entry entries[PM_MAX_WORDS];          // the groups', then the long words'
    long_slot long_words[LONG_SLOTS];            // 4-byte key -> its long words' entries
    uint32_t packed[PM_MAX_WORDS][PM_WORD_INTS]; // by distinct number: the ints after the first
    uint16_t distinct_of[PM_MAX_WORDS];          // word -> distinct number
    int words, distinct, entries_used;
} prefix_tables;

// Where the two bytes b0 | b1 << 8 live in the pair table. Two entries share a 4-byte
// bank word, so the bank is bits 1..5 of the slot; XOR-ing b1's low bits into them
// spreads positions that share a first byte ("th", "to", "ti", ...) over different banks.
PM_INLINE uint32_t pair_slot(uint32_t window)
{
    uint32_t key = window & 0xffffu;
    return key ^ ((key >> 7) & 0x3eu);
}

// The first slot to probe for a 4-byte key (Knuth's multiplicative hash, top 11 bits).
PM_INLINE uint32_t long_slot_of(uint32_t key) { return (key * 2654435761u) >> 21; }

// Builds v3 and v4's tables of a word list.
void pm_build_prefix_tables(const pm_words *words, prefix_tables *t);

// --- v5: the longest word at each position, from one byte ------------------------------

// At a text position the words that occur are prefixes of one another ("a", "an", "and"
// at "and so"), so counting only the longest of them is enough: every shorter one is a
// prefix of it, and the block adds a word's count to each of its prefixes when it
// flushes. One position, one count; and for most positions the first two bytes settle
// it. A 64 KB table of bytes, indexed by them, holds:
//   0         no word starts with these two bytes;
//   1..127    1 + the rank of the longest word (of 1 or 2 bytes; none longer starts
//             here): counted at once, on a counter of the lane's own;
//   128..254  a word of 3 bytes or more may start here: queued; 128 + 1 + the rank of
//             the longest word of 1 or 2 bytes (128: none);
//   255       queued, and that longest short word is looked up (its rank is over 125).
// A queued position looks up the trie nodes of its first 4 and first 3 bytes (each
// node knows the longest word within it) in a cuckoo hash table: a key sits in one of
// two slots, so a lookup is two loads, never a walk. Where a word of 5 bytes or more
// may go on past the depth-4 node, the position moves to the warp's second queue (the
// tail), whose positions walk the deeper trie 4 bytes a level, 32 positions at once.
PM_FLAGS{
    PAIR_NONE = 0,
    PAIR_QUEUE = 128,        // and up: queued
    PAIR_QUEUE_LOOKUP = 255, // queued, the short word's rank not in the byte
    NODE_OCCUPIED = 1u << 31,
    NODE_TAG_MASK = 0xe0000000u, // occupied and depth - 1 (bits 29, 30)
    NODE_DEPTH_SHIFT = 29,
    NODE_RANK_MASK = 0x7ffu, // bits 0..10: 1 + the longest word's rank, 0: none
    // A depth-4 node with longer words under it: its id in the deep trie (bits 11..20),
    // and whether some of them go on past 8 bytes (CHUNK) or end at 5..7 (PARTIAL).
    NODE_ID_SHIFT = 11,
    NODE_HAS_CHUNK = 1u << 21,
    NODE_HAS_PARTIAL = 1u << 22,
    NODE_DEEPER = NODE_HAS_CHUNK | NODE_HAS_PARTIAL,
    NODE_MULT0 = 2654435761u,
    NODE_MULT1 = 0x85ebca6bu,
};

// The deep trie: the nodes below depth 4, on levels of 4 bytes. A node of depth 4k + j
// (level k = 1..7, j = 1..4) is keyed by its j bytes after depth 4k and by its parent,
// the node of depth 4k on its path (a chunk node), through the parent's id: the rank of
// the word that ends at the parent, else of the first word through it (a word's path
// has one node a depth, so a rank and a level name one chunk node). Nodes of depth
// 4k + 4 are all kept; those of j = 1..3 only where a word ends. A node's info: its tag
// in bits 16..31 (occupied, level - 1, j - 1, the parent's id), its own id in bits
// 0..9, bit 10 set where the id's word ends at the node, and what lies under it.
PM_FLAGS{
    DEEP_TAG_MASK = 0xffff0000u, DEEP_LEVEL_SHIFT = 28, DEEP_J_SHIFT = 26,
    DEEP_PARENT_SHIFT = 16,      DEEP_ID_MASK = 0x3ffu, DEEP_ENDS = 1u << 10,
    DEEP_HAS_CHUNK = 1u << 11,   // words of 4 bytes or more past the node
    DEEP_HAS_PARTIAL = 1u << 12, // words that end 1..3 bytes past it
};

// What longest_word_at returns for a position the deep trie must settle: this flag and
// the depth-4 node's info bits 0..22; the warp's tail keeps that with the position in
// its chunk in bits 23..31.
PM_FLAGS{
    LONGEST_TAIL = 1u << 31,
    TAIL_INFO_MASK = (1u << 23) - 1,
    TAIL_POSITION_SHIFT = 23,
};
enum {
    FAST_RANKS = 127,                  // ranks 0..126: entry 1 + rank, counted in the filter
    QUEUE_RANKS = 126,                 // ranks 0..125: entry 129 + rank on a queued pair
    NODE_SLOTS_MAX = 8192,             // 2.67 slots a node at worst (3 depths x 1024 words)
    DEEP_NODES_MAX = PM_MAX_WORDS * 7, // a word of 32 bytes: nodes at 8, 12, .., 32
    DEEP_SLOTS_MAX = 32768,
    LONGEST_DESCENDANTS_MAX = PM_MAX_WORDS * PM_MAX_WORD_BYTES,
};

// A cuckoo table's two hash functions: slot `which` of a key is (key * mult + tweak *
// salt[which]) >> shift, the tweak (a node's tag, bits 16..31) telling apart nodes of
// the same bytes at other depths or under other parents.
typedef struct node_hash {
    uint32_t salt[2];
    int shift, slots;
} node_hash;

PM_INLINE uint32_t node_slot(uint32_t key, uint32_t tag, int which, const node_hash *h)
{
    return (key * (which ? NODE_MULT1 : NODE_MULT0) + (tag >> 16) * h->salt[which]) >> h->shift;
}

typedef struct longest_tables {
    uint8_t pair[PAIR_SLOTS];                     // by pair_index(first two bytes)
    uint2 nodes[NODE_SLOTS_MAX];                  // depths 2..4: {key, info}
    uint2 deep[DEEP_SLOTS_MAX];                   // the deep trie: {key, info}
    uint16_t single[256];                         // 1 + the rank of the 1-byte word, 0: none
    uint32_t packed[PM_MAX_WORDS][PM_WORD_INTS];  // by rank
    uint16_t rank_of[PM_MAX_WORDS];               // word -> rank
    uint16_t descendants_start[PM_MAX_WORDS + 1]; // rank r: the ranks r is a prefix of
    uint16_t descendants[LONGEST_DESCENDANTS_MAX];
    node_hash node_hash, deep_hash;
    int words, ranks, deep_nodes;
} longest_tables;

// The pair table's index of the two bytes b0 | b1 << 8. Entries are bytes, so the bank
// is bits 2..6, which are b0's alone: English letters would crowd 8 banks. XOR-ing b1's
// low 5 bits into them spreads the lanes of a warp over all 32.
PM_INLINE uint32_t pair_index(uint32_t key) { return key ^ ((key >> 6) & 0x7cu); }

// Builds v5's tables of a word list: returns 0, or -1 with the reason in err where
// the cuckoo hash found no placement for a table's nodes (bounded: never a hang).
int pm_build_longest_tables(const pm_words *words, longest_tables *t, char *err, size_t errlen);

// The info of the node whose bytes are `key` and whose tag (info & tag_mask) is `tag`,
// 0 where there is none: its two slots, both loaded at once (the kernels and the tests).
PM_INLINE uint32_t find_node(const uint2 *slots, const node_hash *h, uint32_t key, uint32_t tag,
                             uint32_t tag_mask)
{
    const uint2 a = slots[node_slot(key, tag, 0, h)];
    const uint2 b = slots[node_slot(key, tag, 1, h)];
    return a.x == key && (a.y & tag_mask) == tag   ? a.y
           : b.x == key && (b.y & tag_mask) == tag ? b.y
                                                   : 0u;
}

// --- v6's automaton (Aho and Corasick, 1975), as a full transition table ------------------

// The trie of the distinct words, each node a state (the root, 0: nothing matched), and
// for every state and every byte the state reached: the longest suffix of (the state's
// bytes + the byte) that is a path of the trie. Scanning the text byte by byte from the
// root, the state after a byte is the longest suffix of the text so far that some word
// starts with; every word that ends at that byte is a suffix of it, and a suffix of the
// longest such word, so one count a byte is enough (the longest, its "out"), and the
// block adds each word's count to the words that end with it when it flushes (as v5
// adds prefixes). Four layouts, the first that fits:
//   a copy a lane  rows by byte class (the words' distinct bytes, each its own class;
//              every other byte class 0, which leads back to the root), 16-bit entries,
//              and every lane its own copy of the table in its own bank, so that a warp's
//              32 loads are one shared-memory wavefront whatever states the lanes are in;
//              a count a state (not an out: the entry is the next state alone, so a
//              step's two addresses are one multiply-add each), two bytes a count where
//              the first's state has no out (those numbered first): up to 176 KB of rows
//              and counters, 127 distinct words, 31 distinct bytes;
//   by byte    a row of 256 entries a state, and one more so that row s starts s banks
//              on (lanes in different states at the same byte do not collide): up to
//              96 states (99 KB) and 127 distinct words, all in shared memory;
//   by class   a row of 32 entries and one more, an entry a byte class: up to 1241
//              states (160 KB) and 127 distinct words;
//   split      rows by class, the states numbered breadth first so that the shallowest
//              (where most steps land) are the ones in shared memory and the rest are read
//              from global memory: any list whose words have at most 31 distinct bytes.
// Entry, by byte and by class: the next state's row (its byte offset in the table) in bits
// 0..17 and its out (1 + the longest word's distinct number, 0: none) times 128 in bits
// 18..31, the byte offset of that out's counter row (a counter a lane, 32 a row). A copy a
// lane: the next state (its out in out_of_state). Split: the next state in bits 0..15,
// its out in bits 16..31 (the block's counter of that out).
enum {
    AUTOMATON_BYTE_ROW = 257,              // entries a row, a byte each
    AUTOMATON_CLASS_ROW = 33,              // entries a row, a class each (at most 32 classes)
    AUTOMATON_BYTE_STATES_MAX = 96,        // 99 KB: rows by byte while they take no more
    AUTOMATON_SHARED_STATES_MAX = 1241,    // 160 KB: rows by class all in shared memory
    AUTOMATON_SHARED_OUTS_MAX = 127,       // distinct words with rows in shared (a 7-bit out)
    AUTOMATON_LANE_BYTES_MAX = 176 * 1024, // a copy a lane: rows and counters
    AUTOMATON_LANE_STATES_MAX = AUTOMATON_LANE_BYTES_MAX / (2 * 64 + 128), // rows of 2 entries
    AUTOMATON_STATES_MAX = PM_MAX_WORDS * PM_MAX_WORD_BYTES + 1,           // split
    AUTOMATON_ENTRIES_MAX = AUTOMATON_STATES_MAX * AUTOMATON_CLASS_ROW,
    AUTOMATON_WARMUP = 32, // bytes scanned before a region, uncounted (a word's most)
    AUTOMATON_ENDS_MAX = PM_MAX_WORDS * PM_MAX_WORD_BYTES, // a word ends with at most 32 words
};
PM_FLAGS{
    AUTOMATON_ROW_MASK = 0x3ffffu,
    AUTOMATON_OUT_SHIFT = 18,
    AUTOMATON_STATE_MASK = 0xffffu,
    AUTOMATON_SPLIT_OUT_SHIFT = 16,
};
typedef enum {
    AUTOMATON_BY_BYTE,
    AUTOMATON_BY_CLASS,
    AUTOMATON_SPLIT,
    AUTOMATON_LANE_COPIES,
    AUTOMATON_LAYOUTS
} automaton_layout;

typedef struct automaton_tables {
    uint32_t next[AUTOMATON_ENTRIES_MAX];  // [state][byte or class]: the next state's entry
    uint8_t class_of[256];                 // a byte's class (rows by class)
    uint16_t distinct_of[PM_MAX_WORDS];    // list entry -> distinct word
    uint16_t ends_start[PM_MAX_WORDS + 1]; // distinct word d: [ends_start[d], ends_start[d+1])
    uint16_t ends[AUTOMATON_ENDS_MAX];     // of ends: the distinct words that end with d
    uint8_t out_of_state[AUTOMATON_LANE_STATES_MAX]; // a copy a lane: each state's out
    int first_out; // a copy a lane: the states with an out are numbered from here on
    automaton_layout layout;
    int states, row_entries, classes; // classes 0: rows by byte
    int distinct, words;
} automaton_tables;

// The entry of byte b from the state whose entry is `entry` (the root's: 0), on the host.
PM_INLINE uint32_t automaton_step(const automaton_tables *t, uint32_t entry, uint8_t b)
{
    if (t->layout == AUTOMATON_SPLIT)
        return t->next[(entry & AUTOMATON_STATE_MASK) * AUTOMATON_CLASS_ROW + t->class_of[b]];
    if (t->layout == AUTOMATON_LANE_COPIES)
        return t->next[entry * t->row_entries + t->class_of[b]];
    return t->next[(entry & AUTOMATON_ROW_MASK) / 4 + (t->classes ? t->class_of[b] : b)];
}

// The out of an entry: 1 + the distinct number of the longest word that ends there, 0: none.
PM_INLINE uint32_t automaton_out(const automaton_tables *t, uint32_t entry)
{
    return t->layout == AUTOMATON_SPLIT         ? entry >> AUTOMATON_SPLIT_OUT_SHIFT
           : t->layout == AUTOMATON_LANE_COPIES ? t->out_of_state[entry]
                                                : entry >> AUTOMATON_OUT_SHIFT >> 7;
}

// The kernels' step in their shared-memory layout (32-bit shared addresses), the same
// code on the host's test of that layout. Rows by byte or class: a row's entries hold
// their row's address (the table's address added as the block copies them in: no carry,
// the window is under 2^18 bytes); `lane_classes` is the lane's copy of the class table
// (byte b's class x 4 at lane_classes + 128 b: the lane's own bank); a lane's counter of
// out o at counter_base + 128 o.
PM_INLINE uint32_t automaton_placed(uint32_t entry, uint32_t table) { return entry + table; }
PM_INLINE uint32_t automaton_class_address(uint32_t lane_classes, uint32_t byte)
{
    return lane_classes + 128u * byte;
}
PM_INLINE uint32_t automaton_next_address(uint32_t entry, uint32_t column)
{
    return (entry & AUTOMATON_ROW_MASK) + column;
}
PM_INLINE uint32_t automaton_counter_address(uint32_t counter_base, uint32_t entry, bool counted)
{
    return counter_base + (counted ? entry >> AUTOMATON_OUT_SHIFT : 0u);
}
// A copy a lane: entry i (state x row_entries + class) of lane `lane`'s copy, 16 bits, at
// table + 128 (i / 2) + 4 lane + 2 (i % 2): every entry of the lane's copy in its own
// bank. The lane's class table holds a class's slot (the address of the lane's entry
// `class` in the root's row), so that the next entry's address is the state times the
// row's bytes (row_entries x 64, the 32 copies) plus the slot; the lane's counter of state
// s at counter_base + 128 s (a counter a lane, 32 a row).
PM_INLINE uint32_t automaton_lane_slot(uint32_t table, uint32_t lane, uint32_t i)
{
    return table + 128u * (i >> 1) + 4u * lane + 2u * (i & 1u);
}
PM_INLINE uint32_t automaton_lane_next_address(uint32_t state, uint32_t row_bytes, uint32_t slot)
{
    return state * row_bytes + slot;
}
PM_INLINE uint32_t automaton_lane_counter_address(uint32_t counter_base, uint32_t state)
{
    return counter_base + 128u * state;
}
// A copy a lane counts two bytes' states s1, s2 (the first `counted` of them, 0..2) with
// one add where it can: s1's count if s1 has an out, else s2's (a state without an out
// counts on a counter never read), and a second add, s2's, only where both have an out.
PM_INLINE uint32_t automaton_pair_counter(uint32_t s1, uint32_t s2, uint32_t first_out, int counted)
{
    return counted >= 1 && s1 >= first_out ? s1 : counted == 2 ? s2 : 0u;
}
PM_INLINE bool automaton_pair_counts_both(uint32_t s1, uint32_t s2, uint32_t first_out, int counted)
{
    return counted == 2 && s1 >= first_out && s2 >= first_out;
}
// Split: the block's counter of out o at counters + 4 o; a lane that counts no word (out 0,
// or a byte past the end) adds to its own.
PM_INLINE uint32_t automaton_split_counter(uint32_t counters, uint32_t lane_counter, uint32_t entry,
                                           bool counted)
{
    const uint32_t out = entry >> AUTOMATON_SPLIT_OUT_SHIFT;
    return out && counted ? counters + 4u * out : lane_counter;
}

// Builds v6's automaton of a word list in the first of the layouts in `allowed` (a bit a
// layout: 1 << AUTOMATON_LANE_COPIES, ...; AUTOMATON_ANY: all) that fits: returns 0, or
// -1 with the reason in err where none does (all: over 31 distinct bytes in words of
// more than 96 states).
enum { AUTOMATON_ANY = (1 << AUTOMATON_LAYOUTS) - 1 };
int pm_build_automaton(const pm_words *words, int allowed, automaton_tables *t, char *err,
                       size_t errlen);

// The kernel's scan on the host, for the tests: text[0..n) cut into regions of `region`
// bytes, each scanned from AUTOMATON_WARMUP bytes before its start (uncounted) and counted
// from its start; then each list entry's count (counts[0..words)).
void pm_automaton_count(const automaton_tables *t, const uint8_t *text, size_t n, size_t region,
                        uint64_t *counts);

#ifdef __cplusplus
}
#endif

#endif
