// The one translation unit that holds the source tree's absolute path: the fixtures' files are read from it, and
// a compiler cache reuses every other test object in a clone at another path.
#include "test_util.hpp"

namespace rl::test {

std::string source_dir() { return RL_SOURCE_DIR; }

}  // namespace rl::test
