#!/bin/bash
set -u
make -j16 ARCH=sm_90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
sed 's#^for t in tests/exercise_\*.sh tests/scripts.sh; do#for t in tests/exercise_radix_sort.sh tests/exercise_renderer.sh; do#' tests/run.sh > /tmp/run_some.sh
( timeout 400 bash /tmp/run_some.sh > $OUT/tests.log 2>&1; echo "tests rc=$?" >> $OUT/tests.log ) 
{
for tool in memcheck racecheck synccheck initcheck; do
  for args in "-k v5 -n 5000" "-k v5 --pairs -n 20001" "-k v5 --pairs -n 8192 --bits 12" "-k v4 --pairs -n 9000"; do
    echo "== $tool $args"; compute-sanitizer --tool $tool --error-exitcode 9 bin/radix_sort $args -i 1 2>&1 | grep -E "ERROR SUMMARY|rror|^v" | head -5; echo "rc=${PIPESTATUS[0]}"
  done
  echo "== $tool renderer"; compute-sanitizer --tool $tool --error-exitcode 9 bin/renderer -k v3 -s 128 -n 2000 -i 1 rand10k 2>&1 | grep -E "ERROR SUMMARY|rror" | head -5; echo "rc=${PIPESTATUS[0]}"
done
} > $OUT/sanitizer.log 2>&1
tail -3 $OUT/tests.log; grep -c "rc=0" $OUT/sanitizer.log; grep "rc=[^0]" -B3 $OUT/sanitizer.log | head
