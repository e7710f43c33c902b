// tilejit-tuning-compile OUTPUT ROOT FILE...: parses and checks each tuning file (ROOT: the
// folder the sources are named under, compiler/backends) and writes OUTPUT, a C++ source that
// builds each file's TargetTuning from constants (compiled_tuning.h). A malformed file fails
// the build with the parser's message (file, row, field); OUTPUT is then left as it was.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/tuning/tuning_file.h"

namespace tilejit {
namespace {

// A C++ string literal holding `text` exactly (octal escapes: no digit can extend them).
std::string literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\%03o", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string limit(int64_t value) {
  return value == kNoTilingLimit ? "kNoTilingLimit" : absl::StrCat(value);
}

std::string tunedValue(const TunedValue& value) {
  return absl::StrCat("TunedValue{", value.value, ", ", literal(value.evidence), "}");
}

// The body of a function returning `tuning`: one assignment per field, by name, so a field
// added to or reordered in tuning_file.h cannot be filled from the wrong value.
std::string builder(const TargetTuning& tuning) {
  std::string out = "  TargetTuning tuning;\n";
  absl::StrAppend(&out, "  tuning.source = ", literal(tuning.source), ";\n");
  absl::StrAppend(&out, "  tuning.target = ", literal(tuning.target), ";\n");
  absl::StrAppend(&out, "  tuning.measured = ", tuning.measured ? "true" : "false", ";\n");
  absl::StrAppend(&out, "  tuning.provenance = ", literal(tuning.provenance), ";\n");
  for (const auto& [name, rows] : tuning.templates) {
    absl::StrAppend(&out, "  {\n    TemplateTuning& rows = tuning.templates[", literal(name),
                    "];\n");
    for (const auto& [parameter, value] : rows.defaults)
      absl::StrAppend(&out, "    rows.defaults.emplace(", literal(parameter), ", ",
                      tunedValue(value), ");\n");
    for (const ConditionalTuning& row : rows.conditional) {
      absl::StrAppend(&out, "    {\n",
                      "      ConditionalTuning& row = rows.conditional.emplace_back();\n",
                      "      row.name = ", literal(row.name), ";\n");
      for (const auto& [parameter, value] : row.when)
        absl::StrAppend(&out, "      row.when.emplace(", literal(parameter), ", ", literal(value),
                        ");\n");
      for (const auto& [parameter, value] : row.set)
        absl::StrAppend(&out, "      row.set.emplace(", literal(parameter), ", ", value, ");\n");
      absl::StrAppend(&out, "      row.evidence = ", literal(row.evidence), ";\n    }\n");
    }
    absl::StrAppend(&out, "  }\n");
  }
  if (!tuning.decodeTilings.empty())
    absl::StrAppend(&out, "  tuning.decodeTilings.reserve(", tuning.decodeTilings.size(), ");\n");
  for (const DecodeTiling& row : tuning.decodeTilings)
    absl::StrAppend(&out, "  {\n    DecodeTiling& row = tuning.decodeTilings.emplace_back();\n",
                    "    row.name = ", literal(row.name), ";\n",
                    "    row.maxPrograms = ", limit(row.maxPrograms), ";\n",
                    "    row.maxContext = ", limit(row.maxContext), ";\n",
                    "    row.maxHeadSize = ", row.maxHeadSize, ";\n",
                    "    row.partitionSize = ", row.partitionSize, ";\n",
                    "    row.blockN = ", row.blockN, ";\n",
                    "    row.prefetchDepth = ", row.prefetchDepth, ";\n",
                    "    row.clusterMerge = ", row.clusterMerge ? "true" : "false", ";\n",
                    "    row.numWarps = ", row.numWarps, ";\n",
                    "    row.evidence = ", literal(row.evidence), ";\n  }\n");
  const std::pair<const char*, const std::optional<TunedValue>*> rules[] = {
      {"largeMergePairs", &tuning.decodeMerge.largeMergePairs},
      {"largeMergeHeadsPerProgram", &tuning.decodeMerge.largeMergeHeadsPerProgram},
      {"largeMergeTiles", &tuning.decodeMerge.largeMergeTiles}};
  for (const auto& [field, rule] : rules)
    if (*rule)
      absl::StrAppend(&out, "  tuning.decodeMerge.", field, " = ", tunedValue(**rule), ";\n");
  for (const DecodeTilingCheck& check : tuning.decodeTilingChecks)
    absl::StrAppend(&out, "  {\n",
                    "    DecodeTilingCheck& check = tuning.decodeTilingChecks.emplace_back();\n",
                    "    check.numSeqs = ", check.numSeqs, ";\n",
                    "    check.numKvHeads = ", check.numKvHeads, ";\n",
                    "    check.maxModelLen = ", check.maxModelLen, ";\n",
                    "    check.headSize = ", check.headSize, ";\n",
                    check.picks ? absl::StrCat("    check.picks = ", literal(*check.picks), ";\n")
                                : "",
                    "  }\n");
  return out + "  return tuning;\n";
}

int fail(const std::string& message) {
  std::fprintf(stderr, "tilejit-tuning-compile: %s\n", message.c_str());
  return 1;
}

int run(int argc, char** argv) {
  if (argc < 3) return fail("usage: tilejit-tuning-compile OUTPUT ROOT FILE...");
  const std::filesystem::path output = argv[1], root = argv[2];
  std::map<std::string, TargetTuning> byTarget;  // sorted: the output is deterministic
  for (int i = 3; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return fail(absl::StrCat(path.string(), ": cannot read"));
    const std::string source = std::filesystem::relative(path, root).generic_string();
    absl::StatusOr<TargetTuning> tuning = parseTuningFile(source, text.str());
    if (!tuning.ok())
      return fail(absl::StrCat("malformed tuning file ", path.string(), ": ",
                               tuning.status().message()));
    if (tuning->target != path.stem().string())
      return fail(absl::StrCat(source, ".target: '", tuning->target,
                               "' does not match the file name (", path.filename().string(),
                               ")"));
    if (auto [it, inserted] = byTarget.try_emplace(tuning->target, *tuning); !inserted)
      return fail(absl::StrCat(source, ": a second file for ", tuning->target, " (first ",
                               it->second.source, ")"));
  }
  std::string code =
      "// Generated by tilejit-tuning-compile (compiler/tuning/tuning_compile.cpp) from the\n"
      "// tuning files. Do not edit.\n"
      "#include \"compiler/tuning/compiled_tuning.h\"\n\n"
      "namespace tilejit {\nnamespace {\n";
  std::string entries;
  int index = 0;
  for (const auto& [target, tuning] : byTarget) {
    absl::StrAppend(&code, "\n// ", tuning.source, "\nTargetTuning build", index, "() {\n",
                    builder(tuning), "}\n");
    absl::StrAppend(&entries, "      {", literal(target), ", &build", index, "},\n");
    ++index;
  }
  absl::StrAppend(&code, "\n}  // namespace\n\n",
                  "absl::Span<const CompiledTuning> compiledTunings() {\n",
                  byTarget.empty()
                      ? "  return {};\n"
                      : absl::StrCat("  static constexpr CompiledTuning kTunings[] = {\n",
                                     entries, "  };\n  return kTunings;\n"),
                  "}\n\n}  // namespace tilejit\n");
  // Written beside OUTPUT and renamed over it: an interrupted run leaves no half a source.
  const std::filesystem::path staged = output.string() + ".tmp";
  {
    std::ofstream out(staged, std::ios::binary | std::ios::trunc);
    out << code;
    if (!out.flush()) return fail(absl::StrCat(staged.string(), ": cannot write"));
  }
  std::error_code error;
  std::filesystem::rename(staged, output, error);
  if (error) return fail(absl::StrCat(output.string(), ": ", error.message()));
  return 0;
}

}  // namespace
}  // namespace tilejit

int main(int argc, char** argv) { return tilejit::run(argc, argv); }
