#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
{
for n in 1 2 31 33 4097 8191 8193 65537 1000003; do for input in uniform few sorted zero; do
  echo "== pairs n=$n $input"; bin/radix_sort -k all --pairs -n $n --input $input -i 1 2>&1 | grep -E "^(v|yours|cub)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"
done; done
for bits in 1 7 9 12 17 25 31; do echo "== bits $bits"; bin/radix_sort -k all --pairs --bits $bits -n 65537 -i 1 2>&1 | grep -E "^(v4|v5)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"; done
} > $OUT/correct.log 2>&1
for pairs in "" "--pairs"; do for n in 1M 16M 256M; do
  bin/radix_sort -k v4 -n $n $pairs -i 20 2>&1 | grep -E "^(v4|cub)" | sed "s/^/v4 $n ${pairs:-keys} /" >> $OUT/variants.log
done; done
bash .carry/variants.sh "$@"
