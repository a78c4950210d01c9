// pattern_match's tables (tables.h), built on the host once a word list.
#include "tables.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The distinct words of a list (a word listed twice is counted once and reported
// twice): their packed ints and lengths in packed[] and len[], each word's distinct
// number in distinct_of[]; short_first puts the words of 1 or 2 bytes first. Returns
// how many there are.
static int distinct_words(const pm_words *words, bool short_first, uint32_t (*packed)[PM_WORD_INTS],
                          int *len, uint16_t *distinct_of)
{
    int distinct = 0;
    for (int pass = short_first ? 0 : 1; pass < 2; pass++)
        for (int w = 0; w < words->count; w++) {
            if (short_first && (words->len[w] <= 2) != (pass == 0))
                continue;
            int d = 0;
            while (d < distinct && !(len[d] == words->len[w] &&
                                     memcmp(packed[d], words->packed[w], sizeof packed[d]) == 0))
                d++;
            if (d == distinct) {
                len[distinct] = words->len[w];
                memcpy(packed[distinct++], words->packed[w], sizeof packed[d]);
            }
            distinct_of[w] = (uint16_t)d;
        }
    return distinct;
}

void pm_build_prefix_tables(const pm_words *words, prefix_tables *t)
{
    memset(t, 0, sizeof *t);
    t->words = words->count;
    int len_of[PM_MAX_WORDS];
    t->distinct = distinct_words(words, false, t->packed, len_of, t->distinct_of);
    // Groups: the 2- and 3-byte words by their first two bytes, then the longer words by
    // their first four; the entries in group order (a counting sort).
    static int16_t short_group_of_key[PAIR_SLOTS];
    memset(short_group_of_key, 0xff, sizeof short_group_of_key);
    int groups = 0, group_size[PM_MAX_WORDS] = {0}, group_of[PM_MAX_WORDS];
    uint32_t group_key[PM_MAX_WORDS];
    for (int d = 0; d < t->distinct; d++) {
        const int len = len_of[d];
        const uint32_t first = t->packed[d][0];
        if (len == 1) {
            t->single[first & 0xffu] = (uint16_t)d;
            for (uint32_t b1 = 0; b1 < 256; b1++)
                t->pair[pair_slot((first & 0xffu) | b1 << 8)] |= SINGLE_FLAG;
        } else if (len < 4) {
            if (short_group_of_key[first & 0xffffu] < 0)
                short_group_of_key[first & 0xffffu] = (int16_t)groups++;
            group_of[d] = short_group_of_key[first & 0xffffu];
            group_size[group_of[d]]++;
        }
    }
    const int short_groups = groups;
    for (int d = 0; d < t->distinct; d++) {
        const int len = len_of[d];
        const uint32_t first = t->packed[d][0];
        if (len < 4)
            continue;
        int g = short_groups;
        while (g < groups && group_key[g] != first)
            g++;
        if (g == groups)
            group_key[groups++] = first;
        group_of[d] = g;
        group_size[g]++;
        t->pair[pair_slot(first)] |= LONG_FLAG;
    }
    for (int g = 0; g < groups; g++)
        t->group_start[g + 1] = (uint16_t)(t->group_start[g] + group_size[g]);
    for (int g = groups + 1; g < GROUP_START_SLOTS; g++)
        t->group_start[g] = t->group_start[groups];
    int fill[PM_MAX_WORDS];
    for (int g = 0; g < groups; g++)
        fill[g] = t->group_start[g];
    for (int d = 0; d < t->distinct; d++) {
        const int len = len_of[d];
        if (len == 1)
            continue;
        const uint32_t first = t->packed[d][0];
        t->entries[fill[group_of[d]]++] =
            (prefix_entry){first & first_int_mask(len), (uint16_t)d, (uint8_t)len, 0};
        t->entries_used++;
        if (len < 4) {
            const uint32_t slot = pair_slot(first);
            t->pair[slot] = (uint16_t)((t->pair[slot] & ~GROUP_MASK) | (group_of[d] + 1));
        }
    }
    for (int g = short_groups; g < groups; g++) {
        uint32_t slot = long_slot_of(group_key[g]);
        while (t->long_words[slot].count)
            slot = (slot + 1) % LONG_SLOTS;
        t->long_words[slot] = (long_slot){group_key[g], t->group_start[g], (uint16_t)group_size[g]};
    }
}

// Do the packed words a and b (both d bytes or longer) share their first d bytes?
static bool same_prefix(const uint32_t *a, const uint32_t *b, int d)
{
    for (int i = 0; i < d / 4; i++)
        if (a[i] != b[i])
            return false;
    return d % 4 == 0 || ((a[d / 4] ^ b[d / 4]) & last_int_mask(d % 4)) == 0;
}

// Does word a (la bytes) start with word b (lb bytes)?
static bool starts_with(const uint32_t *a, int la, const uint32_t *b, int lb)
{
    return lb <= la && same_prefix(a, b, lb);
}

// A trie node before it goes in a cuckoo table.
typedef struct {
    uint32_t key, info;
} trie_node;

// Places the nodes in the table (each in one of its two slots, evicting and re-placing
// others); false if some node found no place in 64 moves.
static bool cuckoo_place(uint2 *slots, const node_hash *h, uint32_t tag_mask,
                         const trie_node *nodes, int count)
{
    memset(slots, 0, (size_t)h->slots * sizeof *slots);
    for (int i = 0; i < count; i++) {
        uint2 moving = {nodes[i].key, nodes[i].info};
        int which = 0;
        for (int moves = 0;; moves++) {
            if (moves == 64)
                return false;
            const uint32_t s = node_slot(moving.x, moving.y & tag_mask, which, h);
            const uint2 there = slots[s];
            slots[s] = moving;
            if (!there.y)
                break;
            // The evicted node moves to its other slot.
            moving = there;
            which = node_slot(there.x, there.y & tag_mask, 0, h) == s;
        }
    }
    return true;
}

// A cuckoo table of the nodes: `per_node` slots a node to start (a power of two, at
// most max_slots), more or other salts until all fit. The most nodes fill at most 3/8
// of their table's slots at its largest, where two hash functions place all with
// near certainty; still the salts tried are bounded (CUCKOO_SEEDS): false where none of
// them places all.
enum { CUCKOO_SEEDS = 256 };
static bool cuckoo_build(uint2 *slots, int max_slots, int per_node, uint32_t tag_mask,
                         const trie_node *nodes, int count, node_hash *h)
{
    h->slots = 64;
    while (h->slots < per_node * count && h->slots < max_slots)
        h->slots *= 2;
    for (uint32_t seed = 1; seed <= CUCKOO_SEEDS; seed++) {
        h->shift = 32 - __builtin_ctz((unsigned)h->slots);
        h->salt[0] = seed * 0x9e3779b9u;
        h->salt[1] = seed * 0x7f4a7c15u + 0x632be5abu;
        if (cuckoo_place(slots, h, tag_mask, nodes, count))
            return true;
        if (seed % 8 == 0 && h->slots < max_slots)
            h->slots *= 2;
    }
    return false;
}

// The chunk node of depth d (a multiple of 4) on word r's path, as a deep node's info
// bits 0..12: its id (the word that ends there, else the first word through it) and
// what lies under it.
static uint32_t chunk_node(const longest_tables *t, const int *len, int r, int d)
{
    int ends = -1, first = -1;
    uint32_t under = 0;
    for (int s = 0; s < t->ranks; s++) {
        if (len[s] < d || !same_prefix(t->packed[s], t->packed[r], d))
            continue;
        if (len[s] == d)
            ends = s;
        else if (first < 0)
            first = s;
        if (len[s] >= d + 4)
            under |= DEEP_HAS_CHUNK;
        else if (len[s] > d)
            under |= DEEP_HAS_PARTIAL;
    }
    return (ends >= 0 ? (uint32_t)ends | DEEP_ENDS : (uint32_t)first) | under;
}

// The deep trie's nodes (see DEEP_TAG_MASK); returns how many.
static int deep_trie_nodes(const longest_tables *t, const int *len, trie_node *nodes)
{
    int count = 0;
    for (int r = 0; r < t->ranks; r++)
        for (int d = 5; d <= len[r]; d++) {
            const int k = (d - 1) / 4, j = d - 4 * k;
            if (j < 4 && d < len[r])
                continue; // nodes of 1..3 bytes into a level only where a word ends
            const uint32_t parent = chunk_node(t, len, r, 4 * k) & DEEP_ID_MASK;
            const uint32_t tag = NODE_OCCUPIED | (uint32_t)(k - 1) << DEEP_LEVEL_SHIFT |
                                 (uint32_t)(j - 1) << DEEP_J_SHIFT | parent << DEEP_PARENT_SHIFT;
            const uint32_t key = t->packed[r][k] & first_int_mask(j);
            int i = 0;
            while (i < count && !(nodes[i].key == key && (nodes[i].info & DEEP_TAG_MASK) == tag))
                i++;
            if (i == count)
                nodes[count++] = (trie_node){
                    key, tag | (j == 4 ? chunk_node(t, len, r, d) : (uint32_t)r | DEEP_ENDS)};
        }
    return count;
}

int pm_build_longest_tables(const pm_words *words, longest_tables *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->words = words->count;
    // Ranks: the distinct words, those of 1 or 2 bytes first (their ranks go in the
    // pair table's byte while they are few).
    int len[PM_MAX_WORDS];
    t->ranks = distinct_words(words, true, t->packed, len, t->rank_of);
    // Trie nodes of depth 2..4 on every word's path; each knows its longest word.
    static trie_node nodes[3 * PM_MAX_WORDS];
    int count = 0;
    for (int r = 0; r < t->ranks; r++) {
        if (len[r] == 1)
            t->single[t->packed[r][0] & 0xffu] = (uint16_t)(r + 1);
        for (int d = 2; d <= len[r] && d <= 4; d++) {
            const uint32_t key = t->packed[r][0] & first_int_mask(d);
            const uint32_t tag = NODE_OCCUPIED | (uint32_t)(d - 1) << NODE_DEPTH_SHIFT;
            int i = 0;
            while (i < count && !(nodes[i].key == key && (nodes[i].info & NODE_TAG_MASK) == tag))
                i++;
            if (i == count)
                nodes[count++] = (trie_node){key, tag};
        }
    }
    for (int i = 0; i < count; i++) {
        const int depth = (int)(nodes[i].info >> NODE_DEPTH_SHIFT & 3u) + 1;
        int best = -1;
        for (int r = 0; r < t->ranks; r++)
            if (len[r] <= depth && len[r] > (best < 0 ? 0 : len[best]) &&
                starts_with(&nodes[i].key, depth, t->packed[r], len[r]))
                best = r;
        nodes[i].info |= (uint32_t)(best + 1);
        // A depth-4 node with words of 5 bytes or more under it: its deep-trie id.
        for (int r = 0; r < t->ranks && depth == 4; r++)
            if (len[r] >= 5 && t->packed[r][0] == nodes[i].key) {
                const uint32_t c = chunk_node(t, len, r, 4);
                nodes[i].info |= (c & DEEP_ID_MASK) << NODE_ID_SHIFT |
                                 (c & DEEP_HAS_CHUNK ? NODE_HAS_CHUNK : 0u) |
                                 (c & DEEP_HAS_PARTIAL ? NODE_HAS_PARTIAL : 0u);
                break;
            }
    }
    if (!cuckoo_build(t->nodes, NODE_SLOTS_MAX, 4, NODE_TAG_MASK, nodes, count, &t->node_hash)) {
        snprintf(err, errlen, "%d trie nodes found no cuckoo placement in %d slots (%d salts)",
                 count, t->node_hash.slots, CUCKOO_SEEDS);
        return -1;
    }
    static trie_node deep[DEEP_NODES_MAX];
    t->deep_nodes = deep_trie_nodes(t, len, deep);
    if (!cuckoo_build(t->deep, DEEP_SLOTS_MAX, 2, DEEP_TAG_MASK, deep, t->deep_nodes,
                      &t->deep_hash)) {
        snprintf(err, errlen,
                 "the deep trie's %d nodes found no cuckoo placement in %d slots "
                 "(%d salts)",
                 t->deep_nodes, t->deep_hash.slots, CUCKOO_SEEDS);
        return -1;
    }
    // The pair table (see above).
    static uint8_t pair_queued[PAIR_SLOTS];
    static int16_t pair_best[PAIR_SLOTS];
    memset(pair_queued, 0, sizeof pair_queued);
    memset(pair_best, 0xff, sizeof pair_best);
    for (int r = 0; r < t->ranks; r++) {
        const uint32_t first = t->packed[r][0];
        if (len[r] >= 3)
            pair_queued[first & 0xffffu] = 1;
        else if (len[r] == 2)
            pair_best[first & 0xffffu] = (int16_t)r;
    }
    for (uint32_t key = 0; key < PAIR_SLOTS; key++) {
        int best = pair_best[key];
        if (best < 0)
            best = t->single[key & 0xffu] - 1;
        uint32_t e = PAIR_NONE;
        if (pair_queued[key])
            e = best < QUEUE_RANKS ? PAIR_QUEUE + 1 + best : PAIR_QUEUE_LOOKUP;
        else if (best >= FAST_RANKS)
            e = PAIR_QUEUE_LOOKUP;
        else if (best >= 0)
            e = 1 + best;
        t->pair[pair_index(key)] = (uint8_t)e;
    }
    // Each rank's descendants: the ranks it is a prefix of, itself included.
    int used = 0;
    for (int r = 0; r < t->ranks; r++) {
        t->descendants_start[r] = (uint16_t)used;
        for (int s = 0; s < t->ranks; s++)
            if (starts_with(t->packed[s], len[s], t->packed[r], len[r]))
                t->descendants[used++] = (uint16_t)s;
    }
    t->descendants_start[t->ranks] = (uint16_t)used;
    return 0;
}

// --- v6's automaton ----------------------------------------------------------------------------

int pm_build_automaton(const pm_words *words, int allowed, automaton_tables *t, char *err,
                       size_t errlen)
{
    static uint32_t packed[PM_MAX_WORDS][PM_WORD_INTS];
    int len[PM_MAX_WORDS];
    memset(t, 0, sizeof *t);
    t->words = words->count;
    t->distinct = distinct_words(words, false, packed, len, t->distinct_of);
    // The trie: child[s][b] (0: none; the root has no parent, so 0 is never a child),
    // word_at[s] = 1 + the distinct word that ends at s (0: none); the words' bytes.
    int most = 1;
    for (int d = 0; d < t->distinct; d++)
        most += len[d];
    const size_t rows = (size_t)most * 256 * sizeof(int), ints = (size_t)most * sizeof(int);
    int(*child)[256] = cl_host_alloc(rows, "the automaton's trie");
    int(*go)[256] = cl_host_alloc(rows, "the automaton");
    int *word_at = cl_host_alloc(ints, "the automaton"),
        *fail = cl_host_alloc(ints, "the automaton");
    int *out = cl_host_alloc(ints, "the automaton"), *order = cl_host_alloc(ints, "the automaton");
    int *id = cl_host_alloc(ints, "the automaton");
    memset(child, 0, rows);
    memset(word_at, 0, ints);
    fail[0] = out[0] = 0;
    bool used[256] = {false};
    int states = 1;
    for (int d = 0; d < t->distinct; d++) {
        int s = 0;
        for (int i = 0; i < len[d]; i++) {
            const uint8_t b = pm_packed_byte(packed[d], i);
            used[b] = true;
            if (!child[s][b])
                child[s][b] = states++;
            s = child[s][b];
        }
        word_at[s] = 1 + d;
    }
    t->states = states;
    int classes = 1; // class 0: the bytes in no word
    for (int b = 0; b < 256; b++)
        classes += used[b];
    const int lane_row = (classes + 1) / 2 * 2; // entries a row, whole pairs
    const bool fits[AUTOMATON_LAYOUTS] = {
        [AUTOMATON_LANE_COPIES] = classes <= 32 &&
                                  states * (lane_row * 64 + 128) <= AUTOMATON_LANE_BYTES_MAX &&
                                  t->distinct <= AUTOMATON_SHARED_OUTS_MAX,
        [AUTOMATON_BY_BYTE] =
            states <= AUTOMATON_BYTE_STATES_MAX && t->distinct <= AUTOMATON_SHARED_OUTS_MAX,
        [AUTOMATON_BY_CLASS] = classes <= 32 && states <= AUTOMATON_SHARED_STATES_MAX &&
                               t->distinct <= AUTOMATON_SHARED_OUTS_MAX,
        [AUTOMATON_SPLIT] = classes <= 32,
    };
    static const automaton_layout preferred[AUTOMATON_LAYOUTS] = {
        AUTOMATON_LANE_COPIES, AUTOMATON_BY_BYTE, AUTOMATON_BY_CLASS, AUTOMATON_SPLIT};
    int status = -1;
    for (int k = 0; k < AUTOMATON_LAYOUTS && status; k++)
        if (fits[preferred[k]] && (allowed & 1 << preferred[k])) {
            t->layout = preferred[k];
            status = 0;
        }
    if (status) {
        snprintf(err, errlen, "%d states and %d distinct bytes in the words: over %d, and over 31",
                 states, classes - 1, AUTOMATON_BYTE_STATES_MAX);
        goto done;
    }
    if (t->layout != AUTOMATON_BY_BYTE) {
        for (int b = 0, c = 0; b < 256; b++)
            t->class_of[b] = used[b] ? (uint8_t)++c : 0;
        t->classes = classes;
    }
    t->row_entries = t->layout == AUTOMATON_BY_BYTE       ? AUTOMATON_BYTE_ROW
                     : t->layout == AUTOMATON_LANE_COPIES ? lane_row
                                                          : AUTOMATON_CLASS_ROW;
    // Breadth first (a state's suffix is shallower, so done before it): the suffix link
    // fail[s], out[s] (its own word, else its suffix's out) and go[s][b] (a child, else
    // the suffix's go: the root's goes back to the root); order[] numbers them so.
    int head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        const int s = order[head++];
        for (int b = 0; b < 256; b++) {
            const int c = child[s][b];
            if (!c) {
                go[s][b] = s == 0 ? 0 : go[fail[s]][b];
                continue;
            }
            fail[c] = s == 0 ? 0 : go[fail[s]][b];
            out[c] = word_at[c] ? word_at[c] : out[fail[c]];
            go[s][b] = c;
            order[tail++] = c;
        }
    }
    // The rows (a class's bytes lead alike: class 0's to the root); split: the states
    // renumbered breadth first, the shallowest first; a copy a lane: those without an out
    // first (the root stays 0), so that one compare tells whether a state has one
    // (automaton_pair_counter).
    for (int i = 0; i < states; i++)
        id[order[i]] = t->layout == AUTOMATON_SPLIT ? i : order[i];
    t->first_out = states;
    if (t->layout == AUTOMATON_LANE_COPIES) {
        int next_id = 0;
        for (int s = 0; s < states; s++)
            if (!out[s])
                id[s] = next_id++;
        t->first_out = next_id;
        for (int s = 0; s < states; s++)
            if (out[s])
                id[s] = next_id++;
    }
    for (int s = 0; s < states; s++)
        for (int b = 0; b < 256; b++) {
            const int g = go[s][b];
            const uint32_t entry =
                t->layout == AUTOMATON_SPLIT
                    ? (uint32_t)id[g] | (uint32_t)out[g] << AUTOMATON_SPLIT_OUT_SHIFT
                : t->layout == AUTOMATON_LANE_COPIES
                    ? (uint32_t)id[g]
                    : (uint32_t)(g * t->row_entries * 4) | (uint32_t)out[g] * 128u
                                                               << AUTOMATON_OUT_SHIFT;
            t->next[id[s] * t->row_entries + (t->classes ? t->class_of[b] : b)] = entry;
        }
    if (t->layout == AUTOMATON_LANE_COPIES)
        for (int s = 0; s < states; s++)
            t->out_of_state[id[s]] = (uint8_t)out[s];
    // Each distinct word's ends: the distinct words that end with it, itself included.
    int used_ends = 0;
    for (int d = 0; d < t->distinct; d++) {
        t->ends_start[d] = (uint16_t)used_ends;
        for (int e = 0; e < t->distinct; e++) {
            bool ends_with = len[e] >= len[d];
            for (int i = 0; ends_with && i < len[d]; i++)
                ends_with =
                    pm_packed_byte(packed[e], len[e] - len[d] + i) == pm_packed_byte(packed[d], i);
            if (ends_with)
                t->ends[used_ends++] = (uint16_t)e;
        }
    }
    t->ends_start[t->distinct] = (uint16_t)used_ends;
done:
    free(child);
    free(go);
    free(word_at);
    free(fail);
    free(out);
    free(order);
    free(id);
    return status;
}

void pm_automaton_count(const automaton_tables *t, const uint8_t *text, size_t n, size_t region,
                        uint64_t *counts)
{
    uint64_t *by_out = cl_host_alloc((PM_MAX_WORDS + 1) * sizeof *by_out, "counts by out");
    memset(by_out, 0, (PM_MAX_WORDS + 1) * sizeof *by_out);
    for (size_t start = 0; start < n; start += region) {
        const size_t end = start + region < n ? start + region : n;
        uint32_t entry = 0;
        for (size_t p = start >= AUTOMATON_WARMUP ? start - AUTOMATON_WARMUP : 0; p < start; p++)
            entry = automaton_step(t, entry, text[p]);
        for (size_t p = start; p < end; p++) {
            entry = automaton_step(t, entry, text[p]);
            by_out[automaton_out(t, entry)]++;
        }
    }
    for (int w = 0; w < t->words; w++) {
        const int d = t->distinct_of[w];
        counts[w] = 0;
        for (int i = t->ends_start[d]; i < t->ends_start[d + 1]; i++)
            counts[w] += by_out[1 + t->ends[i]];
    }
    free(by_out);
}
