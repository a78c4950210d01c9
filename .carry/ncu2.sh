#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_sample_count,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_branch_resolving
for mode in "" "--pairs"; do
ncu --metrics $M --kernel-name regex:"onesweep_pass_v5|Onesweep" --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 $mode > $OUT/m_v5$mode.txt 2>&1
ncu --metrics $M --kernel-name regex:"Onesweep" --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 $mode > $OUT/m_cub$mode.txt 2>&1
done
ncu --set full --import-source no --kernel-name regex:"onesweep_pass_v5" --launch-skip 2 --launch-count 1 -o $OUT/v5pairs bin/radix_sort -k v5 -n 64M -i 1 --pairs > /dev/null 2>&1
ncu -i $OUT/v5pairs.ncu-rep --page source --csv --print-source sass > $OUT/v5pairs_sass.csv 2>&1
rm -f $OUT/v5pairs.ncu-rep
cuobjdump -sass build/common/sort.o | grep -A100000 "onesweep_pass_v5ILb1" | head -5000 > $OUT/v5pairs.sass
