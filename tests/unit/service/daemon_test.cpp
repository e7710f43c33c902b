// tilejitd as a process: one compile per key however many clients ask at once, different keys
// in parallel, entries kept across a restart, an owner-only socket, and pre-warming.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>

#include "cache/entry_format.h"
#include "daemon_test_util.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;

// Runs `count` clients at once (released together), each asking for `request(i)`.
std::vector<absl::StatusOr<service::CompileReply>> askTogether(
    const DaemonProcess& daemon, int count,
    const std::function<service::CompileRequest(int)>& request) {
  std::vector<absl::StatusOr<service::CompileReply>> replies(
      size_t(count), absl::UnknownError("not run"));
  StartGate start(count);
  std::vector<std::thread> clients;
  for (int i = 0; i < count; ++i) {
    clients.emplace_back([&, i] {
      auto client = service::ServiceClient::connect(daemon.socketPath());
      start.arriveAndWait();
      replies[size_t(i)] = client.ok() ? client->compile(request(i)) : client.status();
    });
  }
  for (std::thread& client : clients) client.join();
  return replies;
}

TEST(Tilejitd, SixteenClientsAskingOneKeyCauseOneCompile) {
  DaemonScratch scratch;
  DaemonProcess daemon = scratch.daemon();
  ASSERT_EQ(daemon.start({"--jobs", "4"}), "");
  auto replies = askTogether(daemon, 16, [](int) { return mergeRequest(4); });
  for (const auto& reply : replies) {
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->key, replies[0]->key);
    EXPECT_EQ(reply->entry, replies[0]->entry);
    EXPECT_TRUE(service::verifiedEntry(*reply).ok());
  }
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 1);
  EXPECT_EQ(daemon.metric("tilejitd_compile_jobs_total"), 1)
      << "every client that found no entry must join the one compile job";
  EXPECT_EQ(daemon.metric("tilejitd_requests_total{kind=\"compile\"}"), 16);
  EXPECT_EQ(daemon.metric("tilejitd_compile_seconds_count"), 1);
  // A later ask is a memory hit.
  auto again = daemon.client().compile(mergeRequest(4));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->tier, service::ServedTier::kMemory);
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 1);
}

TEST(Tilejitd, DifferentKeysCompileInParallel) {
  DaemonScratch scratch;
  DaemonProcess daemon = scratch.daemon();
  ASSERT_EQ(daemon.start({"--jobs", "2"}), "");
  auto replies = askTogether(daemon, 2, [](int i) { return mergeRequest(i == 0 ? 1 : 2); });
  ASSERT_TRUE(replies[0].ok() && replies[1].ok());
  EXPECT_NE(replies[0]->key, replies[1]->key);
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 2);
  EXPECT_EQ(daemon.metric("tilejitd_compiles_running_peak"), 2)
      << "two workers, two keys asked at once: both compiles must run at the same time";
  EXPECT_EQ(daemon.metric("tilejitd_compile_workers"), 2);
}

TEST(Tilejitd, RestartServesEntriesFromDiskWithoutCompiling) {
  DaemonScratch scratch;
  std::string key, entry;
  {
    DaemonProcess daemon = scratch.daemon();
    ASSERT_EQ(daemon.start(), "");
    auto reply = daemon.client().compile(mergeRequest(8));
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->tier, service::ServedTier::kCompiled);
    key = reply->key;
    entry = service::verifiedEntry(*reply)->binary;
    EXPECT_EQ(daemon.stop(), 0) << daemon.log();
  }
  EXPECT_FALSE(fileExists(scratch.socket())) << "a stopped daemon removes its socket";
  DaemonProcess restarted = scratch.daemon();
  ASSERT_EQ(restarted.start(), "");
  auto reply = restarted.client().compile(mergeRequest(8));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->tier, service::ServedTier::kDisk);
  EXPECT_EQ(reply->key, key);
  EXPECT_EQ(service::verifiedEntry(*reply)->binary, entry);
  EXPECT_EQ(restarted.metric("tilejitd_compiles_total"), 0);
  EXPECT_EQ(restarted.metric("tilejitd_served_total{tier=\"disk\"}"), 1);
}

TEST(Tilejitd, SocketIsOwnerOnlyAndAnUnsafeDirectoryIsRefused) {
  DaemonScratch scratch;
  {
    DaemonProcess daemon = scratch.daemon();
    ASSERT_EQ(daemon.start(), "");
    struct stat info = {};
    ASSERT_EQ(::stat(scratch.socket().c_str(), &info), 0);
    EXPECT_TRUE(S_ISSOCK(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    // A second daemon on the same socket refuses instead of stealing it.
    std::string log = scratch.directory / "second.log";
    EXPECT_EQ(runTilejitdToExit({"--socket", scratch.socket(), "--cache-dir", scratch.cache()}, log), 1);
    EXPECT_NE(readFile(log).find("already serves"), std::string::npos) << readFile(log);
    EXPECT_TRUE(daemon.client().health().ok());
  }
  std::string open = scratch.directory / "open";
  ASSERT_EQ(::mkdir(open.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);  // past the umask: anyone may swap the socket
  std::string log = scratch.directory / "unsafe.log";
  EXPECT_EQ(runTilejitdToExit({"--socket", open + "/tilejitd.sock", "--cache-dir", scratch.cache()}, log), 1);
  std::string why = readFile(log);
  EXPECT_NE(why.find("writable by group or others"), std::string::npos) << why;
  EXPECT_NE(why.find(open), std::string::npos) << why;
}

TEST(Tilejitd, PrewarmsTheKernelsOfAnAotManifest) {
  DaemonScratch scratch;
  std::string manifest = scratch.directory / "manifest.json";
  writeFile(manifest, R"({"jobs": [{"template": "merge_attn_states", "targets": ["host"],
                          "grid": {"head_size": [64], "heads_per_program": [16, 32]}}]})");
  DaemonProcess daemon = scratch.daemon();
  ASSERT_EQ(daemon.start({"--manifest", manifest}), "");
  for (int i = 0; i < 1000 && daemon.metric("tilejitd_memory_entries") < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 2);
  auto reply = daemon.client().compile(mergeRequest(32));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->tier, service::ServedTier::kMemory);
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 2);
  auto health = daemon.client().health();
  ASSERT_TRUE(health.ok());
  EXPECT_NE(health->find("prewarm 2/2 done, 0 failed"), std::string::npos) << *health;
}

TEST(Tilejitd, AManifestThatDoesNotParseStopsTheStart) {
  DaemonScratch scratch;
  std::string manifest = scratch.directory / "manifest.json";
  writeFile(manifest, R"({"jobs": [{"template": 3}]})");
  DaemonProcess daemon = scratch.daemon();
  std::string why = daemon.start({"--manifest", manifest});
  EXPECT_NE(why.find("exited with 1"), std::string::npos) << why;
  EXPECT_NE(why.find("jobs[0]"), std::string::npos) << why;
}

}  // namespace
}  // namespace tilejit
