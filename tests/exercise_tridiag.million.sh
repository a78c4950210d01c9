# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part million: NX = 1,000,000, one and three systems.
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.
td=bin/tridiag

# As in part large (segments across blocks, the reduced system), at the largest NX.
batch "$td"
for m in 1 3; do
    batch_gpu "tridiag v7, v8 --nx 1000000 -n $m --input random" 0 -k 7 --nx 1000000 -n "$m" --input random -i 1 --no-peer
    batch_gpu "tridiag v8 --nx 1000000 -n $m" 0 -k 8 --nx 1000000 -n "$m" -i 1 --no-peer
done
batch_gpu "tridiag v8 --nx 1000000 --niter 4" 0 -k 8 --nx 1000000 -n 2 --niter 4 --input random -i 1 --no-peer
batch_end
