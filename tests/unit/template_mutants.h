// Mutants of a shipped template for the tests that guard it: the template with some of its text
// replaced must fail the check that the shipped template passes.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/embedded_files.h"

namespace tilejit::testing {

using Edit = std::pair<std::string, std::string>;

// The shipped template `name` with each edit's text replaced (it must be there exactly once)
// fails the check `run` makes, which the shipped template (mutant "") passes. `run` takes the
// mutant's path ("" for the shipped template) and returns an absl::StatusOr of a check with
// `passed` and `detail`.
template <typename Run>
void expectMutantCaught(const std::string& name, const std::vector<Edit>& edits, const Run& run) {
  auto text = shippedTemplate(name);
  ASSERT_TRUE(text.ok());
  std::string mutant = *text, to;
  for (const auto& [from, replacement] : edits) {
    size_t at = mutant.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    ASSERT_EQ(mutant.find(from, at + 1), std::string::npos) << from;
    mutant.replace(at, from.size(), replacement);
    to += replacement;
  }
  auto dir = ::testing::TempDir() + "/" + name + "_mutants";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name + "_" + std::to_string(std::hash<std::string>()(to)) + ".mlir";
  { std::ofstream(path) << mutant; }
  auto good = run(std::string());
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->passed) << good->detail;
  auto bad = run(path);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE(bad->passed) << "the mutant (" << to << ") passed: " << bad->detail;
}

}  // namespace tilejit::testing
