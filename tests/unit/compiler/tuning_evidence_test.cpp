// Every measured tuning row names its benchmark record: each evidence id an evidence string
// cites (`2026-12-01/s12-cluster-sweep`, `bench/profile_small_batch.py`) is a row of an
// evidence index in bench/results/<family>/README.md, where the kept data and the finding are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/targets/target_description.h"
#include "compiler/tuning/tuning_table.h"

namespace tilejit {
namespace {

// The ids of every evidence index (first cell of a table row, in backticks).
std::vector<std::string> evidenceIndexIds() {
  std::vector<std::string> ids;
  const std::regex row(R"(^\| `([^`]+)`)");
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TILEJIT_SOURCE_DIR) + "/bench/results")) {
    std::ifstream readme(entry.path() / "README.md");
    for (std::string line; std::getline(readme, line);) {
      std::smatch match;
      if (std::regex_search(line, match, row)) ids.push_back(match[1]);
    }
  }
  return ids;
}

// The evidence ids a string cites: results by date and folder, or a benchmark program.
std::vector<std::string> citedIds(const std::string& evidence) {
  std::vector<std::string> ids;
  const std::regex id(R"((20\d\d-\d\d-\d\d/[A-Za-z0-9._/-]*[A-Za-z0-9])|(bench/[A-Za-z0-9_]+\.py))");
  for (auto it = std::sregex_iterator(evidence.begin(), evidence.end(), id);
       it != std::sregex_iterator(); ++it)
    ids.push_back(it->str());
  return ids;
}

// Every evidence string of a target's tuning, with where it sits, for messages.
std::vector<std::pair<std::string, std::string>> evidenceOf(const TargetTuning& tuning) {
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [templateName, rows] : tuning.templates) {
    for (const auto& [parameter, value] : rows.defaults)
      all.emplace_back(templateName + "." + parameter, value.evidence);
    for (const ConditionalTuning& row : rows.conditional)
      all.emplace_back(templateName + " row " + row.name, row.evidence);
  }
  for (const DecodeTiling& row : tuning.decodeTilings)
    all.emplace_back("paged_decode tiling " + row.name, row.evidence);
  for (const auto* rule : {&tuning.decodeMerge.largeMergePairs,
                           &tuning.decodeMerge.largeMergeHeadsPerProgram,
                           &tuning.decodeMerge.largeMergeTiles})
    if (*rule) all.emplace_back("paged_decode merge rule", (*rule)->evidence);
  return all;
}

TEST(TuningEvidence, EveryCitedIdIsInAnEvidenceIndex) {
  const std::vector<std::string> index = evidenceIndexIds();
  ASSERT_FALSE(index.empty()) << "no evidence index under bench/results/*/README.md";
  int cited = 0;
  for (const TargetDescription& target : allTargets()) {
    const TargetTuning& tuning = tuningFor(target);
    for (const auto& [where, evidence] : evidenceOf(tuning)) {
      for (const std::string& id : citedIds(evidence)) {
        ++cited;
        // An id may name a folder whose index rows are finer (`s9-swizzle` -> `s9-swizzle c2`).
        bool found = false;
        for (const std::string& row : index) found |= row.rfind(id, 0) == 0;
        EXPECT_TRUE(found) << tuning.source << " " << where << " cites '" << id
                           << "', which no bench/results/*/README.md evidence index lists";
      }
    }
  }
  EXPECT_GT(cited, 20) << "the measured targets' rows cite their records";
}

// A measured value cites its record; a value that follows another says which ("follows ...").
TEST(TuningEvidence, MeasuredTargetsCiteARecordForEveryValue) {
  for (const TargetDescription& target : allTargets()) {
    const TargetTuning& tuning = tuningFor(target);
    if (!tuning.measured) continue;
    for (const auto& [where, evidence] : evidenceOf(tuning))
      EXPECT_TRUE(!citedIds(evidence).empty() || evidence.rfind("follows ", 0) == 0)
          << tuning.source << " " << where << ": evidence '" << evidence
          << "' names no benchmark record";
  }
}

}  // namespace
}  // namespace tilejit

namespace tilejit {
namespace {

// Every field of a target's tuning as text, in a fixed order: what the comparison below sees.
std::string describe(const TargetTuning& t) {
  std::ostringstream out;
  out << t.source << '|' << t.target << '|' << t.measured << '|' << t.provenance << '\n';
  for (const auto& [name, rows] : t.templates) {
    for (const auto& [parameter, value] : rows.defaults)
      out << name << '.' << parameter << '=' << value.value << " (" << value.evidence << ")\n";
    for (const ConditionalTuning& row : rows.conditional) {
      out << name << " row " << row.name << " when";
      for (const auto& [k, v] : row.when) out << ' ' << k << '=' << v;
      out << " set";
      for (const auto& [k, v] : row.set) out << ' ' << k << '=' << v;
      out << " (" << row.evidence << ")\n";
    }
  }
  for (const DecodeTiling& r : t.decodeTilings)
    out << "tiling " << r.name << ' ' << r.maxPrograms << ' ' << r.maxContext << ' ' << r.maxHeadSize
        << ' ' << r.partitionSize << ' ' << r.blockN << ' ' << r.prefetchDepth << ' '
        << r.clusterMerge << ' ' << r.numWarps << " (" << r.evidence << ")\n";
  for (const auto* rule : {&t.decodeMerge.largeMergePairs, &t.decodeMerge.largeMergeHeadsPerProgram,
                           &t.decodeMerge.largeMergeTiles})
    out << "merge " << (*rule ? std::to_string((*rule)->value) + " (" + (*rule)->evidence + ")" : "-")
        << '\n';
  for (const DecodeTilingCheck& c : t.decodeTilingChecks)
    out << "check " << c.numSeqs << ' ' << c.numKvHeads << ' ' << c.maxModelLen << ' ' << c.headSize
        << " picks " << c.picks.value_or("-") << '\n';
  return out.str();
}

// The tables built into the binary are what the files in the tree say.
TEST(TuningTables, BuiltInTablesEqualTheFilesInTheTree) {
  int compared = 0;
  for (std::string_view target : embeddedTuningTargets()) {
    const TargetTuning* built = embeddedTargetTuning(target);
    ASSERT_NE(built, nullptr) << target;
    const std::string path = std::string(TILEJIT_SOURCE_DIR) + "/compiler/backends/" + built->source;
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<TargetTuning> parsed = parseTuningFile(built->source, text.str());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(describe(*built), describe(*parsed)) << path;
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(allTargets().size()));
}

}  // namespace
}  // namespace tilejit
