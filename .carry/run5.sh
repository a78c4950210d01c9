#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
{
for n in 1 2 31 33 4097 8191 8192 8193 65537 1000003; do for input in uniform few sorted zero; do
  echo "== pairs n=$n $input"; bin/radix_sort -k v5 --pairs -n $n --input $input -i 1 2>&1 | grep -E "^(v|cub)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"
  echo "== keys n=$n $input"; bin/radix_sort -k v5 -n $n --input $input -i 1 2>&1 | grep -E "^(v|cub)|rror|ismatch"; echo "rc=${PIPESTATUS[0]}"
done; done
} > $OUT/correct.log 2>&1
bash .carry/variants.sh def:"" c1:"-DV5_CHAINS=1" c4:"-DV5_CHAINS=4"
MODES="--pairs" bash .carry/variants.sh "$@"
