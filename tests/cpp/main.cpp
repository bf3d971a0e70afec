// Catch2's main, compiled once. The suite runs natively and, built with em++, under node.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
