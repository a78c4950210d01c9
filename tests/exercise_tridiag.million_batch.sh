# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part million_batch: 100 random systems of NX = 1,000,000
# (part million_batch_v8: the same shape, v8 alone on the practical's systems).
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.
td=bin/tridiag

expect_gpu "tridiag v7, v8 --nx 1000000 -n 100 --input random" 0 "$td" -k 7 --nx 1000000 -n 100 --input random -i 1 --no-peer
