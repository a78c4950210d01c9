// The -k ladder every exercise prints: one row per kernel version and one for the
// peer, with time, rate, the rate as % of the hardware's (by default GB/s against the
// device copy bandwidth), speed-up over v1, any columns of the exercise's own, and
// verified yes/no.
#ifndef CUDALAB_LADDER_H
#define CUDALAB_LADDER_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CL_LADDER_MAX_EXTRA = 6 };

// What the rate columns measure: work / time in `unit`s a second, and that rate as a
// percentage of `peak` (in the same units; 0: the device's measured copy rate, for
// work in bytes; NaN: none known, the column shows "-"). Memory-bound exercises use cl_rate_bytes;
// matmul counts flops against the tensor or CUDA cores' peak.
typedef struct {
    cl_column rate, percent; // e.g. {"gbps", "GB/s", 7, "%.0f"}, {"pct_copy", "% copy", ...}
    double unit;             // 1e9: GB/s from bytes
    double peak;
    bool peer_column; // a "/ peer" column: each row's time over the peer's (measured first)
} cl_rate;
extern const cl_rate cl_rate_bytes;

typedef struct {
    cl_column columns[8 + CL_LADDER_MAX_EXTRA];
    cl_table table;
    int nextra;
    double v1_ms, best_ms;
    double peer_ms; // for the "/ peer" column; NaN: no peer ran
    cl_rate rate;
} cl_ladder;

// The versions -k selected: one, or all of them for -k all.
void cl_selected_versions(const cl_common_args *args, int count, int *first, int *last);

// Prints the header. `extra` columns go between "x v1" and "verified".
void cl_ladder_begin(cl_ladder *l, const cl_column *extra, int nextra);
// The same with rate columns of the exercise's own.
void cl_ladder_begin_rated(cl_ladder *l, const cl_rate *rate, const cl_column *extra, int nextra);

// A kernel version's row (version 0 sets the "x v1" baseline). GB/s = bytes / time,
// % copy compares it with the device's measured copy bandwidth (or the ladder's own
// rate: work / time against its peak).
void cl_ladder_row(cl_ladder *l, const char *name, int version, size_t n, double work, double ms,
                   bool ok, const cl_cell *extra);

// The peer's row, then a note: the best version's time over the peer's.
void cl_ladder_peer(cl_ladder *l, const char *name, size_t n, double work, double ms, bool ok,
                    const cl_cell *extra);

// --- drivers: the loops every exercise's main would otherwise repeat ---------------

typedef struct {
    double ms;    // median time
    bool ok;      // verified against gold
    bool skipped; // the version does not solve this problem (it said why): no row
} cl_measured;

// The peer is k == CL_PEER; an exercise with a second peer (a ladder row, not scored)
// gets it as k == CL_SECOND_PEER.
enum { CL_PEER = -1, CL_SECOND_PEER = -2 };

// Verifies and times version k (0-based) or a peer (CL_PEER, CL_SECOND_PEER); fills
// the exercise's extra cells, if it has any.
typedef cl_measured (*cl_version_measure)(void *ctx, int k, cl_cell *extra);

// The -k ladder: the peer is measured first (so what a version leaves on the device
// is the last version's output), then each selected version; prints a row each (none
// for a skipped one) and the best-versus-peer note. --no-peer leaves the peers out.
// Returns true when every result verified.
bool cl_run_ladder(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                   size_t n, double bytes, const cl_column *extra, int nextra,
                   cl_version_measure measure, void *ctx);
// The same with rate columns of the exercise's own: `work` (flops, say) a run in rate's units.
bool cl_run_ladder_rated(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                         size_t n, double work, const cl_rate *rate, const cl_column *extra,
                         int nextra, cl_version_measure measure, void *ctx);
// The same with a second peer's row after the first (measured right after it).
bool cl_run_ladder_two_peers(const cl_common_args *args, cl_kernel_list versions,
                             const char *peer_name, const char *second_peer_name, size_t n,
                             double bytes, const cl_column *extra, int nextra,
                             cl_version_measure measure, void *ctx);

// Measures the peer (ref) and version k (your) on a problem of size n.
typedef struct {
    double ref_ms, your_ms;
    bool ok;      // both verified
    double bytes; // bytes the scored work moves, as in the ladder (0: not a byte rate)
    double size;  // the problem size, where the size passed in is an index (0: that size)
    bool skipped; // no row: the size cannot run here (the measure said why)
} cl_check_point;
typedef cl_check_point (*cl_check_measure)(void *ctx, size_t n, int k);

// One size's point from an exercise's cl_version_measure: the peer, then version k, on
// the problem `call` holds; bytes as in cl_check_point (0: not a byte rate).
cl_check_point cl_check_pair(cl_version_measure measure, void *call, int k, double bytes);

// --check: scores the version -k names (the fastest without -k; the parser refuses
// --check -k all) at every size and prints the score table, whose header names the
// version and the peer (marks per size). Another version than the default is scored
// against the faster of the peer and the default version, both measured at each size
// (measure is called for k and for the default). Returns true when every result verified.
bool cl_run_check_table(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                        const size_t *sizes, int nsizes, double marks, cl_check_measure measure,
                        void *ctx);
// The same with a size column named `size_header` and a label a row (e.g. "1024^2").
bool cl_run_check_table_labelled(const cl_common_args *args, cl_kernel_list versions,
                                 const char *peer_name, const char *size_header,
                                 const char *const *labels, const size_t *sizes, int nsizes,
                                 double marks, cl_check_measure measure, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
