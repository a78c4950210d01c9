# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part large: systems past one block.
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.
td=bin/tridiag

# Past one block (v7 runs v8 there): segments across blocks and the reduced system,
# both cuSPARSE solvers beside them (NX = 1,000,000: parts million, million_batch and million_batch_v8).
batch "$td"
for nx in 1025 4097 65536; do
    for m in 1 3 100; do
        batch_gpu "tridiag v7, v8 --nx $nx -n $m --input random" 0 -k 7 --nx "$nx" -n "$m" --input random -i 1
        batch_gpu "tridiag v8 --nx $nx -n $m" 0 -k 8 --nx "$nx" -n "$m" -i 1
    done
done
batch_end
