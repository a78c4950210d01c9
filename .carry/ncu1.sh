#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
ncu --set full --kernel-name regex:onesweep_pass_v5 --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 > $OUT/ncu_v5_keys.txt 2>&1
ncu --set full --kernel-name regex:Onesweep --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 > $OUT/ncu_cub_keys.txt 2>&1
ncu --set full --kernel-name regex:onesweep_pass_v5 --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 --pairs > $OUT/ncu_v5_pairs.txt 2>&1
ncu --set full --kernel-name regex:Onesweep --launch-skip 2 --launch-count 1 bin/radix_sort -k v5 -n 64M -i 1 --pairs > $OUT/ncu_cub_pairs.txt 2>&1
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --kernel-name regex:"count_all|Histogram" --launch-count 2 bin/radix_sort -k v5 -n 64M -i 1 > $OUT/ncu_hist.txt 2>&1
