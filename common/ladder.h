// The -k ladder every exercise prints: one row per kernel version and one for the
// peer, with time, rate, % of the device copy bandwidth, speed-up over v1, any
// columns of the exercise's own, and verified yes/no.
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

typedef struct {
    cl_column columns[7 + CL_LADDER_MAX_EXTRA];
    cl_table table;
    int nextra;
    double v1_ms, best_ms;
} cl_ladder;

// The versions -k selected: one, or all of them for -k all.
void cl_selected_versions(const cl_common_args *args, int count, int *first, int *last);

// Prints the header. `extra` columns go between "x v1" and "verified".
void cl_ladder_begin(cl_ladder *l, const cl_column *extra, int nextra);

// A kernel version's row (version 0 sets the "x v1" baseline). GB/s = bytes / time,
// % copy compares it with the device's measured copy bandwidth.
void cl_ladder_row(cl_ladder *l, const char *name, int version, size_t n, double bytes, double ms,
                   bool ok, const cl_cell *extra);

// The peer's row, then a note: the best version's time over the peer's.
void cl_ladder_peer(cl_ladder *l, const char *name, size_t n, double bytes, double ms, bool ok,
                    const cl_cell *extra);

#ifdef __cplusplus
}
#endif

#endif
