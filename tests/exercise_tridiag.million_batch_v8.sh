# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part million_batch_v8: v8 on 100 of the practical's
# systems of NX = 1,000,000.
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.
td=bin/tridiag

expect_gpu "tridiag v8 --nx 1000000 -n 100" 0 "$td" -k 8 --nx 1000000 -n 100 -i 1 --no-peer
