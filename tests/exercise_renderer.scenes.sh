# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# renderer's integration tests, part scenes: every scene, every version.
# tests/run.sh runs it beside tests/exercise_renderer.sh; `make test_renderer` runs both.
re=bin/renderer
# The scenes of a million circles or more are parts million (rand1M), micro and micro2
# (micro2M, seeds 1 and 2): this file with renderer_scenes (and renderer_seeds) set,
# each beside the others.
scenes=${renderer_scenes:-"rgb rgby rand10k rand100k biglittle littlebig pattern snow snowsingle bouncingballs hypnosis fireworks"}

# Every scene, every version and the peer against cpuref: two seeds, a size that is not
# a multiple of the 16-pixel tile; animated scenes at a later frame too.
batch "$re"
for s in $scenes; do
    for seed in ${renderer_seeds:-1 2}; do
        batch_gpu "renderer -c -k all $s -s ${renderer_size:-1000} -S $seed" 0 -c -k all \
            -s "${renderer_size:-1000}" -S "$seed" "$s"
    done
done
if [ -z "${renderer_scenes:-}" ]; then
    for s in snow bouncingballs hypnosis fireworks; do
        batch_gpu "renderer -c -k all $s -b 37:38" 0 -c -k all -s 301 -b 37:38 "$s"
    done
fi
batch_end
