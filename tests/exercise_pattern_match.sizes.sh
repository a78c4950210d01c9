# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# pattern_match's integration tests, part sizes: every version at edge sizes.
# tests/run.sh runs it beside tests/exercise_pattern_match.sh; `make test_pattern_match` runs both.
pm=bin/pattern_match

# Every version against the trie gold: edge sizes (ints, 16-byte lanes, v6's 32-byte
# regions, 512-byte warp chunks, the course's 1024-byte chunks), the default words and
# 1024 vocabulary words of every length 1..32.
batch "$pm"
for n in 1 2 3 4 5 15 16 17 31 33 255 256 257 511 512 513 1023 1024 1025 4099 65537 1000007; do
    batch_gpu "pattern_match -k all -n $n" 0 -k all -n "$n" -i 1
    batch_gpu "pattern_match -k all -n $n --nwords 1024" 0 -k all -n "$n" --nwords 1024 -i 1
done
# v6's rows by byte class (100 vocabulary words) at its regions' edges.
for n in 1 31 255 257 65537 1000007; do
    batch_gpu "pattern_match -k all -n $n --nwords 100" 0 -k all -n "$n" --nwords 100 -i 1
done
batch_gpu "pattern_match -k all -n 1e7 -S 3 --nwords 100" 0 -k all -n 1e7 -S 3 --nwords 100 -i 1
# v6's rows by byte (words of 40 distinct bytes: too many for classes; 43 states) at its
# regions' edges; the default words take a copy a lane of rows by class.
byte_rows="abcdefghij,klmnopqrst,uvwxyzABCD,EFGHIJKLMN,the,and,a,ab"
for n in 1 31 255 257 65537 1000007; do
    batch_gpu "pattern_match -k all -n $n --words (40 distinct bytes)" 0 -k all -n "$n" --words "$byte_rows" -i 1
done
batch_end
