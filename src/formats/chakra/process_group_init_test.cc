#include "formats/chakra/process_group_init.h"

#include <gtest/gtest.h>

namespace snr::chakra {
namespace {

TEST(ProcessGroupInit, ValuesAreTheReprOfOneJsonString) {
  EXPECT_EQ(process_group_init_values({{"1", {0, 2}}, {"2", {1, 3}}}),
            R"(['[{"pg_name":"1","ranks":[0,2]},{"pg_name":"2","ranks":[1,3]}]'])");
  EXPECT_EQ(process_group_init_values({}), "['[]']");
}

TEST(ProcessGroupInit, QuotesInNamesCannotEndTheRepr) {
  EXPECT_EQ(process_group_init_values({{"it's", {0, 1}}}), R"(['[{"pg_name":"it\u0027s","ranks":[0,1]}]'])");
}

}  // namespace
}  // namespace snr::chakra
