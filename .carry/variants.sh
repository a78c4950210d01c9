#!/bin/bash
# Build sort.cu variants and time v5 of each against CUB. Usage: variants.sh NAME:"-D..." ...
set -u
log=$OUT/variants.log
mkdir -p build/var
objs="build/radix_sort/main.o build/radix_sort/gold.o build/radix_sort/radix_sort.o build/radix_sort/yours.o"
pids=()
for spec in "$@"; do
  name=${spec%%:*}; defs=${spec#*:}
  ( nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Icommon $defs -c common/sort.cu -o build/var/sort_$name.o &&
    nvcc -arch=sm_90 -o build/var/rs_$name $objs build/var/sort_$name.o build/libcudalab.a -Xcompiler -fopenmp -lpng16 -lm ) > build/var/$name.build 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; done
sizes=${SIZES:-"1M 16M 256M"}
for spec in "$@"; do
  name=${spec%%:*}
  [ -x build/var/rs_$name ] || { echo "$name: build failed" >> $log; cat build/var/$name.build >> $log; continue; }
  modes=("" "--pairs"); [ -n "${MODES:-}" ] && modes=($MODES)
  for pairs in "${modes[@]}"; do
    for n in $sizes; do
      out=$(timeout 60 build/var/rs_$name -k v5 -n $n $pairs -i 20 2>&1)
      echo "$out" | grep -E "^(v5|cub)" | sed "s/^/$name $n ${pairs:-keys} /" >> $log
      echo "$out" | grep -qiE "mismatch|wrong|error| NO " && echo "$name $n $pairs PROBLEM: $(echo "$out" | grep -iE 'mismatch|wrong|error| NO ' | head -3)" >> $log
    done
  done
done
