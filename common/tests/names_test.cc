// SPDX-License-Identifier: GPL-2.0-only
// The name rules (names.h): the edges of each rule, and the messages that explain them.
#include "fastpath/names.h"

#include <gtest/gtest.h>

#include <string>

namespace fastpath {
namespace {

TEST(Names, ValidNameTakesLettersDigitsAndThreeMarks) {
  for (const char* ok : {"r1", "R1", "a", "r.1_x", "r1-r2", "0", "-", "_._"})
    EXPECT_TRUE(validName(ok)) << ok;
  for (const char* bad : {"", "bad/name", "a b", "a:b", "r1@x", "é", "a\tb", "a\nb", "a,b"})
    EXPECT_FALSE(validName(bad)) << bad;
}

TEST(Names, ValidNameLengthIsAtMost31) {
  EXPECT_EQ(kMaxNameLength, 31u);
  EXPECT_TRUE(validName(std::string(kMaxNameLength, 'x')));
  EXPECT_FALSE(validName(std::string(kMaxNameLength + 1, 'x')));
}

TEST(Names, NameRuleSaysWhatWhichAndTheRule) {
  EXPECT_EQ(nameRule("node", "bad/name"),
            "node name 'bad/name' is not valid: use 1 to 31 letters, digits, '_', '.', '-'");
  EXPECT_EQ(nameRule("port", ""),
            "port name '' is not valid: use 1 to 31 letters, digits, '_', '.', '-'");
}

TEST(Names, ValidIfnameIsTheKernelsRule) {
  EXPECT_EQ(kMaxIfnameLength, 15u);
  for (const char* ok : {"eth0", "fp-r1s0", "a.b", "...", "x@y", "veth_1-2"})
    EXPECT_TRUE(validIfname(ok)) << ok;
  EXPECT_TRUE(validIfname(std::string(kMaxIfnameLength, 'x')));
  EXPECT_FALSE(validIfname(std::string(kMaxIfnameLength + 1, 'x')));
  for (const char* bad : {"", ".", "..", "a/b", "a:1", "a b", "a\tb", "a\nb", "a\rb", "a\vb", "a\fb"})
    EXPECT_FALSE(validIfname(bad)) << bad;
}

TEST(Names, IfnameRuleSaysWhichAndTheRule) {
  EXPECT_EQ(ifnameRule("a/b"),
            "interface name 'a/b' is not valid: use 1 to 15 characters without '/', ':' or "
            "spaces");
}

TEST(Names, AHostsVethEndFitsAnInterfaceName) {
  // "fh-" + the name while that fits an interface name; host names themselves go to 31.
  EXPECT_EQ(kMaxHostNameInVeth, 12u);
  EXPECT_TRUE(validIfname("fh-" + std::string(kMaxHostNameInVeth, 'h')));
  EXPECT_FALSE(validIfname("fh-" + std::string(kMaxHostNameInVeth + 1, 'h')));
}

}  // namespace
}  // namespace fastpath
