# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part sizes: every version at edge NX and M.
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.
td=bin/tridiag

# Every version that solves the NX, against the Thomas gold, at edge NX and M, both
# inputs (random: every system different, so a mix-up of systems shows).
batch "$td"
for input in practical random; do
    for nx in 1 2 3 31 32 33 127 128 129 1024 1025; do
        for m in 1 3; do
            batch_gpu "tridiag -k all --nx $nx -n $m --input $input" 0 -k all --nx "$nx" -n "$m" --input "$input" -i 2
        done
    done
done
batch_end
