#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
{
for n in 1 2 31 33 4097 8191 8192 8193 65537 1000003; do for input in uniform few sorted zero; do
  echo "== pairs n=$n $input"; bin/radix_sort -k v5 --pairs -n $n --input $input -i 1 2>&1 | grep -E "^(v|cub)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"
  echo "== keys n=$n $input"; bin/radix_sort -k v5 -n $n --input $input -i 1 2>&1 | grep -E "^(v|cub)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"
done; done
} > $OUT/correct.log 2>&1
ncu --section SourceCounters --section WarpStateStats --kernel-name regex:onesweep_pass_v5 --launch-skip 2 --launch-count 1 -o $OUT/v5prof bin/radix_sort -k v5 -n 64M -i 1 > /dev/null 2>&1
ncu -i $OUT/v5prof.ncu-rep --page source --csv --print-source sass > $OUT/v5_sass.csv 2>&1
ncu -i $OUT/v5prof.ncu-rep --page details --print-details all > $OUT/v5_details.txt 2>&1
cuobjdump -sass build/common/sort.o > /dev/null 2>&1 && echo has cuobjdump
bash .carry/variants.sh "$@"
