# shellcheck shell=bash # sourced by tests/run.sh
# radix_sort's integration tests, part large_v5: part large's largest sizes for v5.
radix_large_version=v5 radix_large_primes=
# shellcheck source=tests/exercise_radix_sort.large.sh
. tests/exercise_radix_sort.large.sh
