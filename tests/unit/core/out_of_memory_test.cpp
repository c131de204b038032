// SPDX-License-Identifier: MIT
// Running out of memory, one module for the command line and the Python module
// (exactattn/out_of_memory.hpp, issue #33): the reasons both give, and the reserve's handler.
// The handler is called as the allocator would call it, without a failing allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <new>

#include "exactattn/out_of_memory.hpp"

using namespace exactattn;

TEST(OutOfMemory, TheReasonsAreTheOneLineOfDocsLimits) {
    EXPECT_STREQ(out_of_memory_reason(),
                 "out of memory: the input needs more memory than this machine has; lower its size (see "
                 "docs/limits.md)");
    EXPECT_STREQ(too_large_reason(),
                 "out of memory: a result is larger than the largest object this machine can hold; lower the "
                 "input's size (see docs/limits.md)");
}

TEST(OutOfMemory, TheReserveIsGivenUpFirstThenAnEarlierHandlerIsAsked) {
    static int asked = 0;
    std::set_new_handler([] {
        ++asked;
        throw std::bad_alloc();
    });
    install_memory_reserve();
    const std::new_handler handler = std::get_new_handler();
    EXPECT_THROW(handler(), std::bad_alloc);  // the first failure frees the reserve
    EXPECT_EQ(asked, 0);
    EXPECT_THROW(handler(), std::bad_alloc);  // no reserve left: the handler installed before
    EXPECT_EQ(asked, 1);
    take_memory_reserve();
    EXPECT_THROW(handler(), std::bad_alloc);  // held again: given up again, nobody else asked
    EXPECT_EQ(asked, 1);
    install_memory_reserve();  // a second install (the module imported twice) keeps one handler
    EXPECT_EQ(std::get_new_handler(), handler);
    EXPECT_THROW(handler(), std::bad_alloc);  // the reserve it took
    EXPECT_THROW(handler(), std::bad_alloc);  // and the earlier handler is still the one asked
    EXPECT_EQ(asked, 2);
    std::set_new_handler(nullptr);
}
