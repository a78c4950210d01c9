// Unit tests of find_repeats' CPU gold.
#include "find_repeats.h"
#include "unit.h"

static void test_cmu_handout_example(void)
{
    int32_t a[10] = {1, 2, 2, 1, 1, 1, 3, 5, 3, 3}, out[10];
    size_t count = find_repeats_gold(a, 10, out);
    EXPECT(count == 4 && out[0] == 1 && out[1] == 3 && out[2] == 4 && out[3] == 8);
}

static void test_edges(void)
{
    int32_t one[1] = {7}, out[4];
    EXPECT(find_repeats_gold(one, 1, out) == 0);
    int32_t same[4] = {5, 5, 5, 5};
    EXPECT(find_repeats_gold(same, 4, out) == 3 && out[0] == 0 && out[2] == 2);
    int32_t none[4] = {1, 2, 1, 2};
    EXPECT(find_repeats_gold(none, 4, out) == 0);
    int32_t last[3] = {1, 2, 2};
    EXPECT(find_repeats_gold(last, 3, out) == 1 && out[0] == 1);
}

int main(void)
{
    RUN_TEST(test_cmu_handout_example);
    RUN_TEST(test_edges);
    return UNIT_RESULT();
}
